"""PPO with action masking on a cardhouse game with Ray RLlib: the learning seats (side 0:
seats 0 and 2 in Jass and Avinas, seat 0 in two- and three-handed games) share one policy and
play against a fixed engine bot (random or heuristic) on the other seats; the win rate
against that bot is printed after every training iteration.

On this machine (a local Ray instance with every core)::

    pip install "./python[rllib]"
    python examples/rllib_ppo.py --game jass --opponent heuristic --iterations 20

On a Ray cluster, unchanged: on the head node, ``--address auto`` (or submit it as a job,
``ray job submit --working-dir . -- python examples/rllib_ppo.py --env-runners 32``, where
``ray.init()`` joins the cluster by itself). Every node needs ``cardhouse[rllib]`` installed.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import ray
from ray.rllib.algorithms.ppo import PPOConfig

import cardhouse
import cardhouse.rllib


def learning_seats(game: cardhouse.Game) -> list[int]:
    """The seats of side 0 (seat ``s`` plays for side ``s % sides``)."""
    n = game.num_players
    sides = 2 if n == 4 else n
    return [s for s in range(n) if s % sides == 0]


def make_config(
    game: str = "jass",
    opponent: str = "random",
    env_runners: int = 2,
    batch: int = 4000,
    minibatch: int = 500,
    epochs: int = 4,
    hidden: int = 256,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    reward_scale: float = 0.01,
) -> PPOConfig:
    """The PPO configuration: one masked policy ``"learned"`` for every agent (the learning
    seats), ``opponent`` on the other seats inside the environment."""
    options = {"scope": "deal", **(options or {})}
    g = cardhouse.new_game(game, **options)
    seats = learning_seats(g)
    bots = {s: opponent for s in range(g.num_players) if s not in seats}
    return (
        PPOConfig()
        .environment(
            cardhouse.rllib.env_name(game),
            env_config={**options, "bots": bots, "reward_scale": reward_scale},
        )
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
        .multi_agent(
            policies={"learned"},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: "learned",
            policies_to_train=["learned"],
        )
        .rl_module(
            rl_module_spec=cardhouse.rllib.masked_module_spec(
                ["learned"], model_config={"fcnet_hiddens": [hidden, hidden]}
            )
        )
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=minibatch,
            num_epochs=epochs,
            lr=3e-4,
        )
        .callbacks(cardhouse.rllib.WinRateCallback)
        .debugging(seed=seed)
    )


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="jass", choices=cardhouse.list_games())
    parser.add_argument("--opponent", default="random", choices=["random", "heuristic"])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--env-runners", type=int, default=2)
    parser.add_argument("--batch", type=int, default=4000, help="env steps per iteration")
    parser.add_argument("--minibatch", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--reward-scale", type=float, default=0.01, help="game points times this (Jass: ~157)"
    )
    parser.add_argument(
        "--address", default=None, help='a Ray cluster to join ("auto" on a cluster node)'
    )
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option"
    )
    args = parser.parse_args(argv)
    options = dict(_option(o) for o in args.option)
    if not ray.is_initialized():
        ray.init(address=args.address)
    config = make_config(
        args.game,
        args.opponent,
        args.env_runners,
        args.batch,
        args.minibatch,
        args.epochs,
        args.hidden,
        args.seed,
        options,
        args.reward_scale,
    )
    algo = config.build_algo()
    rows = []
    try:
        for i in range(1, args.iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            runners = result.get("env_runners", {})
            row = {
                "iteration": i,
                "win_rate": runners.get(cardhouse.rllib.WIN_RATE_METRIC, float("nan")),
                "illegal_rate": runners.get(cardhouse.rllib.ILLEGAL_RATE_METRIC, float("nan")),
                "episodes": runners.get("num_episodes", 0),
                "return_mean": runners.get("agent_episode_returns_mean", {}),
                "env_steps": runners.get("num_env_steps_sampled", 0),
                "seconds": time.perf_counter() - start,
            }
            rows.append(row)
            print(
                f"iteration {i}: win rate vs {args.opponent} {row['win_rate']:.3f} over "
                f"{row['episodes']} episodes, {row['env_steps']} env steps in "
                f"{row['seconds']:.1f} s",
                flush=True,
            )
    finally:
        algo.stop()
    return rows


def _option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"--option {text!r}: give KEY=VALUE")
    lowered = value.lower()
    if lowered in ("true", "false"):
        return key, lowered == "true"
    try:
        return key, int(value)
    except ValueError:
        return key, value


if __name__ == "__main__":
    main()
