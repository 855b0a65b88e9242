"""Throughput of the cardhouse Python module (figures in python/README.md).

Three loops on Jass, one deal per game (``scope="deal"``, ``wys="auto"``), single thread:

1. ``legal_actions`` + ``apply`` per step from a Python loop (compare OpenSpiel's pybind11
   loop of ``legal_actions`` + ``apply_action``);
2. the same, plus the observation of the seat to act written into a preallocated array
   every step (``write_observation``);
3. ``VectorEnv.step`` with observations and masks for every env: the time inside ``step``
   alone, and the whole loop with actions chosen by a cheap vectorized rule (an argmax).

Only player steps are counted; dealing (``resolve_chance``) happens inside the timed loops.
Each figure is given per wall-clock second and per CPU second of the benchmark thread
(``time.thread_time``): on a shared machine the second one is the steadier "per core"
figure. Run: ``python python/bench.py [--seconds 3]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# Python puts this script's directory first on sys.path, and there `cardhouse/` is the source
# package without its compiled extension: drop that entry so that the installed package is
# imported (an editable install adds the directory again through its own .pth entry).
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    del sys.path[0]

import numpy as np  # noqa: E402

import cardhouse  # noqa: E402

OPTIONS = {"scope": "deal", "wys": "auto"}


class Timer:
    """Wall-clock and thread CPU time since creation (or since ``resume``)."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self.resume()

    def resume(self) -> None:
        self._wall = time.perf_counter()
        self._cpu = time.thread_time()

    def pause(self) -> None:
        self.wall += time.perf_counter() - self._wall
        self.cpu += time.thread_time() - self._cpu

    def rates(self, steps: int) -> tuple[float, float]:
        return steps / self.wall, steps / self.cpu


def python_loop(seconds: float, with_observation: bool) -> tuple[float, float]:
    game = cardhouse.new_game("jass", **OPTIONS)
    buffer = np.zeros(game.observation_shape, dtype=np.float32)
    picks = [int(x) for x in np.random.default_rng(0).integers(0, 1 << 30, size=1 << 16)]
    steps = 0
    seed = 0
    timer = Timer()
    deadline = time.perf_counter() + seconds
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
    timer.pause()
    return timer.rates(steps)


def vector_loop(seconds: float, num_envs: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Rates of the time spent inside ``step`` alone, and of the whole loop."""
    env = cardhouse.VectorEnv("jass", num_envs, 0, **OPTIONS)
    _, masks, _ = env.reset()
    steps = 0
    loop, in_step = Timer(), Timer()
    in_step.pause()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for _ in range(20):
            # The first legal action of every env: one vectorized argmax.
            actions = masks.argmax(axis=1)
            in_step.resume()
            _, masks, _, _, _ = env.step(actions)
            in_step.pause()
            steps += num_envs
    loop.pause()
    return in_step.rates(steps), loop.rates(steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--num-envs", type=int, default=256, help="envs of the VectorEnv")
    args = parser.parse_args()
    print(f"cardhouse {cardhouse.__version__}, jass {OPTIONS}, {args.seconds:.0f} s per loop")
    print(f"{'loop':48} {'steps/s (wall)':>15} {'steps/CPU-s':>15}")

    def row(label: str, rates: tuple[float, float]) -> None:
        print(f"{label:48} {rates[0]:15,.0f} {rates[1]:15,.0f}")

    row("python loop: legal_actions + apply", python_loop(args.seconds, False))
    row("python loop: + write_observation every step", python_loop(args.seconds, True))
    step, loop = vector_loop(args.seconds, args.num_envs)
    row(f"VectorEnv({args.num_envs}).step alone, obs + masks", step)
    row(f"VectorEnv({args.num_envs}) loop with an argmax policy", loop)

if __name__ == "__main__":
    main()
