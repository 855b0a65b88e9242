"""Typing and docs: the stubs match the built module (mypy.stubtest) and every public item
has a docstring."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import cardhouse
import cardhouse._core as core

PACKAGE = Path(cardhouse.__file__).parent


def test_stub_and_marker_are_installed() -> None:
    assert (PACKAGE / "_core.pyi").is_file()
    assert (PACKAGE / "py.typed").is_file()


def test_all_matches_core() -> None:
    assert sorted(cardhouse.__all__) == sorted(core.__all__)
    for name in cardhouse.__all__:
        assert getattr(cardhouse, name) is getattr(core, name)


def test_every_public_item_has_a_docstring() -> None:
    missing = []
    for name in core.__all__:
        obj = getattr(core, name)
        if isinstance(obj, (int, str)):
            continue
        if not inspect.getdoc(obj):
            missing.append(name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if not inspect.getdoc(member):
                    missing.append(f"{name}.{attr}")
    assert not missing, f"missing docstrings: {missing}"


def test_stubtest() -> None:
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "cardhouse"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_package_passes_mypy_strict() -> None:
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", "cardhouse"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
