"""Games: the registry, options, sizes (mirrors engine/src/registry.rs and options.rs)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from helpers import GAME_CONFIGS

import cardhouse


def test_list_games_has_jass() -> None:
    games = cardhouse.list_games()
    assert "jass" in games
    assert all(isinstance(g, str) for g in games)


def test_every_game_is_on_every_python_surface() -> None:
    """A game the engine registers needs no Python code: each wrapper offers it."""
    import cardhouse.gymnasium
    import cardhouse.pettingzoo

    for name in cardhouse.list_games():
        game = cardhouse.new_game(name, scope="deal")
        assert name in cardhouse.gymnasium.ENV_IDS
        env = cardhouse.pettingzoo.env(name, scope="deal")
        env.reset(seed=1)
        assert len(env.agents) == game.num_players
        vec = cardhouse.VectorEnv(name, 2, seed=0, scope="deal")
        obs, masks, _ = vec.reset()
        assert obs.shape == (2, *game.observation_shape) and masks.any()


def test_constants_follow_openspiel() -> None:
    assert cardhouse.CHANCE == -1
    assert cardhouse.TERMINAL == -4


@pytest.mark.parametrize("name", cardhouse.list_games())
def test_game_properties(name: str) -> None:
    game = cardhouse.new_game(name)
    assert game.name == name
    assert game.num_players >= 2
    assert 0 < game.num_distinct_actions <= 256
    assert game.max_chance_outcomes > 0
    shape = game.observation_shape
    assert isinstance(shape, tuple) and all(isinstance(d, int) and d > 0 for d in shape)
    assert isinstance(game.rules_version, int)
    options = game.options
    assert {spec["name"] for spec in cardhouse.option_specs(name)} == set(options)
    for spec in cardhouse.option_specs(name):
        assert options[spec["name"]] == spec["default"], spec["name"]


def test_jass_sizes() -> None:
    game = cardhouse.new_game("jass")
    assert game.num_players == 4
    assert game.num_distinct_actions == 164


@pytest.mark.parametrize("name", cardhouse.list_games())
def test_option_specs_describe_every_option(name: str) -> None:
    for spec in cardhouse.option_specs(name):
        assert spec["kind"] in {"bool", "int", "choice"}
        assert spec["doc"], spec["name"]
        assert spec["allowed"]
        if spec["kind"] == "choice":
            assert spec["default"] in spec["choices"]
        if spec["kind"] == "int":
            assert spec["min"] <= spec["default"] <= spec["max"]


def test_every_game_has_scope() -> None:
    for name in cardhouse.list_games():
        game = cardhouse.new_game(name, scope="deal")
        assert game.options["scope"] == "deal"


def test_option_value_types() -> None:
    game = cardhouse.new_game("jass", target_score=1000, schieben_back=True, scope="deal")
    assert game.options["target_score"] == 1000
    assert game.options["schieben_back"] is True
    # Strings are accepted for every kind, as in the engine.
    same = cardhouse.new_game("jass", target_score="1000", schieben_back="true", scope="deal")
    assert same == game


def test_numpy_ints_are_ints() -> None:
    np = pytest.importorskip("numpy")
    game = cardhouse.new_game("jass", target_score=np.int64(700))
    assert game.options["target_score"] == 700


@pytest.mark.parametrize(("name", "options"), GAME_CONFIGS)
def test_game_round_trips(name: str, options: dict[str, Any]) -> None:
    game = cardhouse.new_game(name, **options)
    assert cardhouse.Game(name, game.options) == game
    assert cardhouse.new_game(name, **game.options) == game
    assert pickle.loads(pickle.dumps(game)) == game
    assert game != cardhouse.new_game(name, scope="match" if options.get("scope") == "deal" else "deal")


def test_repr_can_be_evaluated() -> None:
    game = cardhouse.new_game("jass", scope="deal", target_score=1000)
    text = repr(game)
    assert text.startswith('cardhouse.new_game("jass"')
    assert eval(text, {"cardhouse": cardhouse}) == game


def test_new_initial_state_is_chance_node() -> None:
    for name in cardhouse.list_games():
        state = cardhouse.new_game(name).new_initial_state()
        assert state.is_chance_node()
        assert state.current_player == cardhouse.CHANCE
        assert state.history() == []
        assert state.game == cardhouse.new_game(name)


def test_replay_reproduces_history() -> None:
    game = cardhouse.new_game("jass", scope="deal")
    state = game.new_initial_state()
    state.resolve_chance(3)
    for _ in range(10):
        state.apply(state.legal_actions()[-1])
    again = game.replay(state.history())
    assert again.to_bytes() == state.to_bytes()


def test_games_hash_by_name_and_options() -> None:
    a = cardhouse.new_game("jass", scope="deal")
    b = cardhouse.new_game("jass", scope="deal")
    c = cardhouse.new_game("jass")
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert len({a, b, c}) == 2


@pytest.mark.parametrize(("name", "options"), GAME_CONFIGS)
def test_observation_layout_names_every_value_and_bounds_it(
    name: str, options: dict[str, Any]
) -> None:
    import numpy as np
    from helpers import random_midgame_states

    game = cardhouse.new_game(name, **options)
    layout = game.observation_layout()
    offset = 0
    for part in layout:
        assert set(part) == {"name", "offset", "shape", "meaning", "low", "high"}
        assert part["offset"] == offset and part["meaning"] and part["low"] <= part["high"]
        offset += int(np.prod(part["shape"]))
    assert (offset,) == game.observation_shape
    for state in random_midgame_states(name, options, seed=5, count=10):
        for seat in range(game.num_players):
            obs = state.observation(seat)
            for part in layout:
                values = obs[part["offset"] : part["offset"] + int(np.prod(part["shape"]))]
                assert (part["low"] <= values).all() and (values <= part["high"]).all(), part


def test_jass_observation_is_518_values_with_named_slices() -> None:
    game = cardhouse.new_game("jass")
    assert game.observation_shape == (518,)
    names = [part["name"] for part in game.observation_layout()]
    assert names[:3] == ["hand", "trick", "played"] and names[-1] == "scores"
    hand = game.observation_layout()[0]
    assert (hand["offset"], hand["shape"]) == (0, (36,))


@pytest.mark.parametrize("name", cardhouse.list_games())
def test_openspiel_game_information(name: str) -> None:
    for scope in ("deal", "match"):
        game = cardhouse.new_game(name, scope=scope)
        assert game.min_utility() < 0 < game.max_utility()
        info = game.get_type()
        assert info["short_name"] == name and info["long_name"]
        assert info["num_players"] == game.num_players
        assert info["chance_mode"] == "explicit_stochastic"
        assert info["information"] == "imperfect_information"
        assert info["reward_model"] == "terminal"
        assert info["utility"] == "zero_sum"
        assert info["dynamics"] == "sequential"
        length = game.max_game_length()
        assert length is None or length > 0


def test_jass_utilities_and_length() -> None:
    assert cardhouse.new_game("jass").min_utility() == -1.0
    assert cardhouse.new_game("jass").max_game_length() is None
    deal = cardhouse.new_game("jass", scope="deal")
    assert deal.max_utility() >= 157 * 4
    assert deal.max_game_length() == 36 + 12 + 2
    assert cardhouse.new_game("jass", scope="deal", wys="auto").max_game_length() == 38
