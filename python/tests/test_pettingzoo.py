"""The PettingZoo AEC environment passes PettingZoo's own API test, for every game."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import DEAL_CONFIGS

import cardhouse

pytest.importorskip("pettingzoo")
import cardhouse.pettingzoo  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS + [("jass", {"target_score": 300})])
def test_api_test(name: str, options: dict[str, Any]) -> None:
    api_test(cardhouse.pettingzoo.env(name, **options), num_cycles=300)


def play(env: Any, seed: int) -> tuple[list[int], dict[str, float]]:
    env.reset(seed=seed)
    actions: list[int] = []
    totals: dict[str, float] = {}
    pick = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[pick.integers(len(legal))])
        actions.append(action)
        env.step(action)
    return actions, totals


def test_seed_reproduces_and_rewards_are_returns() -> None:
    env = cardhouse.pettingzoo.env("jass", scope="deal", wys="auto")
    a, totals = play(env, 3)
    b, _ = play(env, 3)
    c, _ = play(env, 4)
    assert a == b and a != c
    assert abs(sum(totals.values())) < 1e-9
    assert any(v != 0 for v in totals.values())


def test_observation_dict_and_mask() -> None:
    env = cardhouse.pettingzoo.raw_env("jass", scope="deal")
    env.reset(seed=1)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert set(obs) == {"observation", "action_mask"}
    assert obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(
        np.flatnonzero(obs["action_mask"]), env.game_state.legal_actions()
    )
    other = next(a for a in env.agents if a != agent)
    assert not env.observe(other)["action_mask"].any()
    assert env.observation_space(agent).contains(obs)


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = cardhouse.pettingzoo.raw_env("jass", scope="deal")
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    before = env.game_state.to_bytes()
    with pytest.raises(cardhouse.IllegalActionError):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    assert env.game_state.to_bytes() == before


def test_render_ansi() -> None:
    env = cardhouse.pettingzoo.raw_env("jass", render_mode="ansi", scope="deal")
    env.reset(seed=0)
    assert "seat 0" in (env.render() or "")
    with pytest.raises(ValueError):
        cardhouse.pettingzoo.raw_env("jass", render_mode="human")


def test_lazy_attribute() -> None:
    assert cardhouse.pettingzoo.env is not None
