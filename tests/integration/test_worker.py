"""Jobs through a real Celery worker, Redis and PostgreSQL: live progress reaches the database
while the task runs, and a task whose process is killed leaves its job failed with a reason."""

from __future__ import annotations

import os
import time

import pytest
from django.utils import timezone

from annotator.jobs.selftest import start_selftest_job
from annotator.models import Job
from tests.integration.conftest import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def watch(job: Job, *, timeout: float) -> list[tuple[str, int]]:
    """Poll the job until it is finished; return every (status, progress) seen, in order."""
    seen: list[tuple[str, int]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        state = (job.status, job.progress)
        if not seen or seen[-1] != state:
            seen.append(state)
        if job.is_finished:
            return seen
        time.sleep(0.02)
    pytest.fail(f"job still {job.status} at {job.progress}% after {timeout} s: {seen}")


def test_a_worker_reports_live_progress_through_redis(start_worker):
    worker = start_worker(pool="prefork")
    job = start_selftest_job(project=None, user=None, steps=20, delay=0.1)
    seen = watch(job, timeout=30)
    assert seen[-1] == ("succeeded", 100), worker.log
    intermediate = {p for status, p in seen if status == "running" and 0 < p < 100}
    assert len(intermediate) >= 3, f"saw only {seen}"
    assert [p for _, p in seen] == sorted(p for _, p in seen)  # progress only grows
    assert job.result["steps"] == 20
    assert job.result["pid"] != os.getpid()  # it ran in the worker, not here
    assert job.message == "Counted to 20"
    assert job.started_at and job.finished_at and job.heartbeat_at


def test_a_killed_pool_process_fails_its_job_and_the_worker_carries_on(start_worker):
    worker = start_worker(pool="prefork")
    job = start_selftest_job(
        project=None, user=None, steps=50, delay=0.05, die_at=10, die_how="kill"
    )
    seen = watch(job, timeout=30)
    assert any(status == "running" for status, _ in seen), seen
    assert job.status == "failed", worker.log
    assert job.message == "Failed: worker lost"
    assert "died" in job.error and ("SIGKILL" in job.error or "signal 9" in job.error), job.error

    # the worker replaces its pool process and runs the next job
    after = start_selftest_job(project=None, user=None, steps=3, delay=0)
    assert watch(after, timeout=30)[-1] == ("succeeded", 100), worker.log


def test_a_killed_worker_leaves_a_stale_job_that_the_next_worker_fails(start_worker):
    stale_after = 5
    dead = start_worker(pool="solo", JOB_STALE_AFTER=str(stale_after))
    job = start_selftest_job(project=None, user=None, steps=50, delay=0.05, die_at=8)
    wait_for(lambda: dead.process.poll() is not None, timeout=30, what="the worker to die")
    job.refresh_from_db()
    assert job.status == "running"  # nobody is left to say otherwise...
    last_beat = job.heartbeat_at

    # ...until its heartbeat is older than JOB_STALE_AFTER and a worker starts
    time.sleep(max(0.0, stale_after + 0.5 - (timezone.now() - last_beat).total_seconds()))
    start_worker(pool="prefork", JOB_STALE_AFTER=str(stale_after))
    wait_for(
        lambda: Job.objects.filter(pk=job.pk, status="failed").exists(),
        timeout=10,
        what="the new worker to fail the stale job",
    )
    job.refresh_from_db()
    assert job.message == "Failed: worker lost"
    assert f"No heartbeat since {last_beat.isoformat(timespec='seconds')}" in job.error
