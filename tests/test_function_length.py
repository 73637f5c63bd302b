"""Functions a reader can hold: no function in ``annotator/`` runs over 60 lines (its docstring
not counted) unless a comment line starting ``# long:`` right above it (or above its first
decorator) says why."""

from __future__ import annotations

import ast
from pathlib import Path

LIMIT = 60
ROOT = Path(__file__).resolve().parent.parent / "annotator"


def function_lengths(source: str) -> list[tuple[str, int, int, bool]]:
    """(name, line, length without docstring, has a ``# long:`` reason) of every function."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        length = node.end_lineno - node.lineno + 1
        first = node.body[0]
        docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        if docstring and isinstance(first.value.value, str):
            length -= first.end_lineno - first.lineno + 1
        top = min([d.lineno for d in node.decorator_list] + [node.lineno])
        reason = top >= 2 and lines[top - 2].lstrip().startswith("# long:")
        found.append((node.name, node.lineno, length, reason))
    return found


def test_no_long_function_without_a_reason():
    long = [
        f"{path.relative_to(ROOT.parent)}:{line} {name} ({length} lines)"
        for path in sorted(ROOT.rglob("*.py"))
        if "migrations" not in path.parts
        for name, line, length, reason in function_lengths(path.read_text())
        if length > LIMIT and not reason
    ]
    assert long == []


def test_the_measure_counts_lines_and_honours_a_reason():
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT + 1))
    plain = f'def f():\n    """Doc."""\n{body}\n'
    reasoned = f"# long: a table of constants\ndef g():\n{body}\n"
    assert function_lengths(plain) == [("f", 1, LIMIT + 2, False)]
    assert function_lengths(reasoned) == [("g", 2, LIMIT + 2, True)]
