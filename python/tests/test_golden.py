"""Golden playthroughs (tests/golden/*.json at the repository root) replayed through Python:
legal actions, action texts, the acting seat's views, final returns, history and the
omniscient view must agree with what the engine recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import cardhouse

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "tests" / "golden"
FILES = sorted(GOLDEN_DIR.glob("*.json"))


def test_golden_files_exist() -> None:
    if not FILES:
        pytest.skip(f"no golden playthroughs in {GOLDEN_DIR} yet")
    assert all(p.stat().st_size > 0 for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_playthrough(path: Path) -> None:
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert record["format"] == "cardhouse-golden/1"
    game = cardhouse.new_game(record["game"], **record["options"])
    state = game.new_initial_state()
    for step in record["steps"]:
        where = f"{path.name} move {step['move']}"
        assert state.move_number() == step["move"], where
        assert state.current_player == step["player"], where
        assert state.legal_actions() == step["legal_actions"], where
        assert state.action_to_string(step["action"]) == step["text"], where
        if "view" in step:
            assert state.view(step["player"]) == step["view"], where
        state.apply(step["action"])
    final = record["final"]
    assert state.is_terminal()
    assert state.returns() == final["returns"]
    assert state.history() == final["history"]
    assert state.view(omniscient=True) == final["view"]
    assert game.replay(final["history"]).to_bytes() == state.to_bytes()
