"""The State API through Python (mirrors engine/src/game.rs): random matches to the end,
chance, serialization, pickling, observations, views and action texts."""

from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any

import numpy as np
import pytest
from helpers import DEAL_CONFIGS, GAME_CONFIGS, play_random, random_midgame_states

import cardhouse


@pytest.mark.parametrize(("name", "options"), GAME_CONFIGS)
def test_random_matches_reach_the_end(name: str, options: dict[str, Any]) -> None:
    game = cardhouse.new_game(name, **options)
    for seed in range(3):
        state = game.new_initial_state()
        rng = cardhouse.Rng(seed)
        while not state.is_terminal():
            player = state.current_player
            legal = state.legal_actions()
            assert legal == sorted(legal) and legal, "legal set non-empty until terminal"
            mask = state.legal_action_mask()
            assert mask.dtype == np.bool_
            assert list(np.flatnonzero(mask)) == legal
            if state.is_chance_node():
                assert player == cardhouse.CHANCE
                outcomes = state.chance_outcomes()
                assert [a for a, _ in outcomes] == legal
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                state.apply_random_chance(rng)
            else:
                assert 0 <= player < game.num_players
                assert len(mask) == game.num_distinct_actions
                before = state.returns()
                assert before == [0.0] * game.num_players
                state.apply(legal[rng.below(len(legal))])
        assert state.current_player == cardhouse.TERMINAL
        assert state.legal_actions() == []
        returns = state.returns()
        assert len(returns) == game.num_players
        assert abs(sum(returns)) < 1e-9, "zero-sum between the sides"
        assert state.rewards() == returns
        assert game.replay(state.history()).to_bytes() == state.to_bytes()


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_seeds_reproduce(name: str, options: dict[str, Any]) -> None:
    game = cardhouse.new_game(name, **options)

    def run(seed: int) -> list[int]:
        state = game.new_initial_state()
        state.resolve_chance(seed)
        return play_random(state, seed).history()

    assert run(11) == run(11)
    assert run(11) != run(12)


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_apply_after_legal_actions_is_still_checked(name: str, options: dict[str, Any]) -> None:
    """``apply`` of a member of the list ``legal_actions`` just returned skips the second
    legality check; anything else, or the same list after the state moved on, is checked."""
    game = cardhouse.new_game(name, **options)
    rng = cardhouse.Rng(5)
    checked = game.new_initial_state()
    fast = game.new_initial_state()
    checked.resolve_chance(1)
    fast.resolve_chance(1)
    refused = 0
    while not fast.is_terminal():
        legal = fast.legal_actions()
        illegal = [a for a in range(game.num_distinct_actions) if a not in legal]
        if illegal and not fast.is_chance_node():
            # Not in the set just returned: refused with the rule's reason, nothing changed.
            before = fast.to_bytes()
            with pytest.raises(cardhouse.IllegalActionError):
                fast.apply(illegal[rng.below(len(illegal))])
            assert fast.to_bytes() == before
            refused += 1
            legal = fast.legal_actions()
        a = legal[rng.below(len(legal))]
        fast.apply(a)
        checked.apply(a)
        assert fast == checked
        # The old list no longer describes the state: a member of it that is illegal now
        # (the card just played) is refused.
        if not fast.is_terminal() and not fast.is_chance_node():
            if a not in fast.legal_actions():
                with pytest.raises(cardhouse.IllegalActionError):
                    fast.apply(a)
    assert refused > 0
    assert fast.to_bytes() == checked.to_bytes()


def test_a_clone_or_a_chance_move_keeps_no_stale_legal_list() -> None:
    game = cardhouse.new_game("cribbage", players=2, scope="deal")
    # The list of a chance node, then the chance resolved by another call: an outcome of
    # that list that is not legal now is refused (not applied unchecked), nothing changed.
    state = game.new_initial_state()
    outcomes = state.legal_actions()
    state.resolve_chance(3)
    now = set(game.replay(state.history()).legal_actions())
    stale = [a for a in outcomes if a not in now]
    assert stale
    before = state.to_bytes()
    with pytest.raises(cardhouse.IllegalActionError):
        state.apply(stale[0])
    assert state.to_bytes() == before
    # A clone keeps the list of the same position; once either moves on it is checked.
    legal = state.legal_actions()
    copy_ = state.clone()
    copy_.apply(legal[0])
    with pytest.raises(cardhouse.IllegalActionError):
        copy_.apply(legal[0])  # the card was discarded; the clone's list is stale
    state.apply(legal[0])
    assert state == copy_


def test_every_kind_of_seed_is_accepted() -> None:
    game = cardhouse.new_game("jass", scope="deal")
    histories = []
    for seed in (5, cardhouse.Rng(5), np.uint64(5), np.random.default_rng(5), random.Random(5)):
        state = game.new_initial_state()
        state.resolve_chance(seed)
        assert not state.is_chance_node()
        histories.append(state.history())
    assert histories[0] == histories[1] == histories[2], "int, Rng and NumPy int seeds agree"
    with pytest.raises(TypeError, match="seed"):
        game.new_initial_state().resolve_chance("five")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        game.new_initial_state().resolve_chance(-1)


def test_generator_seeds_reproduce() -> None:
    game = cardhouse.new_game("jass", scope="deal")
    a, b = game.new_initial_state(), game.new_initial_state()
    ga, gb = np.random.default_rng(9), np.random.default_rng(9)
    while a.is_chance_node():
        a.apply_random_chance(ga)
        b.apply_random_chance(gb)
    assert a.history() == b.history()


def test_rng_stream_continues() -> None:
    r = cardhouse.Rng(1)
    first = [r.next_u64() for _ in range(3)]
    assert len(set(first)) == 3
    assert [cardhouse.Rng(1).next_u64() for _ in range(1)] == first[:1]
    c = r.clone()
    assert c.next_u64() == r.next_u64()
    assert all(0 <= r.below(7) < 7 for _ in range(100))
    with pytest.raises(ValueError):
        r.below(0)


def test_apply_random_chance_applies_one_outcome() -> None:
    state = cardhouse.new_game("jass").new_initial_state()
    state.apply_random_chance(1)
    assert state.move_number() == 1
    assert state.is_chance_node()
    assert state.history()[0] in range(state.game.max_chance_outcomes)


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_bytes_json_and_pickle_round_trip(name: str, options: dict[str, Any]) -> None:
    game = cardhouse.new_game(name, **options)
    for state in random_midgame_states(name, options, seed=4, count=20) + [
        game.new_initial_state(),
        play_random(game.new_initial_state(), 8),
    ]:
        data = state.to_bytes()
        assert isinstance(data, bytes)
        for decoded in (
            game.state_from_bytes(data),
            cardhouse.state_from_bytes(data),
            game.state_from_json(state.to_json()),
            cardhouse.state_from_json(state.to_json()),
            pickle.loads(pickle.dumps(state)),
            copy.copy(state),
            copy.deepcopy(state),
            state.clone(),
        ):
            assert decoded.to_bytes() == data
            assert decoded.history() == state.history()
            assert decoded.current_player == state.current_player
            assert decoded.legal_actions() == state.legal_actions()
            assert decoded.returns() == state.returns()
        json.loads(state.to_json())


def test_clone_is_independent() -> None:
    state = cardhouse.new_game("jass", scope="deal").new_initial_state()
    state.resolve_chance(2)
    other = state.clone()
    other.apply(other.legal_actions()[0])
    assert other.move_number() == state.move_number() + 1


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_observation_shape_and_dtype(name: str, options: dict[str, Any]) -> None:
    game = cardhouse.new_game(name, **options)
    shape = game.observation_shape
    buffer = np.full(shape, 7.0, dtype=np.float32)
    batch = np.zeros((game.num_players, *shape), dtype=np.float32)
    for state in random_midgame_states(name, options, seed=1, count=10):
        for seat in range(game.num_players):
            obs = state.observation(seat)
            assert obs.dtype == np.float32
            assert obs.shape == shape
            assert obs.flags.writeable and obs.flags.c_contiguous
            state.write_observation(seat, buffer)
            np.testing.assert_array_equal(buffer, obs)
            state.write_observation(seat, batch[seat])
            np.testing.assert_array_equal(batch[seat], obs)


def test_observation_arrays_are_owned_copies() -> None:
    state = cardhouse.new_game("jass", scope="deal").new_initial_state()
    state.resolve_chance(1)
    obs = state.observation(0)
    obs[:] = 42.0
    assert not np.array_equal(state.observation(0), obs)
    mask = state.legal_action_mask()
    mask[:] = True
    assert not state.legal_action_mask().all()


def test_write_observation_rejects_bad_buffers() -> None:
    state = cardhouse.new_game("jass", scope="deal").new_initial_state()
    state.resolve_chance(1)
    n = state.game.observation_shape[0]
    with pytest.raises(cardhouse.BufferSizeError, match=str(n)):
        state.write_observation(0, np.zeros(n + 1, dtype=np.float32))
    with pytest.raises(TypeError):
        state.write_observation(0, np.zeros(n, dtype=np.float64))  # type: ignore[arg-type]
    with pytest.raises(cardhouse.BufferSizeError):
        state.write_observation(0, np.zeros((n, 2), dtype=np.float32)[:, 0])


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_views_are_dicts(name: str, options: dict[str, Any]) -> None:
    for state in random_midgame_states(name, options, seed=3, count=5):
        spectator = state.view()
        assert isinstance(spectator, dict)
        json.dumps(spectator)
        for seat in range(state.game.num_players):
            assert isinstance(state.view(seat), dict)
        full = state.view(omniscient=True)
        assert isinstance(full, dict) and full != spectator


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_action_texts_round_trip(name: str, options: dict[str, Any]) -> None:
    for state in random_midgame_states(name, options, seed=5, count=20):
        for action in state.legal_actions():
            text = state.action_to_string(action)
            assert isinstance(text, str) and text
            assert state.string_to_action(text) == action


def test_history_and_move_number() -> None:
    state = cardhouse.new_game("jass", scope="deal").new_initial_state()
    state.resolve_chance(6)
    assert state.move_number() == len(state.history())
    action = state.legal_actions()[0]
    state.apply(action)
    assert state.history()[-1] == action


def test_repr_is_readable() -> None:
    state = cardhouse.new_game("jass", scope="deal").new_initial_state()
    assert repr(state) == "<cardhouse.State jass move 0: chance node>"
    state.resolve_chance(1)
    assert "to act" in repr(state)
    play_random(state, 1)
    assert "terminal, returns" in repr(state)
    assert str(state)


def test_resample_keeps_the_seat_consistent() -> None:
    for state in random_midgame_states("jass", {"scope": "deal"}, seed=9, count=5):
        seat = state.current_player
        sampled = state.resample(seat, 1)
        np.testing.assert_array_equal(sampled.observation(seat), state.observation(seat))
        assert sampled.legal_actions() == state.legal_actions()


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_states_compare_by_position_and_are_not_hashable(name: str, options: dict[str, Any]) -> None:
    game = cardhouse.new_game(name, **options)
    a = game.new_initial_state()
    a.resolve_chance(seed=3)
    b = a.clone()
    assert a == b and not (a != b)
    assert a == pickle.loads(pickle.dumps(a))
    b.apply(b.legal_actions()[0])
    assert a != b
    with pytest.raises(TypeError):
        hash(a)


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_openspiel_names(name: str, options: dict[str, Any]) -> None:
    game = cardhouse.new_game(name, **options)
    state = game.new_initial_state()
    state.resolve_chance(4)
    seat = state.current_player
    np.testing.assert_array_equal(state.observation_tensor(seat), state.observation(seat))
    action = state.legal_actions()[0]
    child = state.child(action)
    assert child.history() == state.history() + [action]
    assert state.history() == child.history()[:-1], "child leaves the state unchanged"
    copy = state.clone()
    copy.apply_action(action)
    assert copy == child
    with pytest.raises(cardhouse.IllegalActionError):
        state.child(game.num_distinct_actions + 5)


@pytest.mark.parametrize(("name", "options"), DEAL_CONFIGS)
def test_observation_string_is_the_seat_s_text_and_str_is_omniscient(
    name: str, options: dict[str, Any]
) -> None:
    game = cardhouse.new_game(name, **options)
    state = game.new_initial_state()
    state.resolve_chance(8)
    for seat in range(game.num_players):
        text = state.observation_string(seat)
        assert isinstance(text, str) and text
    # What a seat sees differs from seat to seat (its own hand); str() shows everything.
    assert len({state.observation_string(s) for s in range(game.num_players)}) > 1
    assert str(state) != state.observation_string(0)
    with pytest.raises(cardhouse.InvalidSeatError):
        state.observation_string(game.num_players)


def test_jass_observation_string_shows_own_hand_only() -> None:
    state = cardhouse.new_game("jass", scope="deal").new_initial_state()
    state.resolve_chance(8)
    view = state.view(omniscient=True)
    text = state.observation_string(2)
    assert "hand: " + " ".join(view["hands"][2]) in text
    for other in (0, 1, 3):
        assert " ".join(view["hands"][other]) not in text


def test_bench_script_runs_from_the_source_tree() -> None:
    import subprocess
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "bench.py"
    if not bench.is_file():
        pytest.skip("bench.py is not next to the tests")
    result = subprocess.run(
        [sys.executable, str(bench), "--game", "all", "--seconds", "0.01", "--num-envs", "4"],
        capture_output=True,
        text=True,
        check=False,
        cwd=bench.parents[1],
    )
    assert result.returncode == 0, result.stderr
    # Every game measured, each Python loop against its floor.
    assert result.stdout.count("x its floor") == 4, result.stdout
    for game in ("jass", "klaberjass", "cribbage", "avinas"):
        assert f"cardhouse {cardhouse.__version__}, {game} " in result.stdout
