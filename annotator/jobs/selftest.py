"""The self-test job: proves a worker runs jobs and reports live progress, and (in fault tests)
fails or dies on request. Registered as job kind ``selftest``."""

from __future__ import annotations

import logging
import os
import signal
import time
from typing import Any

from annotator.jobs.registry import JobKind, register
from annotator.jobs.runner import JobReporter
from annotator.jobs.services import start_job
from annotator.models import Job, Project

logger = logging.getLogger(__name__)

SELFTEST_MAX_STEPS = 1000
SELFTEST_MAX_DELAY = 5.0


def start_selftest_job(
    *,
    project: Project | None,
    user: Any,
    steps: int = 20,
    delay: float = 0.1,
    fail_at: int | None = None,
    die_at: int | None = None,
    die_how: str = "kill",
) -> Job:
    """Queue the self-test: count through ``steps`` steps of ``delay`` seconds, reporting
    progress. ``fail_at`` raises at that step; ``die_at`` ends the worker process there
    (``die_how`` "kill" = SIGKILL, "exit" = ``os._exit``) — only ever inside a real worker."""
    if not 1 <= steps <= SELFTEST_MAX_STEPS:
        raise ValueError(f"steps must be between 1 and {SELFTEST_MAX_STEPS}")
    if not 0 <= delay <= SELFTEST_MAX_DELAY:
        raise ValueError(f"delay must be between 0 and {SELFTEST_MAX_DELAY} seconds")
    if die_how not in ("kill", "exit"):
        raise ValueError("die_how must be 'kill' or 'exit'")
    params: dict[str, Any] = {"steps": steps, "delay": delay}
    if fail_at is not None:
        params["fail_at"] = int(fail_at)
    if die_at is not None:
        params.update(die_at=int(die_at), die_how=die_how)
    return start_job(kind="selftest", project=project, user=user, params=params)


def selftest_work(job: Job, reporter: JobReporter) -> dict[str, Any]:
    """The self-test's work: proves a worker runs jobs and reports live progress."""
    steps = int(job.params.get("steps", 20))
    delay = float(job.params.get("delay", 0.1))
    fail_at = job.params.get("fail_at")
    die_at = job.params.get("die_at")
    started = time.monotonic()
    progress = reporter.as_progress()  # fraction 0–1, as every other job's work reports
    progress(0.0, f"Counting to {steps}")
    for step in range(1, steps + 1):
        if step == die_at:
            _die(job.params.get("die_how", "kill"))
        if step == fail_at:
            raise RuntimeError(f"self-test failure requested at step {step}")
        time.sleep(delay)
        progress(step / steps, "")
    progress(1.0, f"Counted to {steps}")
    return {"steps": steps, "pid": os.getpid(), "seconds": round(time.monotonic() - started, 3)}


def _die(how: str) -> None:
    from celery import current_task

    if (
        current_task is None
        or current_task.request.is_eager
        or current_task.request.called_directly
    ):
        raise RuntimeError("refusing to end a process that is not a Celery worker")
    logger.warning("self-test: ending worker process %s (%s) as asked", os.getpid(), how)
    if how == "exit":
        os._exit(17)
    os.kill(os.getpid(), signal.SIGKILL)


def register_job_kinds() -> None:
    register(JobKind("selftest", selftest_work))
