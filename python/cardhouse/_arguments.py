"""Checks of the numeric arguments of the Python wrappers (Gymnasium, PettingZoo): an action
id, a seed, a seat or a reward of the wrong type is a ``TypeError``, a value out of range a
``ValueError``; nothing is truncated or converted from text."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import cardhouse


def action_id(action: Any) -> int:
    """One integer action id (a Python or NumPy integer, or a 0-d integer array)."""
    value = np.asarray(action)
    if value.shape != () or not np.issubdtype(value.dtype, np.integer):
        raise TypeError(f"action {action!r}: give one integer action id")
    return int(value)


def seed(value: Any) -> int | None:
    """None, or an integer seed of at least 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"seed={value!r}: give an int of at least 0, or None")
    if value < 0:
        raise ValueError(f"seed={value!r}: give an int of at least 0, or None")
    return int(value)


def seat(value: Any, num_players: int) -> int:
    """A seat from 0 to ``num_players - 1``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"seat={value!r}: give an int seat")
    if not 0 <= value < num_players:
        raise cardhouse.InvalidSeatError(
            f"seat {value} does not exist; this game has seats 0 to {num_players - 1}"
        )
    return int(value)


def finite(name: str, value: Any) -> float:
    """A finite real number."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}={value!r}: give a number")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{name}={value!r}: give a finite number") from None
    if not math.isfinite(number):
        raise ValueError(f"{name}={value!r}: give a finite number")
    return number
