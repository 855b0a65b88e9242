"""Throughput of the cardhouse Python module (figures in python/README.md).

Three loops on Jass, one deal per game (``scope="deal"``, ``wys="auto"``), single thread:

1. ``legal_actions`` + ``apply`` per step from a Python loop (compare OpenSpiel's pybind11
   loop of ``legal_actions`` + ``apply_action``);
2. the same, plus the observation of the seat to act written into a preallocated array
   every step (``write_observation``);
3. ``VectorEnv.step`` with observations and masks for every env: the time inside ``step``
   alone, and the whole loop with actions chosen by a cheap vectorized rule (an argmax).

Only player steps are counted; dealing (``resolve_chance``) happens inside the timed loops.
Run: ``python python/bench.py [--seconds 3]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import cardhouse

OPTIONS = {"scope": "deal", "wys": "auto"}


def python_loop(seconds: float, with_observation: bool) -> float:
    game = cardhouse.new_game("jass", **OPTIONS)
    buffer = np.zeros(game.observation_shape, dtype=np.float32)
    picks = [int(x) for x in np.random.default_rng(0).integers(0, 1 << 30, size=1 << 16)]
    steps = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            state = game.new_initial_state()
            state.resolve_chance(seed)
            seed += 1
            while not state.is_terminal():
                legal = state.legal_actions()
                if with_observation:
                    state.write_observation(state.current_player, buffer)
                state.apply(legal[picks[steps & 0xFFFF] % len(legal)])
                steps += 1
    return steps / (time.perf_counter() - start)


def vector_loop(seconds: float, num_envs: int) -> tuple[float, float]:
    """Steps per second of the whole loop, and of the time spent inside ``step`` alone."""
    env = cardhouse.VectorEnv("jass", num_envs, 0, **OPTIONS)
    _, masks, _ = env.reset()
    steps = 0
    in_step = 0.0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        for _ in range(20):
            # The first legal action of every env: one vectorized argmax.
            actions = masks.argmax(axis=1)
            t = clock()
            _, masks, _, _, _ = env.step(actions)
            in_step += clock() - t
            steps += num_envs
    return steps / (clock() - start), steps / in_step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--num-envs", type=int, default=256, help="envs of the VectorEnv")
    args = parser.parse_args()
    print(f"cardhouse {cardhouse.__version__}, jass {OPTIONS}, {args.seconds:.0f} s per loop")
    rate = python_loop(args.seconds, with_observation=False)
    print(f"python loop, legal_actions + apply:            {rate:12,.0f} steps/s")
    rate = python_loop(args.seconds, with_observation=True)
    print(f"python loop, + write_observation every step:   {rate:12,.0f} steps/s")
    loop, step = vector_loop(args.seconds, args.num_envs)
    print(f"VectorEnv({args.num_envs}).step alone, obs + masks:     {step:12,.0f} steps/s")
    print(f"VectorEnv({args.num_envs}) loop with an argmax policy:  {loop:12,.0f} steps/s")


if __name__ == "__main__":
    main()
