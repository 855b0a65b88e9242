"""Cribbage helpers: the exact, fast hand scorer of the engine.

::

    from cardhouse.cribbage import score_hand

    s = score_hand(["JC", "5S", "5H", "5D"], "5C")
    assert (s.fifteens, s.pairs, s.nobs, s.total) == (16, 12, 1, 29)
    assert score_hand(["2H", "4H", "6H", "8H"], "KS", crib=True).flush == 0

The game itself is ``cardhouse.new_game("cribbage", players=2)`` (2, 3 or 4 players). Its
returns: ``scope="match"`` gives each losing seat ``-v`` (``v`` = 1, or the skunk / double
skunk game value if its side is skunked) and each winning seat the sum of the losing sides'
``v``; ``scope="deal"`` gives a seat its side's points of the deal minus the other side's
(2 and 4 players) or minus the mean of the three players' points (3 players).
"""

from __future__ import annotations

from collections.abc import Iterable

from cardhouse._core import _CribbageHandScore as HandScore
from cardhouse._core import _score_cribbage_hand

__all__ = ["HandScore", "score_hand"]


def score_hand(hand: Iterable[str], starter: str, crib: bool = False) -> HandScore:
    """Scores a Cribbage hand (or, with ``crib=True``, the crib) of four cards with the starter.

    Cards are strings such as ``"5H"``, ``"10C"``, ``"JD"``, ``"AS"``. Returns a
    :class:`HandScore` with ``fifteens``, ``pairs``, ``runs``, ``flush``, ``nobs`` and
    ``total`` (all in points). A hand's flush needs its four cards of one suit (5 with the
    starter); the crib's needs all five.

    Raises:
        InvalidCardError: (a ``ValueError``) a card that does not parse, a card given twice
            (hand and starter included) or a hand of other than four cards; the message
            names the card.
    """
    return _score_cribbage_hand(list(hand), starter, crib)
