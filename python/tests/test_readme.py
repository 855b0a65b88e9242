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
