"""The Gymnasium single-agent environment passes Gymnasium's env checker, for every game."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from helpers import DEAL_CONFIGS, GAME_CONFIGS

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


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_the_other_seats_play_as_the_plain_loop_would(name: str, options: dict[str, Any]) -> None:
    """The environment plays the other seats through the engine's loop (State.play_until):
    the same seed gives the same game, and the same rewards, as the plain Python loop."""
    from gymnasium.utils import seeding

    def plain(state: cardhouse.State, opponent: Any, rng: np.random.Generator) -> float:
        reward = 0.0
        while not state.is_terminal() and state.current_player != 1:
            if state.is_chance_node():
                state.resolve_chance(rng)
            else:
                state.apply(opponent(state, rng))
            reward += state.rewards()[1]
        return reward

    for make in (lambda: cardhouse.gymnasium.random_policy, lambda: cardhouse.bots.heuristic(seed=3)):
        env = cardhouse.gymnasium.CardhouseEnv(name, seat=1, opponent=make(), **options)
        env.reset(seed=11)
        opponent = make()
        rng, _ = seeding.np_random(11)
        state = cardhouse.new_game(name, **options).new_initial_state()
        plain(state, opponent, rng)
        while not state.is_terminal():
            assert env.game_state.history() == state.history()
            a = state.legal_actions()[0]
            _, reward, done, _, _ = env.step(a)
            state.apply(a)
            assert reward == state.rewards()[1] + plain(state, opponent, rng)
            assert done == state.is_terminal()
        assert env.game_state.history() == state.history()


def test_illegal_action_modes() -> None:
    env = cardhouse.gymnasium.CardhouseEnv("jass", scope="deal", illegal_action="raise")
    obs, _ = env.reset(seed=0)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(cardhouse.IllegalActionError):
        env.step(bad)
    default = cardhouse.gymnasium.CardhouseEnv("jass", scope="deal")
    assert default.illegal_reward == cardhouse.new_game("jass", scope="deal").min_utility()
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


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_an_illegal_move_never_beats_finishing_the_game(name: str, options: dict[str, Any]) -> None:
    # The default penalty is the game's minimum return: no finished game returns less.
    game = cardhouse.new_game(name, **options)
    env = cardhouse.gymnasium.CardhouseEnv(name, **options)
    assert env.illegal_reward == game.min_utility()
    for seed in range(20):
        _, total = episode(env, seed)
        assert game.min_utility() <= total <= game.max_utility()
        assert env.illegal_reward <= total


def test_every_game_is_registered_with_options_as_keywords() -> None:
    import gymnasium

    assert set(cardhouse.gymnasium.ENV_IDS) == set(cardhouse.list_games())
    assert cardhouse.gymnasium.ENV_IDS["jass"] == "cardhouse/Jass-v0"
    for name, env_id in cardhouse.gymnasium.ENV_IDS.items():
        env = gymnasium.make(env_id, seat=1, scope="deal")
        assert env.unwrapped.game == cardhouse.new_game(name, scope="deal")
        assert env.unwrapped.seat == 1
        obs, _ = env.reset(seed=3)
        assert env.observation_space.contains(obs)
        env.close()
    # The module:id form imports the module first.
    env = gymnasium.make("cardhouse.gymnasium:cardhouse/Jass-v0", scope="deal")
    assert env.unwrapped.game.options["scope"] == "deal"


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_render_modes_show_only_the_seat_s_knowledge(
    name: str, options: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    env = cardhouse.gymnasium.CardhouseEnv(name, seat=1, render_mode="ansi", **options)
    assert env.metadata["render_modes"] == ["ansi", "human"]
    assert env.metadata["render_fps"] > 0
    env.reset(seed=2)
    assert env.render() == env.game_state.observation_string(1)
    import gymnasium

    made = gymnasium.make(
        cardhouse.gymnasium.env_id(name), seat=1, render_mode="ansi", **options
    ).unwrapped
    check_env(made)  # with a spec, so that every render mode is checked
    human = cardhouse.gymnasium.CardhouseEnv(name, seat=1, render_mode="human", **options)
    human.reset(seed=2)
    assert human.game_state.observation_string(1) in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        cardhouse.gymnasium.CardhouseEnv(name, render_mode="rgb_array", **options)


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_observation_space_has_the_layout_bounds(name: str, options: dict[str, Any]) -> None:
    game = cardhouse.new_game(name, **options)
    box = cardhouse.gymnasium.observation_box(game)
    assert np.isfinite(box.low).all() or game.observation_layout()[0]["name"] == "observation"
    for part in game.observation_layout():
        size = int(np.prod(part["shape"]))
        assert (box.low.reshape(-1)[part["offset"] : part["offset"] + size] == part["low"]).all()
        assert (box.high.reshape(-1)[part["offset"] : part["offset"] + size] == part["high"]).all()
    env = cardhouse.gymnasium.CardhouseEnv(name, **options)
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, done, _, _ = env.step(int(legal[-1]))
        assert env.observation_space.contains(obs)


def _run_python(code: str) -> None:
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize(
    "imports",
    [
        "import cardhouse\nimport gymnasium",
        "import gymnasium\nimport cardhouse",
    ],
    ids=["cardhouse-first", "gymnasium-first"],
)
def test_gymnasium_make_finds_every_id_after_import_cardhouse(imports: str) -> None:
    # In a fresh interpreter: no `import cardhouse.gymnasium` anywhere.
    _run_python(
        imports
        + """
import sys
for name in cardhouse.list_games():
    env = gymnasium.make("cardhouse/" + "".join(p.capitalize() for p in name.split("_")) + "-v0",
                         scope="deal")
    obs, info = env.reset(seed=1)
    assert "observation" in obs
env = gymnasium.make("cardhouse/Jass-v0", seat=1, scope="deal", wys="auto")
assert env.unwrapped.seat == 1
"""
    )


def test_import_cardhouse_does_not_import_gymnasium_and_the_module_form_needs_no_import() -> None:
    _run_python(
        """
import sys
import cardhouse
assert "gymnasium" not in sys.modules, "import cardhouse must stay light"
"""
    )
    _run_python(
        """
import gymnasium
env = gymnasium.make("cardhouse.gymnasium:cardhouse/Klaberjass-v0", scope="deal")
env.reset(seed=3)
"""
    )


@pytest.mark.parametrize(("name", "options"), GAME_CONFIGS)
def test_observation_spaces_have_no_equal_bounds(name: str, options: dict[str, Any]) -> None:
    # Gymnasium's checker warns "A Box observation space maximum and minimum values are equal"
    # on any element whose low equals its high (Klaberjass's held_over was 0..0).
    import gymnasium

    box = cardhouse.gymnasium.observation_box(cardhouse.new_game(name, **options))
    assert np.all(box.low < box.high)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gymnasium.make(cardhouse.gymnasium.env_id(name), **options)
