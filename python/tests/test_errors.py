"""Errors (mirrors engine/src/error.rs): exception classes, messages that say what was wrong
and what is allowed, and bad input never changing a state."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cardhouse


@pytest.fixture
def state() -> cardhouse.State:
    s = cardhouse.new_game("jass", scope="deal").new_initial_state()
    s.resolve_chance(1)
    return s


def test_hierarchy() -> None:
    assert issubclass(cardhouse.CardhouseError, Exception)
    for cls in (
        cardhouse.InvalidOptionError,
        cardhouse.IllegalActionError,
        cardhouse.InvalidSeatError,
        cardhouse.BufferSizeError,
        cardhouse.InvalidCardError,
        cardhouse.DecodeError,
    ):
        assert issubclass(cls, cardhouse.CardhouseError)
        assert issubclass(cls, ValueError)
        assert cls.__module__ == "cardhouse"
        assert cls.__doc__
    assert issubclass(cardhouse.UnknownGameError, cardhouse.InvalidOptionError)
    assert issubclass(cardhouse.RulesVersionError, cardhouse.DecodeError)
    assert issubclass(cardhouse.ResampleFailedError, cardhouse.CardhouseError)
    assert not issubclass(cardhouse.ResampleFailedError, ValueError)


def test_unknown_game_lists_the_games() -> None:
    with pytest.raises(cardhouse.UnknownGameError) as info:
        cardhouse.new_game("poker")
    assert "poker" in str(info.value) and "jass" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_unknown_option_lists_the_options() -> None:
    with pytest.raises(cardhouse.InvalidOptionError) as info:
        cardhouse.new_game("jass", colour="red")
    message = str(info.value)
    assert "colour" in message and "scope" in message and "target_score" in message


def test_bad_option_value_says_what_is_allowed() -> None:
    with pytest.raises(cardhouse.InvalidOptionError, match="one of match, deal"):
        cardhouse.new_game("jass", scope="forever")
    with pytest.raises(cardhouse.InvalidOptionError, match="target_score.*an integer from"):
        cardhouse.new_game("jass", target_score=0)
    with pytest.raises(cardhouse.InvalidOptionError, match="schieben_back"):
        cardhouse.new_game("jass", schieben_back=3)
    with pytest.raises(cardhouse.InvalidOptionError, match="1.5"):
        cardhouse.new_game("jass", target_score=1.5)


def test_illegal_action_names_the_rule_and_leaves_the_state(state: cardhouse.State) -> None:
    before = state.to_bytes()
    illegal = next(a for a in range(state.game.num_distinct_actions) if a not in state.legal_actions())
    with pytest.raises(cardhouse.IllegalActionError) as info:
        state.apply(illegal)
    assert str(illegal) in str(info.value)
    assert isinstance(info.value, ValueError)
    assert state.to_bytes() == before


@pytest.mark.parametrize("action", [-1, 164, 255, 256, 10**6, 2**40])
def test_unknown_action_ids(state: cardhouse.State, action: int) -> None:
    before = state.to_bytes()
    with pytest.raises(cardhouse.IllegalActionError, match="does not exist"):
        state.apply(action)
    assert state.to_bytes() == before


def test_action_too_large_for_python_int(state: cardhouse.State) -> None:
    # A ValueError as for every other bad value (PyO3 alone would raise OverflowError).
    with pytest.raises(ValueError, match="out of range"):
        state.apply(2**70)


def test_unparsable_action_text(state: cardhouse.State) -> None:
    with pytest.raises(cardhouse.IllegalActionError, match="cannot read `fly away`"):
        state.string_to_action("fly away")


def test_game_over(state: cardhouse.State) -> None:
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    before = state.to_bytes()
    with pytest.raises(cardhouse.IllegalActionError, match="over"):
        state.apply(0)
    assert state.to_bytes() == before


def test_wrong_node(state: cardhouse.State) -> None:
    with pytest.raises(cardhouse.IllegalActionError, match="chance"):
        state.chance_outcomes()
    before = state.to_bytes()
    with pytest.raises(cardhouse.IllegalActionError):
        state.apply_random_chance(1)
    assert state.to_bytes() == before


@pytest.mark.parametrize("seat", [-1, 4, 100])
def test_invalid_seat_names_the_seats(state: cardhouse.State, seat: int) -> None:
    with pytest.raises(cardhouse.InvalidSeatError, match=r"seats 0 to 3"):
        state.observation(seat)
    with pytest.raises(cardhouse.InvalidSeatError):
        state.view(seat)
    with pytest.raises(cardhouse.InvalidSeatError):
        state.resample(seat, 0)
    with pytest.raises(cardhouse.InvalidSeatError):
        state.write_observation(seat, np.zeros(state.game.observation_shape, dtype=np.float32))


def test_view_seat_and_omniscient_exclude_each_other(state: cardhouse.State) -> None:
    with pytest.raises(cardhouse.InvalidSeatError, match="omniscient"):
        state.view(0, omniscient=True)


def test_decode_errors(state: cardhouse.State) -> None:
    game = state.game
    with pytest.raises(cardhouse.DecodeError):
        game.state_from_bytes(b"not a state")
    with pytest.raises(cardhouse.DecodeError):
        cardhouse.state_from_json("{")
    other = cardhouse.new_game("jass", scope="match")
    with pytest.raises(cardhouse.DecodeError, match="options"):
        other.state_from_bytes(state.to_bytes())
    with pytest.raises(cardhouse.DecodeError):
        game.replay([999])


def test_rules_version_error(state: cardhouse.State) -> None:
    record = json.loads(state.to_json())
    record["rules_version"] = 999
    with pytest.raises(cardhouse.RulesVersionError, match="999"):
        cardhouse.state_from_json(json.dumps(record))


def test_write_observation_names_a_wrong_buffer_type(state: cardhouse.State) -> None:
    n = state.game.observation_shape[0]
    for bad, dtype in [(np.zeros(n), "float64"), (np.zeros(n, dtype=np.int32), "int32")]:
        with pytest.raises(TypeError, match=f"float32 NumPy array.*{dtype}"):
            state.write_observation(0, bad)
    with pytest.raises(TypeError, match="float32 NumPy array.*list"):
        state.write_observation(0, [0.0] * n)  # type: ignore[arg-type]
    with pytest.raises(cardhouse.BufferSizeError):
        state.write_observation(0, np.zeros(n + 1, dtype=np.float32))


def test_action_to_string_of_an_unknown_id_is_an_error(state: cardhouse.State) -> None:
    n = state.game.num_distinct_actions
    with pytest.raises(cardhouse.IllegalActionError, match=f"0 to {n - 1}"):
        state.action_to_string(999)
    with pytest.raises(cardhouse.IllegalActionError, match="0 to"):
        state.action_to_string(-1)
    assert state.action_to_string(0)


def test_resolve_chance_at_a_player_node_raises_like_apply_random_chance(
    state: cardhouse.State,
) -> None:
    before = state.to_bytes()
    with pytest.raises(cardhouse.IllegalActionError, match="no chance event"):
        state.resolve_chance(1)
    with pytest.raises(cardhouse.IllegalActionError, match="no chance event"):
        state.apply_random_chance(1)
    assert state.to_bytes() == before


def test_ranges_in_messages_are_written_one_way(state: cardhouse.State) -> None:
    messages = []
    for call in (
        lambda: state.apply(9999),
        lambda: state.apply(-3),
        lambda: state.observation(7),
        lambda: state.action_to_string(500),
        lambda: cardhouse.new_game("jass").new_initial_state().apply(36),
    ):
        with pytest.raises(cardhouse.CardhouseError) as info:
            call()
        messages.append(str(info.value))
    for m in messages:
        assert " to " in m and ".." not in m, m
