"""``manage.py rundev`` runs Celery beat embedded in its worker: a job whose worker died is
failed by the periodic sweep (not by anyone reading it), and one Ctrl-C still stops the web
server, the worker and beat, leaving no process behind. Embedded setup (SQLite, filesystem
broker under a temporary GRIDALIGN_VAR_DIR), so it needs nothing outside the repository."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.integration.test_worker_embedded import manage

pytestmark = pytest.mark.integration

MAKE_STALE_JOB = (
    "from datetime import timedelta; from django.utils import timezone; "
    "from annotator.models import Job; "
    "t = timezone.now() - timedelta(minutes=10); "
    "print(Job.objects.create(kind='selftest', status='running', started_at=t, "
    "heartbeat_at=t).pk)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc), so we can check none outlives rundev."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(predicate, *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def test_rundev_beat_sweeps_a_stale_job_and_ctrl_c_stops_everything(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "SECRET_KEY")
    }
    env.update(
        GRIDALIGN_VAR_DIR=str(tmp_path),
        DEBUG="true",
        PYTHONUNBUFFERED="1",
        JOB_STALE_AFTER="5",
        JOB_SWEEP_EVERY="5",
    )

    manage(env, "migrate", "--noinput", "-v", "0")
    log = tmp_path / "rundev.log"
    with log.open("w") as sink:
        rundev = subprocess.Popen(
            [sys.executable, "manage.py", "rundev", "--port", str(free_port())],
            cwd=REPO_ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(
            lambda: " ready." in log.read_text() and "beat: Starting" in log.read_text(),
            timeout=90,
            what="the worker and its embedded beat to start",
        )
        # created after the worker's start-up sweep: only beat's periodic sweep can fail it
        job_id = int(manage(env, "shell", "--no-imports", "-c", MAKE_STALE_JOB).split()[-1])

        def job() -> tuple[str, str]:
            with sqlite3.connect(tmp_path / "gridalign.sqlite3", timeout=10) as db:
                return db.execute(
                    "SELECT status, error FROM annotator_job WHERE id = ?", (job_id,)
                ).fetchone()

        wait_for(lambda: job()[0] == "failed", timeout=45, what="beat's sweep to fail the job")
        assert "No heartbeat since" in job()[1]

        below = descendants(rundev.pid)
        assert len(below) >= 3, below  # runserver, the worker and (at least) beat
        rundev.send_signal(signal.SIGINT)  # Ctrl-C
        assert rundev.wait(timeout=30) == 0, log.read_text()[-3000:]
        assert "Stopped." in log.read_text()
        wait_for(
            lambda: not [pid for pid in below if alive(pid)],
            timeout=10,
            what="every process of rundev to end",
        )
    finally:
        if rundev.poll() is None:  # the test failed: leave nothing running
            for pid in descendants(rundev.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            os.killpg(rundev.pid, signal.SIGKILL)
            rundev.wait()
