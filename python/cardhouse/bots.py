"""Bots to train and evaluate against, from the engine (:mod:`cardhouse` bots are Rust).

::

    import cardhouse
    from cardhouse import bots

    game = cardhouse.new_game("jass", scope="deal")
    opponents = {1: bots.heuristic(game, seed=1), 3: bots.ismcts(game, seed=3, iterations=100)}
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.resolve_chance(seed=7)
        elif state.current_player in opponents:
            state.apply(opponents[state.current_player].act(state))
        else:
            state.apply(state.legal_actions()[0])

Every bot decides for the seat to act from what that seat knows only (its cards and the
public ones; IS-MCTS searches over states resampled for that seat), never from hidden
cards. A bot is deterministic for its seed and the sequence of its calls. A bot is also a
:mod:`cardhouse.gymnasium` opponent policy: ``CardhouseEnv(game, opponent=bots.heuristic(game))``.

* :func:`random`: uniform over the legal actions.
* :func:`heuristic`: the game's sensible beginner's play (trumps by hand strength and cheap
  wins in Jass and Klaberjass, bidding the trump count and leading trumps in Avinas,
  expected-value discards and careful pegging in Cribbage).
* :func:`ismcts`: information-set Monte Carlo tree search; ``iterations`` per move (default:
  the game's, under 20 ms a move), optionally capped by ``time_budget`` seconds (which makes
  it depend on the machine's speed).
* ``"rollout"`` / ``"rollout:N"`` (a name wherever a bot is taken): flat Monte Carlo, every
  legal move (a Cribbage discard as a pair) played out by the heuristic over the same ``N``
  states resampled for the seat (default 100), the best mean played.
* ``"pimc"`` / ``"pimc:N"`` (a name wherever a bot is taken; Jass, Klaberjass, Avinas):
  perfect-information Monte Carlo, ``N`` states resampled for the seat (default 20) each
  solved exactly by the card-play solver (:meth:`cardhouse.State.solve`), the best mean
  played; decisions before the play (the mode, bids, the exchange) are IS-MCTS's.
* :func:`policy`: a trained policy (a small neural network evaluated by the engine in Rust,
  greedy over the legal actions): one shipped with cardhouse (``policy("jass")``, the same as
  the bot name ``"policy:jass"``) or a file written by :mod:`cardhouse.train`.

Bots against bots, in duplicate (each deal played once per side with the lineup turned, so
card luck cancels): :func:`duplicate`, e.g. a trained policy against the heuristic::

    result = bots.duplicate("jass", [bots.policy("jass"), "heuristic"], sets=1000, scope="deal")
    print(result.win_rate, result.win_rate_ci)
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from cardhouse._core import Game, InvalidOptionError, new_game
from cardhouse._core import _Bot as Bot
from cardhouse._core import _load_policy, _make_bot, _simulate, _wilson

__all__ = ["Bot", "Duplicate", "duplicate", "heuristic", "ismcts", "policy", "random"]

BotLike = Union[str, Bot]
"""A bot name (``"heuristic"``, ``"ismcts:200"``, ``"policy:jass"``) or a :class:`Bot`."""


def random(game: Game | None = None, seed: int = 0) -> Bot:
    """A bot that plays a uniformly random legal action."""
    return _make_bot("random", game, seed)


def heuristic(game: Game | None = None, seed: int = 0) -> Bot:
    """A bot that plays the game's heuristic (see the module docs)."""
    return _make_bot("heuristic", game, seed)


def ismcts(
    game: Game | None = None,
    seed: int = 0,
    iterations: int | None = None,
    time_budget: float | None = None,
) -> Bot:
    """An information-set Monte Carlo tree search bot.

    Args:
        game: the game it plays (checked at each call), or None for any.
        seed: its generator's seed.
        iterations: determinizations per move, 1 to 1,000,000 (default: the game's).
        time_budget: if given, a move also stops after this many seconds (above 0, at most
            3600).

    Raises:
        InvalidOptionError: iterations or time_budget out of range (a ``ValueError``).
    """
    return _make_bot("ismcts", game, seed, iterations, time_budget)


def policy(
    source: str | bytes | os.PathLike[str], game: Game | None = None
) -> Bot:
    """A trained policy as a bot: greedy over the legal actions, deterministic.

    Args:
        source: the name of a policy shipped with cardhouse (``"jass"``, ``"cribbage"``,
            ``"klaberjass"``, ``"avinas"``), the path of a policy file (``.chp``, written by
            :func:`cardhouse.train.export_policy`), or the file's bytes. The format is
            documented in the engine (``cardhouse::bots::policy``) and the README.
        game: if given, the policy is checked against it (game, observation length, action
            space) now, and at each call.

    Raises:
        InvalidOptionError: an unknown shipped name, a malformed file, or a policy of
            another game. OSError: the file cannot be read.
    """
    if isinstance(source, bytes):
        return _load_policy(source, game)
    path = os.fspath(source)
    if os.path.sep not in path and not path.endswith(".chp") and not os.path.exists(path):
        bot = _make_bot(f"policy:{path}", game)
        if game is not None:
            _simulate(game, [bot] * game.num_players, 0, 0, 0, False)  # checks the game
        return bot
    with open(path, "rb") as f:
        return _load_policy(f.read(), game)


@dataclass(frozen=True)
class Duplicate:
    """The result of :func:`duplicate`, from the first lineup entry's side.

    Attributes:
        bots: the lineup's names, one per seat.
        sets: duplicate sets played (each deal once per side).
        win_rate: the share of sets the first entry's side won (a tie counts half).
        win_rate_ci: its 95% Wilson interval.
        mean_return: the side's mean return per set (summed over the set's games).
        mean_return_ci: its 95% interval (normal approximation).
        returns: float64 ``(sets, sides)``: each side's return per set.
    """

    bots: tuple[str, ...]
    sets: int
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_return: float
    mean_return_ci: tuple[float, float]
    returns: np.ndarray


def duplicate(
    game: str | Game,
    bots: Sequence[BotLike],
    sets: int,
    seed: int = 0,
    *,
    threads: int = 1,
    **options: Any,
) -> Duplicate:
    """Plays ``sets`` duplicate sets of ``game`` in the engine's arena (Rust, GIL released):
    each deal is played once per side, the lineup turned by one seat each time, so that each
    bot holds each side's cards. The result is from the side of ``bots[0]``.

    Args:
        game: a game name (with ``**options``) or a ``Game``.
        bots: the lineup, one bot per seat, or one per side (repeated round the table:
            ``[policy, "heuristic"]`` in Jass seats the policy on 0 and 2).
        sets: at least 1. Set ``i`` is seeded from ``(seed, i)`` as by ``cardhouse simulate
            --duplicate``, so the result does not depend on ``threads``.
        threads: Python threads sharing the sets (each runs the engine without the GIL).

    Raises:
        InvalidOptionError: a bad game, option, bot, lineup length or count.
    """
    g = game if isinstance(game, Game) else new_game(game, **options)
    n = g.num_players
    lineup = list(bots)
    if not lineup or n % len(lineup) != 0:
        raise InvalidOptionError(
            f"{len(lineup)} bots for {n} seats: give one per seat, or one per side"
        )
    lineup = [lineup[s % len(lineup)] for s in range(n)]
    if isinstance(sets, bool) or not isinstance(sets, int) or sets < 1:
        raise InvalidOptionError(f"sets={sets!r}: give an int of at least 1")
    _simulate(g, lineup, seed, 0, 0, True)  # checks the lineup before any thread starts
    threads = max(1, min(int(threads), sets))
    bounds = [sets * k // threads for k in range(threads + 1)]
    parts: list[Any] = [None] * threads

    def play(k: int) -> None:
        parts[k] = _simulate(g, lineup, seed, bounds[k], bounds[k + 1], True)

    workers = [threading.Thread(target=play, args=(k,)) for k in range(1, threads)]
    for w in workers:
        w.start()
    play(0)
    for w in workers:
        w.join()
    if any(p is None for p in parts):
        raise RuntimeError("a simulation thread failed")
    returns = np.concatenate(parts, axis=0)
    ours, others = returns[:, 0], returns[:, 1:].max(axis=1)
    wins = float((ours > others).sum() + 0.5 * (ours == others).sum())
    mean = float(ours.mean())
    half = 1.96 * float(ours.std(ddof=1)) / math.sqrt(sets) if sets > 1 else math.inf
    names = tuple(b if isinstance(b, str) else b.name for b in lineup)
    return Duplicate(
        bots=names,
        sets=sets,
        win_rate=wins / sets,
        win_rate_ci=wilson(wins, sets),
        mean_return=mean,
        mean_return_ci=(mean - half, mean + half),
        returns=returns,
    )


def wilson(wins: float, n: float) -> tuple[float, float]:
    """The 95% Wilson score interval of ``wins`` successes in ``n`` trials (the engine's)."""
    return _wilson(wins, n)
