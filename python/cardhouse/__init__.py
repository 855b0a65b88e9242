"""cardhouse: an exact, fast engine for traditional card games.

The State API (names as in OpenSpiel)::

    import cardhouse

    game = cardhouse.new_game("jass", scope="deal", wys="auto")
    state = game.new_initial_state()
    state.resolve_chance(seed=7)          # the deal
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    print(state.returns())

Batched stepping in Rust: :class:`VectorEnv`. Wrappers for reinforcement learning (optional
extras): :mod:`cardhouse.pettingzoo` (an AEC environment) and :mod:`cardhouse.gymnasium`
(a single-agent environment). Every game the engine registers works with all of them.
Game helpers: :mod:`cardhouse.cribbage` (the Cribbage hand scorer). Opponents:
:mod:`cardhouse.bots` (random, heuristic and IS-MCTS bots). Scaling up (the ``rllib`` extra):
:mod:`cardhouse.rllib` (Ray RLlib multi-agent environments) and :mod:`cardhouse.ray`
(bots against bots spread over Ray tasks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardhouse._core import (
    CHANCE,
    TERMINAL,
    BufferSizeError,
    CardhouseError,
    DecodeError,
    Game,
    IllegalActionError,
    InvalidCardError,
    InvalidOptionError,
    InvalidSeatError,
    ResampleFailedError,
    Rng,
    RulesVersionError,
    State,
    UnknownGameError,
    VectorEnv,
    __version__,
    list_games,
    new_game,
    option_specs,
    state_from_bytes,
    state_from_json,
)

if TYPE_CHECKING:
    from cardhouse import bots as bots
    from cardhouse import cribbage as cribbage
    from cardhouse import gymnasium as gymnasium
    from cardhouse import pettingzoo as pettingzoo
    from cardhouse import ray as ray
    from cardhouse import rllib as rllib

__all__ = [
    "CHANCE",
    "TERMINAL",
    "BufferSizeError",
    "CardhouseError",
    "DecodeError",
    "Game",
    "IllegalActionError",
    "InvalidCardError",
    "InvalidOptionError",
    "InvalidSeatError",
    "ResampleFailedError",
    "Rng",
    "RulesVersionError",
    "State",
    "UnknownGameError",
    "VectorEnv",
    "__version__",
    "list_games",
    "new_game",
    "option_specs",
    "state_from_bytes",
    "state_from_json",
]

_LAZY_SUBMODULES = ("bots", "cribbage", "gymnasium", "pettingzoo", "ray", "rllib")

# `gymnasium.make("cardhouse/Jass-v0")` works once cardhouse is imported, whether Gymnasium is
# imported before or after (Gymnasium itself is not imported here).
from cardhouse import _gym_ids  # noqa: E402

_gym_ids.install()


def __getattr__(name: str) -> Any:
    """Imports the submodules on first use (``cardhouse.cribbage.score_hand(...)``,
    ``cardhouse.pettingzoo.env(...)``)."""
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"cardhouse.{name}")
    raise AttributeError(f"module 'cardhouse' has no attribute {name!r}")
