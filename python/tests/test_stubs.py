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


def test_stubs_carry_the_docstrings() -> None:
    """IDE hovers read the stubs: each documented item of the extension has its docstring
    there, identical to the runtime one (scripts/stub_docstrings.py copies them)."""
    import ast
    import importlib.util

    script = Path(__file__).resolve().parents[2] / "scripts" / "stub_docstrings.py"
    stub = PACKAGE / "_core.pyi"
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    documented = {
        node.name: ast.get_docstring(node, clean=True)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }
    for name in ("new_game", "State", "Game", "VectorEnv", "observation_string", "apply"):
        assert documented.get(name), f"{name} has no docstring in the stub"
    assert documented["State"] == inspect.cleandoc(core.State.__doc__ or "")
    if script.is_file():
        spec = importlib.util.spec_from_file_location("stub_docstrings", script)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        source = stub.read_text(encoding="utf-8")
        assert module.render(source) == source, "stale stub docstrings: run scripts/stub_docstrings.py"
