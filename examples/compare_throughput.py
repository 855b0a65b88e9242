"""Training throughput, end to end, on this machine: ``cardhouse.train`` (masked PPO on
``VectorEnv``) and ``examples/rllib_ppo.py`` (Ray RLlib's PPO on ``cardhouse.rllib``), in one
process, alternated (A, B, A, B) so that both see the same load. Environment steps per second
include the policy's forward passes and the updates; for ``cardhouse.train`` the split
(engine, policy, update) is printed too.

    pip install "./python[rllib]"        # Ray RLlib and torch
    python examples/compare_throughput.py --game jass --opponent heuristic --seconds 60

Both train masked PPO with the same two-layer MLP size (``--hidden``) against the same engine
bot (ours without the heuristic hint).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cardhouse.train as train  # noqa: E402


def ours(game: str, opponent: str, seconds: float, hidden: int, hint: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as out:
        config = train.Config(
            game=game,
            algo="ppo",
            opponent=opponent,
            minutes=seconds / 60,
            hidden=hidden,
            hint=hint,
            eval_every=0,
            eval_sets=1,
            eval_ismcts_sets=0,
            final_sets=1,
            final_ismcts_sets=0,
            out=out,
        )
        s = train.train(config, log=lambda _: None)
    return {
        "steps": s["env_steps"],
        "seconds": s["train_seconds"],
        "steps_per_second": s["steps_per_second"],
        **{f"{k}_share": v / s["train_seconds"] for k, v in s["seconds"].items()},
    }


def rllib(game: str, opponent: str, iterations: int, hidden: int) -> dict[str, float]:
    import rllib_ppo

    start = time.perf_counter()
    rows = rllib_ppo.main(
        ["--game", game, "--opponent", opponent, "--iterations", str(iterations), "--hidden", str(hidden)]
    )
    wall = time.perf_counter() - start
    # The first iteration includes start-up; count the others. An iteration samples at least
    # its batch (4,000 env steps; RLlib's metric is sometimes missing: NaN).
    timed = rows[1:] or rows
    steps = sum(r["env_steps"] if r["env_steps"] == r["env_steps"] else 4000 for r in timed)
    seconds = sum(r["seconds"] for r in timed)
    return {"steps": steps, "seconds": seconds, "steps_per_second": steps / seconds, "wall": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--game", default="jass")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rllib-iterations", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for k in range(args.rounds):
        a = ours(args.game, args.opponent, args.seconds, args.hidden, hint=False)
        print(
            f"round {k + 1} cardhouse.train: {a['steps']:,} steps in {a['seconds']:.0f} s = "
            f"{a['steps_per_second']:,.0f} steps/s (engine {a['engine_share']:.0%}, policy "
            f"{a['policy_share']:.0%}, update {a['update_share']:.0%})",
            flush=True,
        )
        b = rllib(args.game, args.opponent, args.rllib_iterations, args.hidden)
        print(
            f"round {k + 1} rllib_ppo.py:    {b['steps']:,} steps in {b['seconds']:.0f} s = "
            f"{b['steps_per_second']:,.0f} steps/s",
            flush=True,
        )
        print(f"load average: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
