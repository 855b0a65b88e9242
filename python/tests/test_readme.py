"""The examples of python/README.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import cardhouse

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks() -> list[str]:
    if not README.is_file():
        return []
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_has_a_ten_line_notebook_example() -> None:
    if not README.is_file():
        pytest.skip("README.md is not next to the tests (installed elsewhere)")
    assert len(blocks()[0].strip().splitlines()) <= 10


def test_readme_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pettingzoo")
    namespace: dict[str, object] = {}
    for i, code in enumerate(blocks()):
        exec(compile(code, str(README), "exec"), namespace)
        if i == 0:
            # The notebook example ends a one-deal game: its scores are the deal's, not 0.
            state = namespace["state"]
            assert isinstance(state, cardhouse.State) and state.is_terminal()
            assert state.view(0)["scores"] != [0, 0]
            assert sum(state.view(0)["scores"]) > 0
    assert "[" in capsys.readouterr().out


def test_readme_reward_bounds_are_max_utility() -> None:
    # The Jass scope="deal" bound the README states is the one the code returns.
    if not README.is_file():
        pytest.skip("README.md is not next to the tests (installed elsewhere)")
    text = README.read_text(encoding="utf-8")
    default = re.search(r"±(\d+) with the defaults", text)
    any_suit = re.search(r"±(\d+) with `stoeck_suits=\"any_suit\"`", text)
    assert default and any_suit, "the README states the Jass bound"
    assert cardhouse.new_game("jass", scope="deal").max_utility() == int(default.group(1))
    assert cardhouse.new_game("jass", scope="deal").min_utility() == -int(default.group(1))
    game = cardhouse.new_game("jass", scope="deal", stoeck_suits="any_suit")
    assert game.max_utility() == int(any_suit.group(1))
