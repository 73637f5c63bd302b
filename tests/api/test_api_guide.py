"""The REST API guide (docs/api.md) is true: its curl session and its Python session, taken
from the page as written, run against a live server holding the demo project, and print what
the page says they print (dates aside).

The sessions follow import jobs until they finish, so a small in-process worker runs queued
jobs beside the live server, as the Celery worker of ``make run`` would. The test database is
SQLite in memory, whose table locks fail at once instead of waiting, so the worker and the
server take turns: a job runs only between requests.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.db import connection

from annotator.models import Job
from tests.api.helpers import run_queued
from tests.conftest import REPO_ROOT, need

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, databases="__all__")]

GUIDE = REPO_ROOT / "docs" / "api.md"
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def section(heading: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def fenced(text: str, language: str) -> str:
    """The first fenced block of ``language`` in ``text``."""
    match = re.search(rf"^```{language}\n(.*?)^```$", text, re.S | re.M)
    assert match, f"no ```{language} block in the guide's section"
    return match.group(1)


def session_and_output(heading: str, language: str) -> tuple[str, str]:
    text = section(heading)
    return fenced(text, language), fenced(text, "text")


def same_lines(printed: str, shown: str) -> None:
    def normal(s: str) -> list[str]:
        return [DATE.sub("DATE", line.rstrip()) for line in s.strip().splitlines()]

    assert normal(printed) == normal(shown)


class Worker(threading.Thread):
    """Runs queued jobs in this process until stopped (the live server's Celery stand-in),
    never while the server answers a request."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.halt = threading.Event()
        self.turn = threading.Lock()

    def request_started(self, **kwargs) -> None:
        self.turn.acquire()

    def request_finished(self, **kwargs) -> None:
        if self.turn.locked():
            self.turn.release()

    def run(self) -> None:
        try:
            while not self.halt.wait(0.2):
                with self.turn:
                    queued = list(
                        Job.objects.filter(status=Job.Status.QUEUED).values_list("pk", flat=True)
                    )
                    for job_id in queued:
                        run_queued(job_id)
        finally:
            connection.close()


@pytest.fixture
def worker():
    thread = Worker()
    request_started.connect(thread.request_started)
    request_finished.connect(thread.request_finished)
    thread.start()
    yield thread
    thread.halt.set()
    thread.join(timeout=30)
    request_started.disconnect(thread.request_started)
    request_finished.disconnect(thread.request_finished)


@pytest.fixture
def demo():
    call_command("setup_demo", force=True, verbosity=0)  # tests run with DEBUG off


def run(command: list[str], cwd: Path, base: str) -> str:
    env = {**os.environ, "BASE": base}
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_curl_and_python_sessions_print_what_the_guide_shows(
    live_server, demo, worker, tmp_path
):
    need(bool(shutil.which("curl")) and bool(shutil.which("jq")), "curl and jq")
    curl_session, curl_shown = session_and_output("A script session with curl", "sh")
    python_session, python_shown = session_and_output("The same with Python (`requests`)", "python")

    printed = run(["bash", "-euo", "pipefail", "-c", curl_session], tmp_path, live_server.url)
    same_lines(printed, curl_shown)
    exported = sorted(p.name for p in tmp_path.glob("demo-paraphrase-alignment-gold-*"))
    assert [DATE.sub("DATE", name) for name in exported] == [
        "demo-paraphrase-alignment-gold-DATE.jsonl",
        "demo-paraphrase-alignment-gold-mine-DATE.zip",
    ]

    printed = run([sys.executable, "-c", python_session], tmp_path, live_server.url)
    same_lines(printed, python_shown)
    assert Job.objects.filter(kind="import", status=Job.Status.SUCCEEDED).count() == 2
