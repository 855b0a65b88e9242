"""Ray RLlib environments for every cardhouse game (needs the ``rllib`` extra:
``pip install "cardhouse[rllib]"``, which brings ``ray[rllib]`` and ``torch``).

::

    import cardhouse.rllib                      # registers "cardhouse/<game>" for every game
    from ray.rllib.algorithms.ppo import PPOConfig

    config = (
        PPOConfig()
        .environment("cardhouse/jass", env_config={"scope": "deal", "bots": {1: "heuristic", 3: "heuristic"}})
        .multi_agent(policies={"learned"}, policy_mapping_fn=lambda agent, episode, **kw: "learned")
        .rl_module(rl_module_spec=cardhouse.rllib.masked_module_spec(["learned"]))
    )

:class:`CardhouseMultiAgentEnv` is an RLlib ``MultiAgentEnv`` (the current API stack). The env
config holds the game options, plus these keys of its own:

* ``"game"``: the game's name (given by the registered name ``cardhouse/<game>``).
* ``"bots"``: seats played inside the environment by a fixed engine bot, as
  ``{seat: "random" | "heuristic" | "ismcts" | "ismcts:N"}``; the other seats are the agents
  ``"player_<seat>"`` that RLlib controls (default: every seat is an agent, for self-play).
* ``"illegal_action"``: ``"terminate"`` (default: the episode ends, the agent gets
  ``"illegal_reward"``, ``info["illegal_action"]`` is True, the state is unchanged),
  ``"raise"`` (``cardhouse.IllegalActionError``) or ``"random"`` (a uniformly random legal
  action is played instead). With an action-masking module no illegal action is chosen;
  RLlib's environment checker sends one unmasked random action when an env runner starts.
* ``"illegal_reward"``: the reward of an illegal action under ``"terminate"`` (default -1).
* ``"reward_scale"``: every reward is multiplied by it (default 1; game points are large for
  a value network: Jass deals are worth about 157, so PPO learns better with 0.01).

Observations follow RLlib's action-masking convention: ``{"observations": float32 array
(State.observation of the seat), "action_mask": float32 0/1 array over the actions}``. Each
step observes only the agent to act (what its seat knows, never another seat's cards); when the
game ends, every agent gets its final observation. Every seat's reward (the engine's
``State.rewards()``, for the built-in games its returns at the end) is summed from its last
observation on and delivered with its next observation, or at the end. Chance events and the
bots' choices come from the environment's generator, so ``reset(seed=...)`` reproduces the
episodes that follow it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import gymnasium
import numpy as np
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.framework import try_import_torch
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.tune.registry import register_env

import cardhouse
from cardhouse._core import _make_bot

__all__ = [
    "ILLEGAL_RATE_METRIC",
    "WIN_RATE_METRIC",
    "CardhouseMultiAgentEnv",
    "MaskedPPOTorchRLModule",
    "WinRateCallback",
    "agent_id",
    "env_name",
    "masked_module_spec",
    "register_envs",
]

torch, _ = try_import_torch()

#: What ``step`` returns: observations, rewards, terminateds, truncateds, infos by agent id.
_StepResult = tuple[
    dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]
]

_ILLEGAL_MODES = ("terminate", "raise", "random")
#: The metric :class:`WinRateCallback` logs (mean over the episodes of an iteration).
WIN_RATE_METRIC = "cardhouse_win_rate"
#: The share of episodes ended by an illegal action, logged by :class:`WinRateCallback`.
ILLEGAL_RATE_METRIC = "cardhouse_illegal_rate"


def agent_id(seat: int) -> str:
    """The agent id of a seat: ``"player_<seat>"`` (as in :mod:`cardhouse.pettingzoo`)."""
    return f"player_{seat}"


def env_name(game: str) -> str:
    """The name a game is registered under with ``ray.tune.register_env``: ``cardhouse/<game>``."""
    return f"cardhouse/{game}"


class CardhouseMultiAgentEnv(MultiAgentEnv):
    """One cardhouse game as an RLlib ``MultiAgentEnv``; see the module docs.

    Args:
        config: the env config (RLlib's ``EnvContext`` or a plain dict): ``"game"``, the
            game options, and optionally ``"bots"``, ``"illegal_action"``,
            ``"illegal_reward"``.

    Raises:
        InvalidOptionError: no or an unknown game, a bad option, bot or mode.
        InvalidSeatError: a bot seat that does not exist.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        config = dict(config or {})
        name = config.pop("game", None)
        if not isinstance(name, str):
            raise cardhouse.InvalidOptionError(
                f"env config 'game'={name!r}: give a game name "
                f"({', '.join(cardhouse.list_games())}), or use the registered env "
                "'cardhouse/<game>'"
            )
        bots = config.pop("bots", None) or {}
        illegal_action = config.pop("illegal_action", "terminate")
        illegal_reward = config.pop("illegal_reward", -1.0)
        reward_scale = config.pop("reward_scale", 1.0)
        self.game: cardhouse.Game = cardhouse.new_game(name, **config)
        if illegal_action not in _ILLEGAL_MODES:
            raise cardhouse.InvalidOptionError(
                f"env config 'illegal_action'={illegal_action!r}: allowed "
                f"{', '.join(_ILLEGAL_MODES)}"
            )
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)):
            raise cardhouse.InvalidOptionError(
                f"env config 'illegal_reward'={illegal_reward!r}: give a number"
            )
        if (
            isinstance(reward_scale, bool)
            or not isinstance(reward_scale, (int, float))
            or not 0 < reward_scale < float("inf")
        ):
            raise cardhouse.InvalidOptionError(
                f"env config 'reward_scale'={reward_scale!r}: give a positive number"
            )
        self.reward_scale = float(reward_scale)
        self.illegal_action: str = illegal_action
        self.illegal_reward = float(illegal_reward)
        n = self.game.num_players
        self.bot_kinds: dict[int, str] = _bot_seats(bots, n)
        for seat, kind in self.bot_kinds.items():
            _make_bot(kind, self.game, 0)  # checks the bot name now, not at the first reset
        self.learning_seats: tuple[int, ...] = tuple(
            s for s in range(n) if s not in self.bot_kinds
        )
        if not self.learning_seats:
            raise cardhouse.InvalidOptionError(
                f"env config 'bots' covers every seat of {name}: leave at least one seat "
                "to the agents"
            )
        self.possible_agents = [agent_id(s) for s in self.learning_seats]
        self.agents = list(self.possible_agents)
        self._seat = {agent_id(s): s for s in self.learning_seats}
        actions = self.game.num_distinct_actions
        f32 = np.finfo(np.float32)
        space = gymnasium.spaces.Dict(
            {
                "observations": gymnasium.spaces.Box(
                    low=f32.min,
                    high=f32.max,
                    shape=tuple(self.game.observation_shape),
                    dtype=np.float32,
                ),
                "action_mask": gymnasium.spaces.Box(
                    low=0.0, high=1.0, shape=(actions,), dtype=np.float32
                ),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(actions) for a in self.possible_agents
        }
        self.game_state: cardhouse.State = self.game.new_initial_state()
        self._bots: dict[int, Any] = {}
        self._pending = [0.0] * n
        self._observed: set[int] = set()
        # Per seat, an info (an illegal action replaced) waiting for the seat's next step.
        self._infos: dict[int, dict[str, Any]] = {}
        self._started = False
        self._done = True

    def _observation(self, seat: int) -> dict[str, np.ndarray]:
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.float32)
        if not self._done and self.game_state.current_player == seat:
            mask[self.game_state.legal_actions()] = 1.0
        return {"observations": self.game_state.observation(seat), "action_mask": mask}

    def _collect_rewards(self) -> None:
        for seat, r in enumerate(self.game_state.rewards()):
            self._pending[seat] += r * self.reward_scale

    def _advance(self) -> None:
        """Resolves chance and plays the bots' seats until an agent acts or the game ends."""
        players = [self._bots.get(seat) for seat in range(self.game.num_players)]
        if self.game_state.play_until(players, self.np_random) > 0:
            # Rewards come at the end (State.rewards is 0 before): the last step's count.
            self._collect_rewards()

    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Starts and deals a new game and plays the bots up to the first agent's turn;
        returns that agent's observation only."""
        super().reset(seed=seed, options=options)
        self._bots = {
            seat: _make_bot(kind, self.game, int(self.np_random.integers(2**63)))
            for seat, kind in self.bot_kinds.items()
        }
        self.game_state = self.game.new_initial_state()
        self._pending = [0.0] * self.game.num_players
        self._observed = set()
        self._infos = {}
        self._started = True
        self._done = False
        self.agents = list(self.possible_agents)
        self._advance()
        if self.game_state.is_terminal():
            raise cardhouse.CardhouseError(
                f"the game ended before any agent acted (agents: {self.possible_agents})"
            )
        seat = self.game_state.current_player
        self._observed.add(seat)
        return {agent_id(seat): self._observation(seat)}, {agent_id(seat): {}}

    def step(  # type: ignore[override]
        self, action_dict: Mapping[str, Any]
    ) -> _StepResult:
        """Plays the acting agent's action, then the bots up to the next agent's turn.

        Raises:
            IllegalActionError: the episode is over, or an illegal action with
                ``illegal_action="raise"``.
            ValueError: ``action_dict`` is not ``{acting agent: action id}``.
        """
        state = self.game_state
        if self._done:
            raise cardhouse.IllegalActionError(
                "the episode is over; call reset()"
                if self._started
                else "no episode yet; call reset() before step()"
            )
        seat = state.current_player
        agent = agent_id(seat)
        if set(action_dict) != {agent}:
            raise ValueError(
                f"{agent} is to act: give {{{agent!r}: action id}}, got the agents "
                f"{sorted(map(str, action_dict))}"
            )
        action = _action_id(action_dict[agent])
        info: dict[str, Any] = {}
        legal = state.legal_actions()
        if action not in legal:
            if self.illegal_action == "raise":
                state.apply(action)  # raises IllegalActionError with the engine's reason
            info["illegal_action"] = True
            if self.illegal_action == "terminate":
                self._pending[seat] += self.illegal_reward
                self._infos[seat] = info
                return self._end()
            action = legal[int(self.np_random.integers(len(legal)))]
        state.apply(action)
        self._collect_rewards()
        self._advance()
        if info:
            self._infos[seat] = info
        if state.is_terminal():
            return self._end()
        nxt = state.current_player
        nxt_agent = agent_id(nxt)
        rewards: dict[str, float] = {}
        if nxt in self._observed:
            rewards[nxt_agent] = float(self._pending[nxt])
            self._pending[nxt] = 0.0
        self._observed.add(nxt)
        return (
            {nxt_agent: self._observation(nxt)},
            rewards,
            {"__all__": False},
            {"__all__": False},
            {nxt_agent: self._infos.pop(nxt, {})},
        )

    def _end(
        self,
    ) -> _StepResult:
        """The last step: every agent's final observation and its rewards not yet delivered."""
        self._done = True
        returns = self.game_state.returns() if self.game_state.is_terminal() else None
        outcome = self.outcome() if returns is not None else None
        obs: dict[str, Any] = {}
        rewards: dict[str, float] = {}
        infos: dict[str, Any] = {}
        for seat in self.learning_seats:
            a = agent_id(seat)
            obs[a] = self._observation(seat)
            rewards[a] = float(self._pending[seat])
            self._pending[seat] = 0.0
            info = self._infos.pop(seat, {})
            if returns is not None:
                info["returns"] = list(returns)
            if outcome is not None:
                info["win"] = outcome
            infos[a] = info
        done = {a: True for a in obs}
        return obs, rewards, {**done, "__all__": True}, {"__all__": False}, infos

    def outcome(self) -> float | None:
        """At the end of a game against bots: 1 if the agents won (the best return of an
        agent's seat is above every bot seat's), 0.5 on a tie, 0 otherwise. None if there are
        no bots, a side (partnership) has both agents and bots, or the game is not over."""
        if not self.bot_kinds or not self.game_state.is_terminal():
            return None
        n = self.game.num_players
        sides = 2 if n == 4 else n
        bot_sides = {s % sides for s in self.bot_kinds}
        if any(s % sides in bot_sides for s in self.learning_seats):
            return None
        returns = self.game_state.returns()
        ours = max(returns[s] for s in self.learning_seats)
        theirs = max(returns[s] for s in self.bot_kinds)
        return 1.0 if ours > theirs else 0.5 if ours == theirs else 0.0

    def render(self) -> str:  # type: ignore[override]
        """The omniscient text of the state (for debugging, never for an agent)."""
        return str(self.game_state)


def _bot_seats(bots: Any, players: int) -> dict[int, str]:
    if not isinstance(bots, Mapping):
        raise cardhouse.InvalidOptionError(
            f"env config 'bots'={bots!r}: give a dict {{seat: bot name}}, e.g. "
            "{1: 'heuristic', 3: 'heuristic'}"
        )
    out: dict[int, str] = {}
    for key, kind in bots.items():
        seat = key
        if isinstance(key, str) and key.startswith("player_") and key[7:].isdigit():
            seat = int(key[7:])
        elif isinstance(key, str) and key.isdigit():
            seat = int(key)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise cardhouse.InvalidSeatError(
                f"env config 'bots' seat {key!r}: this game has seats 0 to {players - 1}"
            )
        if not isinstance(kind, str):
            raise cardhouse.InvalidOptionError(
                f"env config 'bots' seat {seat}: {kind!r} is not a bot name "
                "(random, heuristic, ismcts or ismcts:N)"
            )
        out[seat] = kind
    return out


def _action_id(action: Any) -> int:
    value = np.asarray(action)
    if value.shape != () or not np.issubdtype(value.dtype, np.integer):
        raise cardhouse.IllegalActionError(
            f"action {action!r}: give one integer action id (Discrete action space)"
        )
    return int(value)


def register_envs() -> list[str]:
    """Registers ``cardhouse/<game>`` for every game with ``ray.tune.register_env`` (done on
    import of this module; call again after ``ray.shutdown()``/``ray.init()`` if needed).
    Returns the names."""
    names = []
    for game in cardhouse.list_games():
        name = env_name(game)
        register_env(name, _creator(game))
        names.append(name)
    return names


def _creator(game: str) -> Any:
    def create(config: Mapping[str, Any] | None) -> CardhouseMultiAgentEnv:
        config = dict(config or {})
        given = config.setdefault("game", game)
        if given != game:
            raise cardhouse.InvalidOptionError(
                f"env config 'game'={given!r} with the env {env_name(game)!r}: leave 'game' "
                "out, or use the env of that game"
            )
        return CardhouseMultiAgentEnv(config)

    return create


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module (torch) for observations ``{"observations": …,
    "action_mask": …}``: the networks read ``"observations"``, and the logits of the actions
    whose mask is 0 are pushed to the smallest float, so they are never sampled (the pattern
    of RLlib's ``ActionMaskingTorchRLModule`` example, on ``DefaultPPOTorchRLModule``)."""

    def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
        if not (
            isinstance(observation_space, gymnasium.spaces.Dict)
            and set(observation_space.spaces) == {"observations", "action_mask"}
        ):
            raise ValueError(
                "MaskedPPOTorchRLModule needs a Dict observation space with the keys "
                f"'observations' and 'action_mask', got {observation_space!r}"
            )
        self._space_with_mask = observation_space
        super().__init__(  # type: ignore[no-untyped-call]
            observation_space=observation_space["observations"], **kwargs
        )

    def setup(self) -> None:
        super().setup()  # type: ignore[no-untyped-call]
        # The networks are built for "observations"; the module takes the whole dict.
        self.observation_space = self._space_with_mask

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The mask and a shallow copy of ``batch`` whose observations are the tensors."""
        obs = batch[Columns.OBS]
        batch = dict(batch)
        if isinstance(obs, Mapping):
            batch[Columns.OBS] = obs["observations"]
            return obs["action_mask"], batch
        return batch["action_mask"], batch

    @staticmethod
    def _mask(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask), min=FLOAT_MIN
        )
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._mask(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None:
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


def masked_module_spec(
    policies: Iterable[str], model_config: dict[str, Any] | None = None
) -> MultiRLModuleSpec:
    """A ``MultiRLModuleSpec`` with a :class:`MaskedPPOTorchRLModule` for each of
    ``policies`` (``model_config``: RLlib's ``DefaultModelConfig`` keys, such as
    ``{"fcnet_hiddens": [256, 256]}``)."""
    return MultiRLModuleSpec(
        rl_module_specs={
            p: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config)
            for p in policies
        }
    )


class WinRateCallback(RLlibCallback):
    """Logs, under ``env_runners`` in each training result, the mean over the episodes that
    ended in the iteration of ``cardhouse_win_rate``: the agents' share of games won against
    the environment's bots (a tie counts half; games ended by an illegal action are left
    out), and ``cardhouse_illegal_rate``: the share of episodes ended by an illegal action
    (0 when the module masks them)."""

    def on_episode_end(
        self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any
    ) -> None:
        if metrics_logger is None:
            return
        infos = [i for i in episode.get_infos(-1).values() if isinstance(i, dict)]
        illegal = any(i.get("illegal_action") for i in infos)
        metrics_logger.log_value(ILLEGAL_RATE_METRIC, float(illegal), reduce="mean")
        wins = [i["win"] for i in infos if i.get("win") is not None]
        if wins:
            metrics_logger.log_value(WIN_RATE_METRIC, wins[0], reduce="mean")


register_envs()
