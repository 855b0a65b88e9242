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
"""

from __future__ import annotations

from cardhouse._core import Game
from cardhouse._core import _Bot as Bot
from cardhouse._core import _make_bot

__all__ = ["Bot", "heuristic", "ismcts", "random"]


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
