"""Functions a reader can hold: no function in ``alignment_core`` runs over 60 lines unless a
comment line starting with ``# long:`` sits right above its ``def`` (or its first decorator)
and says why it must stay whole."""

from __future__ import annotations

import ast
from pathlib import Path

import alignment_core

LIMIT = 60


def long_functions(root: Path, limit: int = LIMIT) -> list[str]:
    """``path:line name (N lines)`` of every function over ``limit`` lines under ``root``
    without a ``# long:`` reason above it."""
    found = []
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            size = node.end_lineno - node.lineno + 1
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            reason = first >= 2 and lines[first - 2].strip().startswith("# long:")
            if size > limit and not reason:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({size} lines)")
    return found


def test_no_function_over_sixty_lines_without_a_reason():
    assert long_functions(Path(alignment_core.__file__).parent) == []


def test_the_check_counts_lines_and_reads_reasons(tmp_path):
    body = "".join(f"    x{k} = {k}\n" for k in range(LIMIT))
    (tmp_path / "m.py").write_text(
        f"def long():\n{body}\n\n# long: one loop that must stay together\n"
        f"@staticmethod\ndef kept():\n{body}\n\ndef short():\n    return 1\n",
        encoding="utf-8",
    )
    assert long_functions(tmp_path) == [f"m.py:1 long ({LIMIT + 1} lines)"]
