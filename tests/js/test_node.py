"""Runs the browser modules' unit tests (tests/js/*.test.mjs) with Node's built-in runner.

Without Node the test skips on a laptop and fails under CI=true (see ``need``).
"""

from __future__ import annotations

import shutil
import subprocess

from tests.conftest import REPO_ROOT, need


def test_node_unit_tests_pass():
    node = shutil.which("node")
    need(bool(node), "Node.js (node --test)")
    files = sorted(
        str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "tests" / "js").glob("*.test.mjs")
    )
    assert files, "no tests/js/*.test.mjs found"
    result = subprocess.run(
        [node, "--test", *files], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    summary = [line for line in result.stdout.splitlines() if line.startswith(("# pass", "# fail"))]
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in summary, summary
