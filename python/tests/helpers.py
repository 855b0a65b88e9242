"""Shared helpers: game configurations generic over every registered game, and random play."""

from __future__ import annotations

from typing import Any

import pytest

import cardhouse


def option_variants(name: str) -> list[dict[str, Any]]:
    """Option sets to test for a game, built from its specs only (no game knowledge): one
    deal with defaults, the default match, and one deal per non-default value of every
    choice and bool option and of every small integer option (at most 5 values, such as the
    number of players). A variant the game rejects on its own (a seat beyond the default
    number of players) is combined with the first value of a small integer option that makes
    it valid."""
    specs = cardhouse.option_specs(name)
    small = [s for s in specs if s["kind"] == "int" and s["max"] - s["min"] <= 4]
    variants: list[dict[str, Any]] = [{"scope": "deal"}, {}]
    for spec in specs:
        if spec["name"] == "scope":
            continue
        if spec["kind"] == "choice":
            for choice in spec["choices"]:
                if choice != spec["default"]:
                    variants.append({"scope": "deal", spec["name"]: choice})
        elif spec["kind"] == "bool":
            variants.append({"scope": "deal", spec["name"]: not spec["default"]})
        elif spec in small:
            for value in range(spec["min"], spec["max"] + 1):
                if value != spec["default"]:
                    variants.append({"scope": "deal", spec["name"]: value})
    return [fitted for v in variants if (fitted := _fit(name, v, small)) is not None]


def _fit(name: str, options: dict[str, Any], small: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``options`` if the game accepts them, else completed by one small integer option."""
    candidates = [options] + [
        {**options, spec["name"]: value}
        for spec in small
        if spec["name"] not in options
        for value in range(spec["min"], spec["max"] + 1)
    ]
    for candidate in candidates:
        try:
            cardhouse.new_game(name, **candidate)
        except cardhouse.InvalidOptionError:
            continue
        return candidate
    return None


GAME_CONFIGS = [
    pytest.param(name, options, id=f"{name}-" + "-".join(f"{k}={v}" for k, v in options.items()))
    for name in cardhouse.list_games()
    for options in option_variants(name)
]

DEAL_CONFIGS = [
    pytest.param(name, {"scope": "deal"}, id=f"{name}-deal") for name in cardhouse.list_games()
]


def play_random(state: cardhouse.State, seed: int, max_steps: int = 1_000_000) -> cardhouse.State:
    """Plays ``state`` to the end with uniformly random legal actions and seeded chance."""
    rng = cardhouse.Rng(seed)
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_random_chance(rng)
        else:
            legal = state.legal_actions()
            state.apply(legal[rng.below(len(legal))])
        steps += 1
        assert steps < max_steps, "game did not end"
    return state


def random_midgame_states(name: str, options: dict[str, Any], seed: int, count: int) -> list[cardhouse.State]:
    """``count`` player-node states from random playouts (including the first decision)."""
    game = cardhouse.new_game(name, **options)
    rng = cardhouse.Rng(seed)
    out: list[cardhouse.State] = []
    while len(out) < count:
        state = game.new_initial_state()
        state.resolve_chance(rng)
        while not state.is_terminal() and len(out) < count:
            if state.is_chance_node():
                state.resolve_chance(rng)
                continue
            if rng.below(4) == 0:
                out.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[rng.below(len(legal))])
    return out
