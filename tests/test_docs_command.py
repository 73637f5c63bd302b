"""The README's documentation command works after ``make run`` alone: ``make docs`` installs
what MkDocs needs and serves the site on 127.0.0.1 (``DOCS_PORT``), the README's own pages in it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
import urllib.request

from tests.conftest import REPO_ROOT
from tests.faults.processes import free_port


def test_the_readme_names_make_docs_and_the_makefile_serves_the_site():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "make docs" in readme
    assert "mkdocs serve" not in readme  # a test requirement: absent after `make run` alone
    port = free_port()
    server = subprocess.Popen(
        ["make", "--no-print-directory", "docs", f"DOCS_PORT={port}"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        page = _first_answer(f"http://127.0.0.1:{port}/leads.html", server, deadline=120)
        assert re.search(r"<title>[^<]*Leading a project", page), page[:300]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def _first_answer(url: str, server: subprocess.Popen, deadline: float) -> str:
    """The page at ``url`` once the server answers; fails with its output if it exits."""
    stop = time.monotonic() + deadline
    while time.monotonic() < stop:
        if server.poll() is not None:
            raise AssertionError(server.stdout.read().decode(errors="replace"))
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.read().decode("utf-8")
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"nothing served at {url} in {deadline} s")
