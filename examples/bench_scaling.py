"""Env steps per second at three scales (figures in python/README.md, "Scaling up").

Jass, one deal per game (``scope="deal"``, ``wys="auto"``), a uniformly random legal action
per step (chosen from the masks), player steps only, dealing included:

1. ``VectorEnv`` on one core (one thread);
2. threads on one machine: one ``VectorEnv`` per thread, stepping with the GIL released;
3. Ray RLlib: the ``cardhouse.rllib`` environment alone in a Python loop (one thread), then
   in RLlib env runners (Ray actors) sampling with the masked PPO module (its forward pass
   included), as in training.

Run: ``python examples/bench_scaling.py [--seconds 5] [--threads 2] [--env-runners 2]``
(``--address auto`` measures RLlib on a Ray cluster).
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Any

import numpy as np

import cardhouse

OPTIONS: dict[str, Any] = {"scope": "deal", "wys": "auto"}


def vector_steps(seconds: float, num_envs: int, seed: int) -> int:
    """Steps one ``VectorEnv`` makes in ``seconds`` with random legal actions."""
    env = cardhouse.VectorEnv("jass", num_envs, seed, **OPTIONS)
    _, masks, _ = env.reset()
    rng = np.random.default_rng(seed)
    steps = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for _ in range(20):
            actions = np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)
            _, masks, _, _, _ = env.step(actions)
            steps += num_envs
    return steps


def threaded(seconds: float, threads: int, num_envs: int) -> float:
    counts = [0] * threads

    def work(i: int) -> None:
        counts[i] = vector_steps(seconds, num_envs, i)

    start = time.perf_counter()
    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


def rllib_env_loop(seconds: float) -> float:
    """Steps of one ``CardhouseMultiAgentEnv`` driven from Python, random legal actions."""
    import cardhouse.rllib

    env = cardhouse.rllib.CardhouseMultiAgentEnv({"game": "jass", **OPTIONS})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            ((agent, o),) = obs.items()
            legal = np.flatnonzero(o["action_mask"])
            obs, _, terms, _, _ = env.step({agent: int(legal[rng.integers(len(legal))])})
            steps += 1
            if terms["__all__"]:
                obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def rllib(seconds: float, env_runners: int, envs_per_runner: int, address: str | None) -> float:
    import ray

    import cardhouse.rllib

    ray.init(address=address, include_dashboard=False, log_to_driver=False)
    cardhouse.rllib.register_envs()
    from ray.rllib.algorithms.ppo import PPOConfig

    config = (
        PPOConfig()
        .environment("cardhouse/jass", env_config=OPTIONS)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner)
        .multi_agent(
            policies={"learned"},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: "learned",
        )
        .rl_module(rl_module_spec=cardhouse.rllib.masked_module_spec(["learned"]))
    )
    algo = config.build_algo()

    def sample(runner: Any) -> tuple[int, float]:
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            episodes = runner.sample(num_timesteps=1000)
            steps += sum(e.env_steps() for e in episodes)
        return steps, time.perf_counter() - start

    algo.env_runner_group.foreach_env_runner(
        lambda r: r.sample(num_timesteps=200), local_env_runner=False
    )  # warm-up
    results = algo.env_runner_group.foreach_env_runner(sample, local_env_runner=False)
    algo.stop()
    ray.shutdown()
    return sum(s for s, _ in results) / max(t for _, t in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--num-envs", type=int, default=256, help="envs per VectorEnv")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--env-runners", type=int, default=2)
    parser.add_argument("--envs-per-runner", type=int, default=8)
    parser.add_argument("--address", default=None, help='a Ray cluster ("auto")')
    args = parser.parse_args()
    print(f"cardhouse {cardhouse.__version__}, jass {OPTIONS}, random legal actions")
    one = vector_steps(args.seconds, args.num_envs, 0) / args.seconds
    print(f"VectorEnv({args.num_envs}), one thread: {one:,.0f} env steps/s")
    many = threaded(args.seconds, args.threads, args.num_envs)
    print(f"{args.threads} threads x VectorEnv({args.num_envs}): {many:,.0f} env steps/s")
    loop = rllib_env_loop(args.seconds)
    print(f"cardhouse.rllib env alone, Python loop, one thread: {loop:,.0f} env steps/s")
    rl = rllib(args.seconds, args.env_runners, args.envs_per_runner, args.address)
    print(
        f"RLlib: {args.env_runners} env runners x {args.envs_per_runner} envs, masked PPO "
        f"module: {rl:,.0f} env steps/s"
    )


if __name__ == "__main__":
    main()
