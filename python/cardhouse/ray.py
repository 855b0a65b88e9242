"""Distributed simulation with Ray (needs the ``rllib`` extra, or just ``ray``): bots against
bots, matches spread over Ray tasks, win rates with confidence intervals.

::

    import ray
    import cardhouse.ray

    ray.init()                     # or ray.init(address="auto") on a cluster
    result = cardhouse.ray.simulate(
        "jass", ["heuristic", "random", "heuristic", "random"], matches=2000, seed=7,
        scope="deal",
    )
    for side in result.sides:
        print(side.side, side.bots, side.win_rate, side.win_rate_ci)

Each task runs the engine's arena in Rust (the simulator of ``cardhouse simulate``, with the
GIL released) on a contiguous slice of the matches. Match ``i`` is seeded from ``(seed, i)``
exactly as ``cardhouse simulate --seed`` does, and the results are gathered in match order, so
the result is the same whatever the number of tasks, with ``local=True`` (no Ray at all) and
on the command line.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import ray  # the Ray package (absolute import: this module is cardhouse.ray)

import cardhouse
from cardhouse._core import _simulate, _wilson

__all__ = ["SideResult", "Simulation", "simulate"]

_MAX_SEED = 2**64 - 1
#: The most matches one simulation plays (as `cardhouse simulate --matches`).
_MAX_MATCHES = 100_000_000


@dataclass(frozen=True)
class SideResult:
    """One side's results (a partnership, or one seat in games without partners).

    Attributes:
        side: the side's index: seat ``s`` plays for side ``s % sides``.
        seats: the side's seats.
        bots: the bots on those seats.
        win_rate: the share of matches (duplicate sets) the side won; a draw counts half.
        win_rate_ci: the 95% Wilson score interval of ``win_rate``.
        mean_return: the mean return of one seat of the side per match (per set).
        mean_return_ci: the 95% interval of ``mean_return`` (normal approximation).
    """

    side: int
    seats: tuple[int, ...]
    bots: tuple[str, ...]
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_return: float
    mean_return_ci: tuple[float, float]


@dataclass(frozen=True)
class Simulation:
    """The result of :func:`simulate`. Two results compare equal when everything but the
    timing and the number of tasks is equal.

    Attributes:
        game: the game's name; ``options``: all of its options.
        bots: the lineup, one bot per seat.
        matches: the number of matches, or of duplicate sets with ``duplicate``.
        seed: the simulation's seed.
        duplicate: whether each match was played once per side with the lineup turned.
        sides: per side, its results.
        matches_played: matches played (a duplicate set counts each of its matches).
        returns: float64 array ``(matches, sides)``: per match (set), one seat's return for
            each side, in match order.
        tasks: the number of Ray tasks (0 with ``local=True``).
        seconds: wall time.
    """

    game: str
    options: dict[str, Any]
    bots: tuple[str, ...]
    matches: int
    seed: int
    duplicate: bool
    sides: tuple[SideResult, ...]
    matches_played: int
    returns: np.ndarray = field(compare=False, repr=False)
    tasks: int = field(compare=False)
    seconds: float = field(compare=False)


def _play_slice(
    game: cardhouse.Game, bots: list[str], seed: int, start: int, stop: int, duplicate: bool
) -> np.ndarray:
    return _simulate(game, bots, seed, start, stop, duplicate)


_play_slice_remote: Any = ray.remote(_play_slice)


def simulate(
    game: str | cardhouse.Game,
    bots: Sequence[str],
    matches: int,
    seed: int = 0,
    *,
    duplicate: bool = False,
    tasks: int | None = None,
    local: bool = False,
    **options: Any,
) -> Simulation:
    """Plays ``matches`` matches of bots against bots, spread over Ray tasks.

    Args:
        game: a registered game name (with ``**options``), or a ``cardhouse.Game``.
        bots: one bot name per seat: ``"random"``, ``"heuristic"``, ``"ismcts"``,
            ``"ismcts:N"`` (N iterations per move) or ``"policy:NAME"`` (a policy shipped with
            cardhouse; for a policy file, use :func:`cardhouse.bots.duplicate`, which takes
            ``Bot`` objects, in one process). Seats ``s`` and ``s + 2`` are partners in
            four-player games.
        matches: how many matches (duplicate sets with ``duplicate``), 1 to 100,000,000.
        seed: 0 to 2**64 - 1; match ``i`` is seeded from ``(seed, i)`` as by
            ``cardhouse simulate``.
        duplicate: play each match once per side with the lineup turned by one seat each
            time (the same deals, so card luck cancels).
        tasks: how many Ray tasks (default: one per CPU of the Ray cluster, at most
            ``matches``). Ray is started locally if this process is not connected yet.
        local: play in this process without Ray (the same result, for checking).
        **options: game options when ``game`` is a name, as for ``cardhouse.new_game``.

    Raises:
        InvalidOptionError: an unknown game, option or bot name, not one bot per seat,
            ``matches`` or ``seed`` or ``tasks`` out of range, options with a ``Game``.
    """
    g = _game(game, options)
    lineup = _lineup(bots)
    if (
        isinstance(matches, bool)
        or not isinstance(matches, int)
        or not 1 <= matches <= _MAX_MATCHES
    ):
        raise cardhouse.InvalidOptionError(
            f"matches={matches!r}: give an int from 1 to {_MAX_MATCHES}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= _MAX_SEED:
        raise cardhouse.InvalidOptionError(f"seed={seed!r}: give an int from 0 to 2**64 - 1")
    if tasks is not None and (isinstance(tasks, bool) or not isinstance(tasks, int) or tasks < 1):
        raise cardhouse.InvalidOptionError(f"tasks={tasks!r}: give an int of at least 1, or None")
    # Checks the bots against the game (names, one per seat) before anything is sent to Ray.
    _simulate(g, lineup, seed, 0, 0, duplicate)
    start = time.perf_counter()
    if local:
        returns = _play_slice(g, lineup, seed, 0, matches, duplicate)
        used = 0
    else:
        if not ray.is_initialized():
            ray.init()
        cpus = ray.cluster_resources().get("CPU", 1)  # type: ignore[no-untyped-call]
        wanted = tasks if tasks is not None else max(1, int(cpus))
        used = min(wanted, matches)
        bounds = [matches * k // used for k in range(used + 1)]
        game_ref = ray.put(g)
        refs = [
            _play_slice_remote.remote(game_ref, lineup, seed, lo, hi, duplicate)
            for lo, hi in zip(bounds, bounds[1:])
        ]
        returns = np.concatenate(ray.get(refs), axis=0)
    seconds = time.perf_counter() - start
    return _aggregate(g, lineup, matches, seed, duplicate, returns, used, seconds)


def _game(game: str | cardhouse.Game, options: dict[str, Any]) -> cardhouse.Game:
    if isinstance(game, cardhouse.Game):
        if options:
            raise cardhouse.InvalidOptionError(
                f"options {sorted(options)} given with a Game: give a game name with options, "
                "or a Game that has them"
            )
        return game
    if not isinstance(game, str):
        raise cardhouse.InvalidOptionError(
            f"game={game!r}: give a game name ({', '.join(cardhouse.list_games())}) "
            "or a cardhouse.Game"
        )
    return cardhouse.new_game(game, **options)


def _lineup(bots: Sequence[str]) -> list[str]:
    if isinstance(bots, str) or not all(isinstance(b, str) for b in bots):
        raise cardhouse.InvalidOptionError(
            f"bots={bots!r}: give a list of bot names, one per seat "
            "(random, heuristic, ismcts, ismcts:N or policy:NAME)"
        )
    return list(bots)


def _aggregate(
    game: cardhouse.Game,
    bots: list[str],
    matches: int,
    seed: int,
    duplicate: bool,
    returns: np.ndarray,
    tasks: int,
    seconds: float,
) -> Simulation:
    """Win rates and intervals, computed as ``cardhouse simulate`` does (sums in match
    order, so the figures do not depend on how the matches were split)."""
    n = game.num_players
    units = returns.shape[0]
    num_sides = returns.shape[1]
    rows = returns.tolist()
    sides = []
    for side in range(num_sides):
        values = [row[side] for row in rows]
        wins = 0.0
        for row in rows:
            best_other = max((row[o] for o in range(num_sides) if o != side), default=-math.inf)
            wins += 1.0 if row[side] > best_other else 0.5 if row[side] == best_other else 0.0
        mean = sum(values) / units
        var = sum((x - mean) ** 2 for x in values) / max(units - 1.0, 1.0)
        half = 1.96 * math.sqrt(var / units)
        seats = tuple(s for s in range(n) if s % num_sides == side)
        sides.append(
            SideResult(
                side=side,
                seats=seats,
                bots=tuple(bots[s] for s in seats),
                win_rate=wins / units,
                win_rate_ci=_wilson(wins, float(units)),
                mean_return=mean,
                mean_return_ci=(mean - half, mean + half),
            )
        )
    return Simulation(
        game=game.name,
        options=dict(game.options),
        bots=tuple(bots),
        matches=matches,
        seed=seed,
        duplicate=duplicate,
        sides=tuple(sides),
        matches_played=units * (num_sides if duplicate else 1),
        returns=returns,
        tasks=tasks,
        seconds=seconds,
    )
