"""cardhouse.bots: legal, deterministic, no cheating, usable as Gymnasium opponents."""

from __future__ import annotations

import pytest

import cardhouse
from cardhouse import bots


def _play(game: cardhouse.Game, players: dict[int, bots.Bot], seed: int) -> cardhouse.State:
    state = game.new_initial_state()
    rng = cardhouse.Rng(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state.resolve_chance(seed=rng)
            continue
        bot = players[state.current_player]
        action = bot.act(state)
        assert action in state.legal_actions()
        state.apply(action)
    return state


@pytest.mark.parametrize("name", cardhouse.list_games())
def test_every_bot_plays_every_game_legally(name: str) -> None:
    game = cardhouse.new_game(name, scope="deal")
    n = game.num_players
    lineup = [bots.random(game, seed=1), bots.heuristic(game, seed=2), bots.ismcts(game, seed=3, iterations=10)]
    state = _play(game, {s: lineup[s % 3] for s in range(n)}, seed=5)
    assert sum(state.returns()) == pytest.approx(0.0)


def test_bots_are_deterministic_for_a_seed() -> None:
    game = cardhouse.new_game("jass", scope="deal")
    a = _play(game, {s: bots.ismcts(game, seed=s, iterations=20) for s in range(4)}, seed=1)
    b = _play(game, {s: bots.ismcts(game, seed=s, iterations=20) for s in range(4)}, seed=1)
    assert a.history() == b.history()


def test_no_cheating_hidden_cards_do_not_change_the_choice() -> None:
    game = cardhouse.new_game("jass", scope="deal")
    state = game.new_initial_state()
    state.resolve_chance(seed=3)
    seat = state.current_player
    for make in (bots.heuristic, lambda g, seed: bots.ismcts(g, seed=seed, iterations=30)):
        real = make(game, seed=9).act(state)
        for k in range(3):
            other = state.resample(seat, seed=k)
            assert make(game, seed=9).act(other) == real


def test_bad_arguments_are_explained() -> None:
    game = cardhouse.new_game("jass")
    with pytest.raises(cardhouse.InvalidOptionError, match="iterations"):
        bots.ismcts(game, iterations=0)
    with pytest.raises(cardhouse.InvalidOptionError, match="time_budget"):
        bots.ismcts(game, time_budget=-1.0)
    state = game.new_initial_state()
    with pytest.raises(cardhouse.IllegalActionError, match="chance"):
        bots.random(game).act(state)
    other = cardhouse.new_game("cribbage").new_initial_state()
    with pytest.raises(cardhouse.InvalidOptionError, match="made for jass"):
        bots.random(game).act(other)
    assert "ismcts:7" in repr(bots.ismcts(game, iterations=7))


def test_a_bot_is_a_gymnasium_opponent() -> None:
    pytest.importorskip("gymnasium")
    from cardhouse.gymnasium import CardhouseEnv

    game = cardhouse.new_game("jass", scope="deal", wys="auto")
    env = CardhouseEnv("jass", opponent=bots.heuristic(game, seed=4), scope="deal", wys="auto")
    obs, info = env.reset(seed=0)
    done = False
    steps = 0
    while not done and steps < 100:
        action = int(obs["action_mask"].nonzero()[0][0])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
    assert done
