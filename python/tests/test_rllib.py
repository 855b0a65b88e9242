"""cardhouse.rllib: the RLlib MultiAgentEnv of every game passes RLlib's environment checker,
observes only the acting seat, delivers every seat's rewards, reproduces from a seed, rejects
bad input precisely, and trains: one PPO iteration with action masking on two CPUs.

Ray and torch are not optional here: scripts/test-all.sh installs them, and these tests must
run (never skip) in CI.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import ray
from helpers import DEAL_CONFIGS
from ray.rllib.utils.pre_checks.env import check_multiagent_environments
from ray.tune.registry import ENV_CREATOR, _global_registry

import cardhouse
import cardhouse.rllib as crl

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"


@pytest.fixture(scope="module")
def ray_two_cpus() -> Iterator[None]:
    if ray.is_initialized():  # left running by another test module
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    crl.register_envs()  # a new Ray instance: register again
    yield
    ray.shutdown()


def side_bots(name: str, kind: str = "heuristic", **options: Any) -> dict[int, str]:
    """Bots on every seat but those of side 0."""
    n = cardhouse.new_game(name, **options).num_players
    sides = 2 if n == 4 else n
    return {s: kind for s in range(n) if s % sides != 0}


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS + [("jass", {"target_score": 300})])
@pytest.mark.parametrize("with_bots", [False, True], ids=["self-play", "bots"])
def test_rllib_env_checker(name: str, options: dict[str, Any], with_bots: bool) -> None:
    config: dict[str, Any] = {"game": name, **options}
    if with_bots:
        config["bots"] = side_bots(name, **options)
    for mode in ("terminate", "random"):
        env = crl.CardhouseMultiAgentEnv({**config, "illegal_action": mode})
        check_multiagent_environments(env)


def play(env: crl.CardhouseMultiAgentEnv, seed: int, pick_seed: int = 0) -> dict[str, Any]:
    """One episode with random legal actions; checks every step against the engine."""
    pick = np.random.default_rng(pick_seed)
    obs, infos = env.reset(seed=seed)
    actions: list[int] = []
    totals: dict[str, float] = {}
    seen: set[str] = set()
    while True:
        state = env.game_state
        # Only the acting seat is observed, with its own observation and legal mask.
        assert len(obs) == 1 and set(infos) <= set(obs)
        (agent, o), = obs.items()
        seat = state.current_player
        assert agent == crl.agent_id(seat) and seat in env.learning_seats
        np.testing.assert_array_equal(o["observations"], state.observation(seat))
        np.testing.assert_array_equal(np.flatnonzero(o["action_mask"]), state.legal_actions())
        assert env.get_observation_space(agent).contains(o)
        seen.add(agent)
        legal = np.flatnonzero(o["action_mask"])
        action = int(legal[pick.integers(len(legal))])
        actions.append(action)
        obs, rewards, terms, truncs, infos = env.step({agent: np.int64(action)})
        assert set(rewards) <= seen | set(obs)
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        assert truncs == {"__all__": False}
        if terms["__all__"]:
            break
        assert terms == {"__all__": False}
    # The end: every agent observed, each with its own final observation, no mask.
    assert set(obs) == set(env.possible_agents) == set(terms) - {"__all__"}
    for a, o in obs.items():
        np.testing.assert_array_equal(o["observations"], state.observation(env._seat[a]))
        assert not o["action_mask"].any()
    returns = env.game_state.returns()
    for a in env.possible_agents:
        assert totals.get(a, 0.0) == pytest.approx(returns[env._seat[a]] * env.reward_scale)
        assert infos[a]["returns"] == returns
    return {
        "actions": actions,
        "history": env.game_state.history(),
        "infos": infos,
        "totals": totals,
    }


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_episodes_follow_the_engine(name: str, options: dict[str, Any]) -> None:
    selfplay = crl.CardhouseMultiAgentEnv({"game": name, **options})
    bots = crl.CardhouseMultiAgentEnv(
        {"game": name, **options, "bots": side_bots(name, **options)}
    )
    for seed in range(3):
        play(selfplay, seed)
        out = play(bots, seed)
        assert out["infos"][bots.possible_agents[0]]["win"] in (0.0, 0.5, 1.0)


def test_rewards_of_a_whole_match_are_delivered() -> None:
    # Match scope: many deals; every seat's rewards reach it at its next step or at the end.
    env = crl.CardhouseMultiAgentEnv({"game": "klaberjass", "target_score": 301})
    play(env, 5)
    env = crl.CardhouseMultiAgentEnv({"game": "jass", "target_score": 300, "bots": {1: "random"}})
    play(env, 6)


def test_reward_scale() -> None:
    config = {"game": "jass", "scope": "deal", "bots": {1: "random", 3: "random"}}
    plain = play(crl.CardhouseMultiAgentEnv(config), 4)
    scaled = play(crl.CardhouseMultiAgentEnv({**config, "reward_scale": 0.01}), 4)
    assert plain["history"] == scaled["history"]
    assert scaled["totals"]["player_0"] == pytest.approx(plain["totals"]["player_0"] * 0.01)
    assert plain["totals"]["player_0"] != 0


def test_seed_reproduces_episodes() -> None:
    config = {"game": "jass", "scope": "deal", "bots": {1: "heuristic", 3: "ismcts:20"}}
    a = crl.CardhouseMultiAgentEnv(config)
    b = crl.CardhouseMultiAgentEnv(config)
    first = [play(a, 11)["history"], play(a, None)["history"]]  # type: ignore[arg-type]
    second = [play(b, 11)["history"], play(b, None)["history"]]  # type: ignore[arg-type]
    assert first == second
    assert play(a, 12)["history"] != first[0]


def test_spaces_follow_rllib_action_masking_convention() -> None:
    env = crl.CardhouseMultiAgentEnv({"game": "cribbage", "players": 3, "scope": "deal"})
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    space = env.get_observation_space("player_1")
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["observations"].shape == tuple(env.game.observation_shape)
    assert space["action_mask"].dtype == np.float32
    assert env.get_action_space("player_1").n == env.game.num_distinct_actions


def test_illegal_actions() -> None:
    config = {"game": "jass", "scope": "deal"}
    env = crl.CardhouseMultiAgentEnv(config)
    obs, _ = env.reset(seed=1)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    before = env.game_state.to_bytes()
    obs, rewards, terms, _, infos = env.step({agent: illegal})
    assert terms["__all__"] and rewards[agent] == -1.0 and infos[agent]["illegal_action"]
    assert set(obs) == set(env.possible_agents)
    assert not any(o["action_mask"].any() for o in obs.values())  # the episode is over
    assert env.game_state.to_bytes() == before
    assert all(r == 0.0 for a, r in rewards.items() if a != agent)
    with pytest.raises(cardhouse.IllegalActionError, match="episode is over"):
        env.step({agent: 0})

    env = crl.CardhouseMultiAgentEnv({**config, "illegal_action": "raise"})
    obs, _ = env.reset(seed=1)
    with pytest.raises(cardhouse.IllegalActionError):
        env.step({agent: illegal})
    assert env.game_state.to_bytes() == before

    env = crl.CardhouseMultiAgentEnv({**config, "illegal_action": "random", "illegal_reward": -5})
    obs, _ = env.reset(seed=1)
    env.step({agent: illegal})
    assert env.game_state.move_number() > 0 and not env.game_state.is_terminal()


def test_bad_step_input() -> None:
    env = crl.CardhouseMultiAgentEnv({"game": "jass", "scope": "deal"})
    with pytest.raises(cardhouse.IllegalActionError, match="call reset"):
        env.step({"player_0": 0})
    obs, _ = env.reset(seed=1)
    (agent, o), = obs.items()
    other = next(a for a in env.possible_agents if a != agent)
    legal = int(np.flatnonzero(o["action_mask"])[0])
    with pytest.raises(ValueError, match=f"{agent} is to act"):
        env.step({other: legal})
    with pytest.raises(ValueError, match=f"{agent} is to act"):
        env.step({agent: legal, other: legal})
    with pytest.raises(cardhouse.IllegalActionError, match="one integer action id"):
        env.step({agent: 1.5})
    with pytest.raises(cardhouse.IllegalActionError, match="one integer action id"):
        env.step({agent: np.array([legal, legal])})


@pytest.mark.parametrize(
    ("config", "error", "match"),
    [
        ({}, cardhouse.InvalidOptionError, "'game'=None: give a game name"),
        ({"game": "poker"}, cardhouse.UnknownGameError, "poker"),
        ({"game": "jass", "colour": 1}, cardhouse.InvalidOptionError, "colour"),
        ({"game": "jass", "bots": {4: "random"}}, cardhouse.InvalidSeatError, "seats 0 to 3"),
        ({"game": "jass", "bots": {"player_9": "random"}}, cardhouse.InvalidSeatError, "player_9"),
        ({"game": "jass", "bots": {1: "genius"}}, cardhouse.InvalidOptionError, "genius"),
        ({"game": "jass", "bots": {1: 3}}, cardhouse.InvalidOptionError, "not a bot name"),
        ({"game": "jass", "bots": ["random"]}, cardhouse.InvalidOptionError, "give a dict"),
        (
            {"game": "klaberjass", "bots": {0: "random", 1: "random"}},
            cardhouse.InvalidOptionError,
            "at least one seat",
        ),
        ({"game": "jass", "illegal_action": "ignore"}, cardhouse.InvalidOptionError, "terminate"),
        ({"game": "jass", "illegal_reward": "low"}, cardhouse.InvalidOptionError, "a number"),
        ({"game": "jass", "reward_scale": 0}, cardhouse.InvalidOptionError, "positive number"),
    ],
)
def test_bad_config(config: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        crl.CardhouseMultiAgentEnv(config)


def test_bot_seats_by_agent_id() -> None:
    env = crl.CardhouseMultiAgentEnv({"game": "jass", "bots": {"player_1": "random", "3": "random"}})
    assert env.possible_agents == ["player_0", "player_2"]


def test_registered_for_every_game() -> None:
    assert crl.register_envs() == [f"cardhouse/{g}" for g in cardhouse.list_games()]
    for game in cardhouse.list_games():
        creator = _global_registry.get(ENV_CREATOR, crl.env_name(game))
        env = creator({"scope": "deal"})
        assert isinstance(env, crl.CardhouseMultiAgentEnv) and env.game.name == game
    creator = _global_registry.get(ENV_CREATOR, "cardhouse/jass")
    with pytest.raises(cardhouse.InvalidOptionError, match="'cribbage' with the env 'cardhouse/jass'"):
        creator({"game": "cribbage"})


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("rllib_ppo", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_ppo_iteration_on_two_cpus(ray_two_cpus: None) -> None:
    """The example itself, tiny: one env runner and the learner on the two CPUs."""
    example = load_example()
    rows = example.main(
        ["--game", "jass", "--opponent", "heuristic", "--iterations", "1", "--env-runners", "1",
         "--batch", "128", "--minibatch", "64", "--epochs", "1", "--hidden", "32"]
    )
    assert len(rows) == 1
    assert rows[0]["env_steps"] >= 128
    assert rows[0]["episodes"] >= 1
    assert 0.0 <= rows[0]["win_rate"] <= 1.0
    assert rows[0]["illegal_rate"] == 0.0  # the module masks illegal actions
