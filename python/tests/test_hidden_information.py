"""No hidden information in what a seat sees (mirrors the engine's leak tests): states that
differ only in cards a seat cannot see, made by ``resample`` keeping that seat's knowledge,
must give that seat identical observations and views."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import DEAL_CONFIGS, random_midgame_states

import cardhouse


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_observation_and_view_ignore_hidden_cards(name: str, options: dict[str, Any]) -> None:
    varied = 0
    for state in random_midgame_states(name, options, seed=21, count=25):
        for seat in range(state.game.num_players):
            obs = state.observation(seat)
            view = state.view(seat)
            text = state.observation_string(seat)
            for k in range(3):
                other = state.resample(seat, 1000 * seat + k)
                np.testing.assert_array_equal(other.observation(seat), obs)
                assert other.view(seat) == view
                assert other.observation_string(seat) == text
                assert other.view() == state.view(), "spectator view is public"
                if other.view(omniscient=True) != state.view(omniscient=True):
                    varied += 1
    assert varied > 0, "the test must actually vary hidden cards"


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_other_seats_see_the_difference(name: str, options: dict[str, Any]) -> None:
    """The resampled states really differ for some other seat (the test has teeth)."""
    differs = False
    for state in random_midgame_states(name, options, seed=5, count=5):
        other = state.resample(0, 7)
        for seat in range(1, state.game.num_players):
            if not np.array_equal(other.observation(seat), state.observation(seat)):
                differs = True
    assert differs


def test_initial_observation_shows_only_own_hand() -> None:
    game = cardhouse.new_game("jass", scope="deal")
    a, b = game.new_initial_state(), game.new_initial_state()
    a.resolve_chance(1)
    b.resolve_chance(2)
    seat = a.current_player
    same_hand = a.resample(seat, 3)
    np.testing.assert_array_equal(same_hand.observation(seat), a.observation(seat))
    assert not np.array_equal(a.observation(seat), b.observation(seat))
