"""An idle web process does not load numba, scipy or scikit-learn (issue 30, finding 5): they
cost ~130 MB of resident memory, and only the worker runs the kernels that need them. A fresh
process sets Django up, resolves every URL (every view module) and loads the task module, as
gunicorn and a request would; the heavy packages must still be absent, and arrive when a
kernel is first used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numba", "scipy", "sklearn")

CHILD = """
import json, sys
import django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns
import annotator.tasks, annotator.api_urls, annotator.urls
heavy = %r
idle = sorted(m for m in heavy if m in sys.modules)
from alignment_core.agreement import score_word
from alignment_core.alignment import Alignment
score_word([(["a"], ["b"], Alignment.from_sets([(0, 0)]), Alignment.from_sets([(0, 0)]))])
print(json.dumps({"idle": idle, "used": "numba" in sys.modules}))
"""


def test_an_idle_web_process_loads_no_kernel_packages():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "gridalign.settings", "DEBUG": "true"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", CHILD % (HEAVY,)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got == {"idle": [], "used": True}
