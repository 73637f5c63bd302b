"""The core must stay usable without the web stack (STYLE: data flows one way)."""

import subprocess
import sys

from tests.conftest import REPO_ROOT

BLOCK_WEB_STACK = """
import sys
for name in ("django", "rest_framework", "celery", "annotator", "gridalign"):
    sys.modules[name] = None  # any import of these now raises ImportError
import alignment_core, alignment_core.formats, alignment_core.agreement, alignment_core.aligner
import alignment_core.cli
alignment_core.cli.build_parser()
print("ok")
"""


def test_core_imports_without_the_web_stack():
    out = subprocess.run(
        [sys.executable, "-c", BLOCK_WEB_STACK], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
