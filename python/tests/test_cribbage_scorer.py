"""cardhouse.cribbage.score_hand: the engine's hand scorer from Python (rules §7.2, §10)."""

from __future__ import annotations

import pytest

import cardhouse
from cardhouse.cribbage import HandScore, score_hand


def items(s: HandScore) -> tuple[int, int, int, int, int, int]:
    return (s.fifteens, s.pairs, s.runs, s.flush, s.nobs, s.total)


def test_seed_hand_scores_20() -> None:
    assert items(score_hand(["7S", "7H", "8S", "8C"], "7C")) == (12, 8, 0, 0, 0, 20)


def test_29_and_28() -> None:
    assert items(score_hand(["JC", "5S", "5H", "5D"], "5C")) == (16, 12, 0, 0, 1, 29)
    assert score_hand(["5S", "5H", "5D", "5C"], "JC").total == 28


@pytest.mark.parametrize(
    ("hand", "starter", "crib", "want"),
    [
        ("3S 4H 4D 5C", "9S", False, (0, 2, 6, 0, 0, 8)),
        ("4S 5H 6D 6C", "6S", False, (6, 6, 9, 0, 0, 21)),
        ("7C 8D 8H 9S", "9C", False, (4, 4, 12, 0, 0, 20)),
        ("2H 4H 6H 8H", "KS", False, (0, 0, 0, 4, 0, 4)),
        ("2H 4H 6H 8H", "KS", True, (0, 0, 0, 0, 0, 0)),
        ("2H 4H 6H 8H", "KH", True, (0, 0, 0, 5, 0, 5)),
        ("JH QH KH AH", "2H", False, (0, 0, 3, 5, 1, 9)),
        ("5H 5C 10D JH", "QH", False, (12, 2, 3, 0, 1, 18)),
    ],
)
def test_worked_examples(hand: str, starter: str, crib: bool, want: tuple[int, ...]) -> None:
    assert items(score_hand(hand.split(), starter, crib=crib)) == want


def test_crib_keyword_and_any_iterable() -> None:
    assert score_hand(("AS", "2S", "3S", "JS"), "4D").flush == 4
    assert score_hand(iter(["AS", "2S", "3S", "JS"]), "4D", crib=True).flush == 0


def test_result_is_a_typed_value() -> None:
    s = score_hand(["JC", "5S", "5H", "5D"], "5C")
    assert isinstance(s, HandScore)
    assert s == score_hand(["5S", "JC", "5D", "5H"], "5C")
    assert hash(s) == hash(score_hand(["5S", "JC", "5D", "5H"], "5C"))
    assert s.as_dict() == {
        "fifteens": 16,
        "pairs": 12,
        "runs": 0,
        "flush": 0,
        "nobs": 1,
        "total": 29,
    }
    assert "total=29" in repr(s)
    assert type(s).__module__ == "cardhouse.cribbage"
    with pytest.raises(AttributeError):
        s.total = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("hand", "starter", "named"),
    [
        (["5H", "1C", "7D", "8S"], "9S", "1C"),
        (["5H", "6C", "7D", "8S"], "ZZ", "ZZ"),
        (["5H", "5H", "7D", "8S"], "9S", "5H"),
        (["5H", "6C", "7D", "8S"], "8S", "8S"),
    ],
)
def test_bad_or_duplicate_cards_raise_value_error_naming_the_card(
    hand: list[str], starter: str, named: str
) -> None:
    with pytest.raises(ValueError, match=named) as info:
        score_hand(hand, starter)
    assert isinstance(info.value, cardhouse.InvalidCardError)


def test_wrong_number_of_cards_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="4 cards"):
        score_hand(["5H", "6C", "7D"], "9S")


def test_reachable_from_the_package() -> None:
    import cardhouse.cribbage as module

    assert cardhouse.cribbage is module
    assert module.score_hand is score_hand


def test_the_engine_game_scores_its_show_with_the_same_scorer() -> None:
    game = cardhouse.new_game("cribbage", scope="deal", first_dealer=0)
    state = game.new_initial_state()
    state.resolve_chance(seed=4)
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
        if state.is_chance_node():
            state.resolve_chance(seed=5)
    view = state.view()
    for item in view["show"]:
        s = score_hand(item["cards"], view["starter"], crib=item["crib"])
        assert s.as_dict() == item["score"]

