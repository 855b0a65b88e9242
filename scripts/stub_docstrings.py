"""Copies the docstrings of the built native module into its stubs (python/cardhouse/_core.pyi),
so that IDE hovers show them; docstrings are written once, on the PyO3 items.

    python scripts/stub_docstrings.py          # rewrite the stubs in place
    python scripts/stub_docstrings.py --check  # exit 1 if the stubs' docstrings are stale

Needs the built `cardhouse` package (e.g. `pip install ./python`). Dunder methods keep `...`.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

STUB = Path(__file__).resolve().parents[1] / "python" / "cardhouse" / "_core.pyi"


def runtime_doc(path: list[str]) -> str | None:
    """The docstring of `cardhouse._core.<path>` (class, function, method or property)."""
    import cardhouse._core as core

    obj: object = core
    for i, part in enumerate(path):
        if part.startswith("__") and part.endswith("__"):
            return None
        obj = inspect.getattr_static(obj, part) if i else getattr(obj, part)
    doc = getattr(obj, "__doc__", None)
    return inspect.cleandoc(doc) if doc else None


def quoted(doc: str, indent: str) -> str:
    lines = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').splitlines()
    if len(lines) == 1:
        return f'{indent}"""{lines[0]}"""'
    body = "\n".join(f"{indent}{line}" if line else "" for line in lines[1:])
    return f'{indent}"""{lines[0]}\n{body}\n{indent}"""'


def render(source: str) -> str:
    """The stub source with every documented item's docstring set from the runtime."""
    tree = ast.parse(source)
    lines = source.splitlines()
    edits: list[tuple[int, int, list[str]]] = []  # (first line, last line, replacement), 0-based

    def visit(node: ast.AST, path: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                continue
            here = [*path, child.name]
            doc = runtime_doc(here)
            body = child.body
            has_doc = (
                isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            )
            if isinstance(child, ast.ClassDef):
                visit(child, here)
            if doc is None:
                continue
            indent = " " * (child.col_offset + 4)
            first = body[0]
            if isinstance(child, ast.FunctionDef) or first.lineno == child.lineno:
                # `def f(...) -> X: ...` (the signature may span lines) or `class E(B): ...`.
                if has_doc:
                    edits.append((first.lineno - 1, first.end_lineno - 1, [quoted(doc, indent)]))
                    continue
                last = first.end_lineno - 1
                cut = lines[last].rstrip()[: -len("...")].rstrip()
                edits.append((last, last, [cut, quoted(doc, indent)]))
            elif has_doc:
                edits.append((first.lineno - 1, first.end_lineno - 1, [quoted(doc, indent)]))
            else:
                # Before the first statement, or before its decorators (`@property`).
                start = min(
                    [first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))]
                )
                edits.append((start - 1, start - 2, [quoted(doc, indent)]))

    visit(tree, [])
    for first, last, new in sorted(edits, reverse=True):
        lines[first : last + 1] = new
    return "\n".join(lines) + "\n"


def main() -> int:
    source = STUB.read_text(encoding="utf-8")
    new = render(source)
    if "--check" in sys.argv:
        if new != source:
            print(f"{STUB} has stale docstrings: run python scripts/stub_docstrings.py")
            return 1
        return 0
    STUB.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
