"""A Gymnasium single-agent environment for every cardhouse game (needs the ``gymnasium``
extra): you play one seat, a policy plays the others.

::

    import cardhouse.gymnasium

    env = cardhouse.gymnasium.CardhouseEnv("jass", seat=0, scope="deal", wys="auto")
    observation, info = env.reset(seed=42)
    terminated = False
    while not terminated:
        legal = observation["action_mask"].nonzero()[0]
        observation, reward, terminated, truncated, info = env.step(int(legal[0]))

Observations are dicts with ``"observation"`` (float32, the seat's ``State.observation``)
and ``"action_mask"`` (int8 over ``num_distinct_actions``). The reward of a step is the
agent seat's share of ``State.rewards()`` over every transition until it acts again (for the
built-in games: its returns when the game ends, 0 before). Chance events are resolved with
the environment's ``np_random``, so ``reset(seed=...)`` reproduces an episode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

import cardhouse

__all__ = ["CardhouseEnv", "Policy", "random_policy"]

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
        illegal_reward: the reward of an illegal action under ``"terminate"``.
        render_mode: None or ``"ansi"`` (``render()`` returns the omniscient state text).
        **options: game options, as for ``cardhouse.new_game``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        name: str,
        seat: int = 0,
        opponent: Policy | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.game: cardhouse.Game = cardhouse.new_game(name, **options)
        if not 0 <= seat < self.game.num_players:
            raise cardhouse.InvalidSeatError(
                f"seat {seat} does not exist; this game has seats 0 to {self.game.num_players - 1}"
            )
        if illegal_action not in _ILLEGAL_MODES:
            raise ValueError(
                f"illegal_action must be one of {', '.join(_ILLEGAL_MODES)}, got {illegal_action!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.seat = seat
        self.opponent: Policy = opponent if opponent is not None else random_policy
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        n = self.game.num_distinct_actions
        f32 = np.finfo(np.float32)
        self.observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(
                    low=f32.min,
                    high=f32.max,
                    shape=tuple(self.game.observation_shape),
                    dtype=np.float32,
                ),
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
        reward = 0.0
        while not self.game_state.is_terminal() and self.game_state.current_player != self.seat:
            if self.game_state.is_chance_node():
                self.game_state.resolve_chance(self.np_random)
            else:
                self.game_state.apply(self.opponent(self.game_state, self.np_random))
            reward += self.game_state.rewards()[self.seat]
        return reward

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Starts and deals a new game, plays the other seats up to the agent's first turn."""
        super().reset(seed=seed)
        self.game_state = self.game.new_initial_state()
        self._advance()
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
        a = int(action)
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
        return self._observation(), float(reward), self.game_state.is_terminal(), False, info

    def render(self) -> str | None:  # type: ignore[override, unused-ignore]
        """The omniscient text of the state (``render_mode="ansi"``), else None."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; returning None")
            return None
        return str(self.game_state)
