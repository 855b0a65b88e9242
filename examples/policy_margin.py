"""The margin of a value-trained policy (``--algo dmc``, or ``--algo distil --distil-loss
value``), chosen after training on validation deals: the policy plays the heuristic's move
unless it predicts a gain above the margin, its fixed hint bonus; a network whose value
errors are larger than the training margin leaves the heuristic too often. This re-exports the
checkpoint with each margin, plays each against the heuristic on duplicate deals of a
validation seed (not the seeds of ``cardhouse.train``'s evaluations), and writes the best as
a policy file.

::

    python examples/policy_margin.py runs/cribbage/agent.pt --margins 0.15 0.5 1 1.5 \\
        --sets 1000 --seed 424242 --out runs/cribbage/policy_margin.chp
"""

from __future__ import annotations

import argparse

import torch

import cardhouse
from cardhouse import bots
from cardhouse.train import export_policy, load_agent


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--margins", type=float, nargs="+", default=[0.15, 0.5, 1.0, 1.5])
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--sets", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=424242)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    agent, config = load_agent(args.checkpoint)
    if agent.hint_bonus is None:
        raise SystemExit("the checkpoint has no hint input: nothing to tune")
    game = cardhouse.new_game(config.game, **config.options)
    seats = game.num_players
    best: tuple[float, float, bytes] | None = None
    for margin in args.margins:
        with torch.no_grad():
            agent.hint_bonus.fill_(margin)
        info = f"{config.algo} ({config.teacher if config.algo == 'distil' else 'rollouts'}), margin {margin}"
        data = export_policy(agent, game, "policy", info)
        bot = bots.policy(data, game)
        lineup = [bot if s % (2 if seats == 4 else seats) == 0 else args.opponent for s in range(seats)]
        r = bots.duplicate(game, lineup, args.sets, args.seed, threads=args.threads)
        lo, hi = r.win_rate_ci
        print(f"margin {margin:5.2f}: win rate {r.win_rate:.3f} ({lo:.3f}-{hi:.3f}) over "
              f"{args.sets} sets, mean return {r.mean_return:+.2f}", flush=True)
        if best is None or r.win_rate > best[0]:
            best = (r.win_rate, margin, data)
    if best is not None and args.out:
        with open(args.out, "wb") as f:
            f.write(best[2])
        print(f"wrote margin {best[1]} to {args.out}")


if __name__ == "__main__":
    main()
