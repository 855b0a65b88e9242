"""The Gymnasium single-agent environment passes Gymnasium's env checker, for every game."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import DEAL_CONFIGS

import cardhouse

pytest.importorskip("gymnasium")
import cardhouse.gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402


@pytest.mark.parametrize("illegal_action", ["terminate", "random"])
@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_check_env(name: str, options: dict[str, Any], illegal_action: str) -> None:
    game = cardhouse.new_game(name, **options)
    for seat in range(game.num_players):
        env = cardhouse.gymnasium.CardhouseEnv(
            name, seat=seat, illegal_action=illegal_action, **options
        )
        check_env(env, skip_render_check=True)


def episode(env: cardhouse.gymnasium.CardhouseEnv, seed: int) -> tuple[list[int], float]:
    obs, _ = env.reset(seed=seed)
    actions, total, done = [], 0.0, False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        actions.append(int(legal[0]))
        obs, reward, done, truncated, _ = env.step(actions[-1])
        assert not truncated
        total += reward
    return actions, total


def test_episode_reward_is_the_seat_return() -> None:
    env = cardhouse.gymnasium.CardhouseEnv("jass", seat=2, scope="deal", wys="auto")
    actions, total = episode(env, 5)
    assert env.game_state.is_terminal()
    assert total == env.game_state.returns()[2]
    assert episode(env, 5) == (actions, total)


def test_custom_opponent_is_used() -> None:
    calls: list[int] = []

    def first_legal(state: cardhouse.State, rng: np.random.Generator) -> int:
        calls.append(state.current_player)
        return state.legal_actions()[0]

    env = cardhouse.gymnasium.CardhouseEnv("jass", seat=0, opponent=first_legal, scope="deal")
    episode(env, 1)
    assert calls and 0 not in calls


def test_illegal_action_modes() -> None:
    env = cardhouse.gymnasium.CardhouseEnv("jass", scope="deal", illegal_action="raise")
    obs, _ = env.reset(seed=0)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(cardhouse.IllegalActionError):
        env.step(bad)
    env = cardhouse.gymnasium.CardhouseEnv("jass", scope="deal", illegal_reward=-5.0)
    env.reset(seed=0)
    before = env.game_state.to_bytes()
    _, reward, terminated, _, info = env.step(bad)
    assert (reward, terminated, info) == (-5.0, True, {"illegal_action": True})
    assert env.game_state.to_bytes() == before
    env = cardhouse.gymnasium.CardhouseEnv("jass", scope="deal", illegal_action="random")
    env.reset(seed=0)
    _, _, _, _, info = env.step(bad)
    assert info == {"illegal_action": True}
    with pytest.raises(ValueError, match="illegal_action"):
        cardhouse.gymnasium.CardhouseEnv("jass", illegal_action="ignore")
    with pytest.raises(cardhouse.InvalidSeatError):
        cardhouse.gymnasium.CardhouseEnv("jass", seat=4)
