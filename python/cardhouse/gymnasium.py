"""A Gymnasium single-agent environment for every cardhouse game (needs the ``gymnasium``
extra): you play one seat, a policy plays the others.

Every game has a Gymnasium id, ``cardhouse/<Name>-v0`` (e.g. ``cardhouse/Jass-v0``; see
``ENV_IDS``), with the game options as keyword arguments. ``import cardhouse`` registers them
(before or after ``import gymnasium``; Gymnasium 1.x has no plugin entry points)::

    import gymnasium
    import cardhouse

    env = gymnasium.make("cardhouse/Jass-v0", seat=0, scope="deal", wys="auto")
    observation, info = env.reset(seed=42)
    terminated = False
    while not terminated:
        legal = observation["action_mask"].nonzero()[0]
        observation, reward, terminated, truncated, info = env.step(int(legal[0]))

(``gymnasium.make("cardhouse.gymnasium:cardhouse/Jass-v0")`` imports cardhouse itself.)

Observations are dicts with ``"observation"`` (float32, the seat's ``State.observation``,
bounded per slice by ``Game.observation_layout()``) and ``"action_mask"`` (int8 over
``num_distinct_actions``). The reward of a step is the agent seat's share of
``State.rewards()`` over every transition until it acts again (its returns when the game
ends, 0 before; between ``Game.min_utility()`` and ``Game.max_utility()``). Chance events are
resolved with the environment's ``np_random``, so ``reset(seed=...)`` reproduces an episode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

import cardhouse
from cardhouse import _arguments, _gym_ids

__all__ = ["ENV_IDS", "CardhouseEnv", "Policy", "env_id", "random_policy"]

#: A policy for the other seats: given the state (a seat other than the agent's is to act)
#: and the environment's generator, returns a legal action id.
Policy = Callable[[cardhouse.State, np.random.Generator], int]


def random_policy(state: cardhouse.State, rng: np.random.Generator) -> int:
    """Uniformly random among ``state.legal_actions()``."""
    legal = state.legal_actions()
    return legal[int(rng.integers(len(legal)))]


_ILLEGAL_MODES = ("terminate", "raise", "random")


class CardhouseEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One seat of a cardhouse game as a Gymnasium environment.

    Args:
        name: a registered game name (``cardhouse.list_games()``).
        seat: the agent's seat.
        opponent: the policy of the other seats (``random_policy`` by default).
        illegal_action: what an illegal action does: ``"terminate"`` (default; the episode
            ends with ``illegal_reward`` and ``info["illegal_action"] = True``, the game state
            is unchanged), ``"raise"`` (``cardhouse.IllegalActionError``) or ``"random"`` (a
            uniformly random legal action is played instead, and
            ``info["illegal_action"] = True``).
        illegal_reward: the reward of an illegal action under ``"terminate"``; by default
            the game's minimum return (``Game.min_utility()``), so that an illegal move is
            never better than any way of finishing the game.
        render_mode: None, ``"ansi"`` (``render()`` returns the agent seat's
            ``State.observation_string``: only what that seat knows) or ``"human"`` (the
            same text is printed at every reset and step).
        **options: game options, as for ``cardhouse.new_game``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        name: str,
        seat: int = 0,
        opponent: Policy | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.game: cardhouse.Game = cardhouse.new_game(name, **options)
        seat = _arguments.seat(seat, self.game.num_players)
        if illegal_action not in _ILLEGAL_MODES:
            raise ValueError(
                f"illegal_action must be one of {', '.join(_ILLEGAL_MODES)}, got {illegal_action!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}"
            )
        self.seat = seat
        self.opponent: Policy = opponent if opponent is not None else random_policy
        self.illegal_action = illegal_action
        self.illegal_reward = (
            self.game.min_utility()
            if illegal_reward is None
            else _arguments.finite("illegal_reward", illegal_reward)
        )
        self.render_mode = render_mode
        n = self.game.num_distinct_actions
        self.observation_space = gymnasium.spaces.Dict(
            {
                "observation": observation_box(self.game),
                "action_mask": gymnasium.spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
            }
        )
        self.action_space = gymnasium.spaces.Discrete(n)
        self.game_state: cardhouse.State = self.game.new_initial_state()

    def _observation(self) -> dict[str, np.ndarray]:
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        if self.game_state.current_player == self.seat:
            mask[self.game_state.legal_actions()] = 1
        return {"observation": self.game_state.observation(self.seat), "action_mask": mask}

    def _advance(self) -> float:
        """Resolves chance and plays the other seats until the agent acts or the game ends;
        returns the agent's rewards collected on the way."""
        players: list[Policy | None] = [self.opponent] * self.game.num_players
        players[self.seat] = None
        if self.game_state.play_until(players, self.np_random) == 0:
            return 0.0
        # Rewards come at the end (State.rewards is 0 before): the last step's are the ones.
        return float(self.game_state.rewards()[self.seat])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Starts and deals a new game, plays the other seats up to the agent's first turn."""
        super().reset(seed=_arguments.seed(seed))
        self.game_state = self.game.new_initial_state()
        self._advance()
        if self.render_mode == "human":
            self.render()
        return self._observation(), {}

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Plays ``action`` for the agent, then the other seats until the agent's next turn
        or the end of the game."""
        if self.game_state.current_player != self.seat:
            raise cardhouse.IllegalActionError(
                "the episode is over; call reset()"
                if self.game_state.is_terminal()
                else "the agent is not to act; call reset()"
            )
        info: dict[str, Any] = {}
        a = _arguments.action_id(action)
        if a not in self.game_state.legal_actions():
            if self.illegal_action == "raise":
                self.game_state.apply(a)  # raises IllegalActionError with the engine's reason
            info["illegal_action"] = True
            if self.illegal_action == "terminate":
                return self._observation(), self.illegal_reward, True, False, info
            a = random_policy(self.game_state, self.np_random)
        self.game_state.apply(a)
        reward = self.game_state.rewards()[self.seat]
        reward += self._advance()
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), self.game_state.is_terminal(), False, info

    def render(self) -> str | None:  # type: ignore[override, unused-ignore]
        """What the agent's seat knows, as text (``State.observation_string``): returned
        with ``render_mode="ansi"``, printed with ``"human"``; None without a render mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; returning None")
            return None
        text = self.game_state.observation_string(self.seat)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text


def observation_box(game: cardhouse.Game) -> gymnasium.spaces.Box:
    """The Box of ``game``'s observations, with each slice's bounds from
    ``Game.observation_layout()``."""
    shape = tuple(game.observation_shape)
    low = np.empty(shape, dtype=np.float32).reshape(-1)
    high = np.empty_like(low)
    for part in game.observation_layout():
        size = int(np.prod(part["shape"]))
        low[part["offset"] : part["offset"] + size] = part["low"]
        high[part["offset"] : part["offset"] + size] = part["high"]
    return gymnasium.spaces.Box(
        low=low.reshape(shape), high=high.reshape(shape), dtype=np.float32
    )


def env_id(name: str) -> str:
    """The Gymnasium id of a game: ``"jass"`` → ``"cardhouse/Jass-v0"``."""
    return _gym_ids.env_id(name)


#: Gymnasium id of every registered game, by game name.
ENV_IDS: dict[str, str] = {name: env_id(name) for name in cardhouse.list_games()}

_gym_ids.register(gymnasium)
