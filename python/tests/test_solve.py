"""The exact card-play solver through Python (mirrors engine/src/solve/): ``State.solve()``
against a plain minimax written here on the last tricks of random deals, and its errors."""

from __future__ import annotations

import pytest

import cardhouse

TRICK_GAMES = ["jass", "klaberjass", "avinas"]


def minimax(state: cardhouse.State, seat: int) -> float:
    """``seat``'s deal return under perfect play to the end, trying every action."""
    if state.is_terminal():
        return state.returns()[seat]
    mover = state.current_player
    values = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        values.append(minimax(child, seat))
    same_side = (mover - seat) % 2 == 0
    return max(values) if same_side else min(values)


def cards_left(state: cardhouse.State) -> int:
    return sum(state.view(omniscient=True)["hand_sizes"])


def last_decisions(name: str, seed: int, count: int) -> list[cardhouse.State]:
    """The last ``count`` decisions of a random deal (``scope = "deal"``) with at most two
    tricks' cards left (an Avinas deal may end early: its last decisions may be deep)."""
    state = cardhouse.new_game(name, scope="deal").new_initial_state()
    rng = cardhouse.Rng(seed)
    decisions = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.resolve_chance(rng)
            continue
        decisions.append(state.clone())
        # Random play, but no knock or early stop (Avinas), which end play before the last
        # tricks.
        legal = state.legal_actions()
        full = [a for a in legal if not state.action_to_string(a).startswith(("knock", "stop"))]
        legal = full or legal
        state.apply(legal[rng.below(len(legal))])
    per_trick = 2 if name == "klaberjass" else 4
    return [s for s in decisions[-count:] if cards_left(s) <= 2 * per_trick]


@pytest.mark.parametrize("name", TRICK_GAMES)
def test_solve_values_every_legal_action_as_minimax_does(name: str) -> None:
    checked = 0
    for seed in range(10):
        for state in last_decisions(name, seed, count=4):
            checked += 1
            seat = state.current_player
            values = state.solve()
            assert sorted(values) == state.legal_actions()
            for action, value in values.items():
                child = state.clone()
                child.apply(action)
                assert value == minimax(child, seat), (name, seed, action)
    assert checked >= 6, "too few late positions"


def test_solve_outside_the_play_says_why() -> None:
    state = cardhouse.new_game("jass", scope="deal").new_initial_state()
    with pytest.raises(cardhouse.IllegalActionError, match="cannot solve this jass state"):
        state.solve()
    state.resolve_chance(1)
    with pytest.raises(cardhouse.IllegalActionError, match="cannot solve this jass state.*phase"):
        state.solve()


def test_cribbage_has_no_solver() -> None:
    state = cardhouse.new_game("cribbage").new_initial_state()
    state.resolve_chance(1)
    with pytest.raises(cardhouse.IllegalActionError, match="cribbage cannot be solved"):
        state.solve()


@pytest.mark.parametrize("name", TRICK_GAMES)
def test_the_pimc_bot_plays_a_deal_by_its_name(name: str) -> None:
    from cardhouse import bots

    game = cardhouse.new_game(name, scope="deal")
    pimc = bots._make_bot("pimc:3", game, 7)
    assert pimc.name == "pimc:3"
    state = game.new_initial_state()
    rng = cardhouse.Rng(2)
    while not state.is_terminal():
        if state.is_chance_node():
            state.resolve_chance(rng)
            continue
        action = pimc.act(state)
        assert action in state.legal_actions()
        state.apply(action)
    assert sum(state.returns()) == pytest.approx(0.0)


def test_pimc_sits_in_a_vector_env() -> None:
    env = cardhouse.VectorEnv("klaberjass", 2, 5, bots={1: "pimc:2"}, scope="deal")
    assert env.bots == {1: "pimc:2"}
