"""Throughput of the cardhouse Python module (figures in python/README.md).

Loops on one game (``--game``, default Jass; ``--game all`` for the four), one deal per game
(``scope="deal"``; Jass with ``wys="auto"``), single thread:

1. ``legal_actions`` + ``apply`` per step from a Python loop (compare OpenSpiel's pybind11
   loop of ``legal_actions`` + ``apply_action``);
2. the floor of that loop: the same loop, the same deals and number of steps, with the two
   engine calls replaced by the cheapest call into the same extension (``is_terminal()``)
   and the list by a constant one. What is left is CPython's and PyO3's cost of two calls
   and the loop itself; the ratio of loop 1 to this floor says how much of each step the
   engine's work (building the legal list, checking and applying) adds;
3. loop 1 plus the observation of the seat to act written into a preallocated array every
   step (``write_observation``);
4. ``VectorEnv.step`` with observations and masks for every env: the time inside ``step``
   alone, and the whole loop with actions chosen by a cheap vectorized rule (an argmax).

Steps are player actions, and in Klaberjass, Cribbage and Avinas also the few chance
outcomes that come after the first decision (Klaberjass's second dealing, Cribbage's starter),
which the loops apply like actions (from ``legal_actions``); the first dealing
(``resolve_chance``) happens inside the timed loops and is not counted.
Each figure is given per wall-clock second and per CPU second of the benchmark thread
(``time.thread_time``): on a shared machine the second one is the steadier "per core"
figure. Loops 1 and 2 alternate in rounds (their ratio is taken over the same rounds).
Run: ``python python/bench.py [--game GAME|all] [--seconds 3]``.
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

GAMES = ("jass", "klaberjass", "cribbage", "avinas")


def options(game: str) -> dict[str, str]:
    """One deal per game; Jass's Wys declared automatically (no Wys decisions)."""
    return {"scope": "deal", "wys": "auto"} if game == "jass" else {"scope": "deal"}


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


PICKS = [int(x) for x in np.random.default_rng(0).integers(0, 1 << 30, size=1 << 16)]


def python_loop(
    name: str, seconds: float, with_observation: bool, seed: int = 0
) -> tuple[tuple[float, float], int, list[int]]:
    """Rates of loop 1 (or 3), the next seed, and the number of steps of each deal played."""
    game = cardhouse.new_game(name, **options(name))
    buffer = np.zeros(game.observation_shape, dtype=np.float32)
    picks = PICKS
    lengths = []
    steps = 0
    timer = Timer()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            state = game.new_initial_state()
            state.resolve_chance(seed)
            seed += 1
            start = steps
            # (`steps < end` never binds here: it keeps the shape of the floor's loop.)
            end = steps + 100_000
            while not state.is_terminal() and steps < end:
                legal = state.legal_actions()
                if with_observation and state.current_player >= 0:
                    state.write_observation(state.current_player, buffer)
                state.apply(legal[picks[steps & 0xFFFF] % len(legal)])
                steps += 1
            lengths.append(steps - start)
    timer.pause()
    return timer.rates(steps), seed, lengths


def floor_loop(name: str, seed: int, lengths: list[int]) -> tuple[float, float]:
    """Loop 1's floor over the same deals and steps: ``legal_actions()`` replaced by
    ``is_terminal()`` and a constant list, ``apply(a)`` by ``is_terminal()``."""
    game = cardhouse.new_game(name, **options(name))
    picks = PICKS
    legal_list = [0, 1, 2, 3, 4, 5, 6, 7]
    steps = 0
    timer = Timer()
    for length in lengths:
        state = game.new_initial_state()
        state.resolve_chance(seed)
        seed += 1
        end = steps + length
        while not state.is_terminal() and steps < end:
            state.is_terminal()
            legal = legal_list
            state.is_terminal() or legal[picks[steps & 0xFFFF] % len(legal)]
            steps += 1
    timer.pause()
    return timer.rates(steps)


def loop_and_floor(
    name: str, seconds: float, rounds: int = 5
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Loops 1 and 2 alternated over ``rounds`` rounds, each floor on the deals just played."""
    loop_t = Timer()
    floor_t = Timer()
    loop_t.pause()
    floor_t.pause()
    total = 0
    for r in range(rounds):
        seed = r * 1_000_000
        (wall, cpu), _, lengths = python_loop(name, seconds / rounds, False, seed)
        n = sum(lengths)
        total += n
        loop_t.wall += n / wall
        loop_t.cpu += n / cpu
        f_wall, f_cpu = floor_loop(name, seed, lengths)
        floor_t.wall += n / f_wall
        floor_t.cpu += n / f_cpu
    return loop_t.rates(total), floor_t.rates(total)


def vector_loop(
    name: str, seconds: float, num_envs: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Rates of the time spent inside ``step`` alone, and of the whole loop."""
    env = cardhouse.VectorEnv(name, num_envs, 0, **options(name))
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
    parser.add_argument("--game", default="jass", choices=[*GAMES, "all"], help="game to measure")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--num-envs", type=int, default=256, help="envs of the VectorEnv")
    args = parser.parse_args()
    names = GAMES if args.game == "all" else (args.game,)
    for name in names:
        about = f"{name} {options(name)}, {args.seconds:.0f} s per loop"
        print(f"cardhouse {cardhouse.__version__}, {about}")
        print(f"{'loop':52} {'steps/s (wall)':>15} {'steps/CPU-s':>15}")

        def row(label: str, rates: tuple[float, float]) -> None:
            print(f"{label:52} {rates[0]:15,.0f} {rates[1]:15,.0f}")

        loop, floor = loop_and_floor(name, args.seconds)
        row("python loop: legal_actions + apply", loop)
        row("  its floor: is_terminal twice, a constant list", floor)
        observed = python_loop(name, args.seconds, True)[0]
        row("python loop: + write_observation every step", observed)
        step, whole = vector_loop(name, args.seconds, args.num_envs)
        row(f"VectorEnv({args.num_envs}).step alone, obs + masks", step)
        row(f"VectorEnv({args.num_envs}) loop with an argmax policy", whole)
        print(
            f"python loop at {loop[1] / floor[1]:.2f}x its floor (CPU time; wall: "
            f"{loop[0] / floor[0]:.2f}x)\n"
        )


if __name__ == "__main__":
    main()
