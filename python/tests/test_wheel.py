"""The abi3 wheel installs into a fresh virtual environment without a Rust toolchain and runs
the README's Python example: a user needs no Rust to install cardhouse from a wheel.

``scripts/test-all.sh`` builds the wheel with maturin into a temporary directory and passes
its path in ``CARDHOUSE_WHEEL``; without it this test is skipped.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

WHEEL = os.environ.get("CARDHOUSE_WHEEL")
README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.skipif(not WHEEL, reason="set CARDHOUSE_WHEEL to a built wheel (test-all.sh does)")
def test_the_abi3_wheel_runs_the_readme_example_without_rust(tmp_path: Path) -> None:
    wheel = Path(WHEEL or "")
    assert wheel.is_file(), wheel
    assert "-cp310-abi3-" in wheel.name, f"not an abi3 wheel for CPython >= 3.10: {wheel.name}"
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # PATH without any directory holding a Rust toolchain or a build backend (the test
    # environment's own venv has maturin), and no Cargo/rustup variables.
    tools = ("cargo", "rustc", "rustup", "maturin")
    rust_free = [
        p
        for p in os.environ.get("PATH", "").split(os.pathsep)
        if p and not any((Path(p) / tool).exists() for tool in tools)
    ]
    path = os.pathsep.join([str(python.parent), *rust_free])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARGO", "RUSTUP", "RUST"))}
    env.update(PATH=path, PYTHONNOUSERSITE="1")
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    for tool in tools:
        assert shutil.which(tool, path=path) is None, f"{tool} is on the test's PATH"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        env=env,
        check=True,
    )
    if not README.is_file():
        pytest.skip("README.md is not above the tests")
    text = README.read_text(encoding="utf-8")
    example = re.search(r"## Python\n.*?```python\n(.*?)```", text, re.S)
    assert example, "the README's Python example"
    result = subprocess.run(
        [str(python), "-c", example.group(1)],
        env=env,
        cwd=tmp_path,  # away from the source tree: the installed wheel is imported
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "[" in result.stdout
    where = subprocess.run(
        [str(python), "-c", "import cardhouse._core as c; print(c.__file__)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.strip().endswith("_core.abi3.so") and str(env_dir) in where
    assert sys.version_info >= (3, 9)
