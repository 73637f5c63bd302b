"""The quick start's embedded setup (no servers): SQLite and Celery's filesystem broker under
GRIDALIGN_VAR_DIR. A real worker runs a job started from another process, and its progress
and result reach the SQLite file. Needs nothing outside the repository, so it always runs."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO_ROOT
from tests.integration.conftest import Worker

pytestmark = pytest.mark.integration

# 12 steps of 0.5 s: the job must still be running when the process that started it has
# exited (Django's start-up and shutdown take seconds on a busy machine), or its progress
# cannot be seen on the way.
START_JOB = (
    "from annotator.jobs.selftest import start_selftest_job; "
    "print(start_selftest_job(project=None, user=None, steps=12, delay=0.5).pk)"
)


def manage(env: dict[str, str], *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_worker_on_sqlite_and_the_filesystem_broker_runs_a_job(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "SECRET_KEY")
    }
    env.update(GRIDALIGN_VAR_DIR=str(tmp_path), DEBUG="true", PYTHONUNBUFFERED="1")
    manage(env, "migrate", "--noinput", "-v", "0")
    worker = Worker(queue="celery", pool="prefork", env=env)
    try:
        worker.wait_ready()
        job_id = int(manage(env, "shell", "--no-imports", "-c", START_JOB).split()[-1])
        seen: list[tuple[str, int]] = []
        with sqlite3.connect(tmp_path / "gridalign.sqlite3", timeout=10) as db:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                row = db.execute(
                    "SELECT status, progress, result FROM annotator_job WHERE id = ?", (job_id,)
                ).fetchone()
                if not seen or seen[-1] != row[:2]:
                    seen.append(row[:2])
                if row[0] in ("succeeded", "failed"):
                    break
                time.sleep(0.03)
        assert seen[-1] == ("succeeded", 100), f"{seen}\n{worker.log}"
        assert any(status == "running" and 0 < p < 100 for status, p in seen), seen
        assert '"steps": 12' in row[2]
    finally:
        worker.stop()


# A project of 120 made-up pairs, seeded in chunks of 50, from another process.
START_CHUNKED_SEED = (
    "from annotator.models import Project; "
    "from annotator.seeding.services import start_seed_job; "
    "from tests.app.test_seeding_chunked import made_up_pairs; "
    "p = Project.objects.create(name='big', source_language='xx', target_language='yy'); "
    "made_up_pairs(p, 120); "
    "print(start_seed_job(project=p, user=None, use_gold=False).pk)"
)


def test_a_chunked_seeding_runs_its_chords_on_the_filesystem_broker(tmp_path):
    """``make run``'s shape: the chords of a chunked seeding are joined through Celery's file
    result backend under var/ (no Redis)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "SECRET_KEY")
    }
    env.update(GRIDALIGN_VAR_DIR=str(tmp_path), DEBUG="true", PYTHONUNBUFFERED="1",
               SEED_CHUNK_PAIRS="50")  # fmt: skip
    manage(env, "migrate", "--noinput", "-v", "0")
    worker = Worker(queue="celery", pool="prefork", env=env, concurrency=2)
    try:
        worker.wait_ready()
        job_id = int(manage(env, "shell", "--no-imports", "-c", START_CHUNKED_SEED).split()[-1])
        with sqlite3.connect(tmp_path / "gridalign.sqlite3", timeout=10) as db:
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                row = db.execute(
                    "SELECT status, result, error FROM annotator_job WHERE id = ?", (job_id,)
                ).fetchone()
                if row[0] in ("succeeded", "failed"):
                    break
                time.sleep(0.1)
            seeds = db.execute("SELECT count(*) FROM annotator_seedalignment").fetchone()[0]
        assert row[0] == "succeeded", f"{row}\n{worker.log}"
        assert '"align_chunks": 3' in row[1], row[1]
        assert seeds == 120
    finally:
        worker.stop()
