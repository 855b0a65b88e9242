"""The Gymnasium ids of the cardhouse games, registered as soon as both ``cardhouse`` and
``gymnasium`` are imported, in either order, without ``import cardhouse`` importing
Gymnasium.

Gymnasium 1.x has no plugin entry points (its ``gymnasium.envs`` entry-point loader was
removed in 1.0), so a package cannot register ids by metadata alone. ``import cardhouse``
therefore registers them itself: at once if Gymnasium is already imported, else right after
Gymnasium's own import finishes (a one-shot import hook that wraps only Gymnasium's loader).
The ids point at ``cardhouse.gymnasium:CardhouseEnv``, which Gymnasium imports on the first
``gymnasium.make``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Any

ENTRY_POINT = "cardhouse.gymnasium:CardhouseEnv"


def env_id(name: str) -> str:
    """The Gymnasium id of a game: ``"jass"`` → ``"cardhouse/Jass-v0"``."""
    return "cardhouse/" + "".join(part.capitalize() for part in name.split("_")) + "-v0"


def register(gymnasium: ModuleType) -> None:
    """Registers ``cardhouse/<Name>-v0`` for every game not registered yet."""
    from cardhouse._core import list_games

    for name in list_games():
        if env_id(name) not in gymnasium.registry:
            gymnasium.register(id=env_id(name), entry_point=ENTRY_POINT, kwargs={"name": name})


class _AfterGymnasium(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader that the other finders give ``gymnasium`` so
    that the ids are registered once Gymnasium's ``__init__`` has run, then steps aside."""

    def find_spec(
        self, fullname: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        _remove_hook()
        spec = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is not None:
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_and_register(module: ModuleType) -> None:
            exec_module(module)
            try:
                register(module)
            except Exception as e:  # never break Gymnasium's import
                warnings.warn(f"cardhouse could not register its Gymnasium ids: {e}", stacklevel=2)

        loader.exec_module = exec_and_register
        return spec


_HOOK = _AfterGymnasium()


def _remove_hook() -> None:
    if _HOOK in sys.meta_path:
        sys.meta_path.remove(_HOOK)


def install() -> None:
    """Registers now if Gymnasium is imported, else once it is (no-op if it never is)."""
    gymnasium = sys.modules.get("gymnasium")
    if gymnasium is not None and hasattr(gymnasium, "registry"):
        register(gymnasium)
    elif _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)
