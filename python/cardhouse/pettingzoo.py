"""A PettingZoo AEC environment for every cardhouse game (needs the ``pettingzoo`` extra).

::

    import cardhouse.pettingzoo

    env = cardhouse.pettingzoo.env("jass", scope="deal", wys="auto")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
        env.step(action)

Agents are ``"player_0"`` … ``"player_{n-1}"`` (the seats). Each observation is a dict with
``"observation"`` (float32, the seat's ``State.observation``) and ``"action_mask"`` (int8, all
zeros unless the agent is the one to act). Chance events (deals) are resolved inside with a
generator seeded by ``reset(seed=...)``. Rewards are the engine's ``State.rewards()``: zero
until the game ends, then every seat's returns. An illegal action raises
``cardhouse.IllegalActionError`` and leaves the game unchanged.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]

import cardhouse
from cardhouse import _arguments

__all__ = ["CardhouseAECEnv", "env", "raw_env"]


def _agent(seat: int) -> str:
    return f"player_{seat}"


class CardhouseAECEnv(AECEnv[str, dict[str, np.ndarray], int]):  # type: ignore[misc]
    """The AEC environment of one cardhouse game with fixed options.

    Args:
        name: a registered game name (``cardhouse.list_games()``).
        render_mode: None, or ``"ansi"`` (``render()`` returns the omniscient state text).
        **options: game options, as for ``cardhouse.new_game``.
    """

    metadata: dict[str, Any] = {
        "name": "cardhouse_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, name: str, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        self.game: cardhouse.Game = cardhouse.new_game(name, **options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"cardhouse_{name}_v0")
        self.possible_agents = [_agent(s) for s in range(self.game.num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        n = self.game.num_distinct_actions
        from cardhouse.gymnasium import observation_box

        self._observation_space = gymnasium.spaces.Dict(
            {
                "observation": observation_box(self.game),
                "action_mask": gymnasium.spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
            }
        )
        self._action_space: gymnasium.spaces.Space[Any] = gymnasium.spaces.Discrete(n)
        self._np_random, _ = seeding.np_random(None)
        self.game_state: cardhouse.State = self.game.new_initial_state()
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The observation space of ``agent`` (the same for every agent)."""
        return self._observation_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The action space of ``agent``: ``Discrete(num_distinct_actions)``."""
        return self._action_space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent``'s seat knows, and its legal-action mask (zeros if not to act)."""
        seat = self._seat[agent]
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        if self.game_state.current_player == seat:
            mask[self.game_state.legal_actions()] = 1
        return {"observation": self.game_state.observation(seat), "action_mask": mask}

    def _resolve_chance(self) -> None:
        # Every seat is an agent: only chance is played.
        self.game_state.play_until([None] * self.game.num_players, self._np_random)

    def _select(self) -> None:
        player = self.game_state.current_player
        if player >= 0:
            self.agent_selection = _agent(player)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts a new game and deals it; ``seed`` makes the deals reproducible."""
        seed = _arguments.seed(seed)
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.game_state = self.game.new_initial_state()
        self._resolve_chance()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._select()

    def step(self, action: int | None) -> None:
        """Applies ``action`` for ``agent_selection`` (None for an agent that is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise cardhouse.IllegalActionError(
                f"{agent} is to act and must give an action id, not None"
            )
        self.game_state.apply(_arguments.action_id(action))
        self._cumulative_rewards[agent] = 0.0
        self._resolve_chance()
        rewards = self.game_state.rewards()
        self.rewards = {a: float(rewards[self._seat[a]]) for a in self.agents}
        if self.game_state.is_terminal():
            self.terminations = {a: True for a in self.agents}
        self._accumulate_rewards()
        self._select()

    def render(self) -> str | None:
        """The omniscient text of the state (``render_mode="ansi"``), else None."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; returning None")
            return None
        return str(self.game_state)

    def close(self) -> None:
        """Nothing to release."""


def raw_env(name: str, render_mode: str | None = None, **options: Any) -> CardhouseAECEnv:
    """The unwrapped AEC environment of a game (see :class:`CardhouseAECEnv`)."""
    return CardhouseAECEnv(name, render_mode=render_mode, **options)


def env(name: str, render_mode: str | None = None, **options: Any) -> AECEnv[str, Any, Any]:
    """The AEC environment of a game, wrapped in PettingZoo's ``OrderEnforcingWrapper``
    (which checks that ``reset`` is called first).

    Args:
        name: a registered game name, e.g. ``"jass"``.
        render_mode: None or ``"ansi"``.
        **options: game options, e.g. ``scope="deal"``.
    """
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

    return wrappers.OrderEnforcingWrapper(raw_env(name, render_mode=render_mode, **options))
