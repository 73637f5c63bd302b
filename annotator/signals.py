"""Celery signal handlers (connected in ``AnnotatorConfig.ready``): they keep Job rows honest
when a worker dies, and have a worker read the seed model's resources as it starts."""

from __future__ import annotations

import logging
import time
from typing import Any

from celery.signals import task_failure, worker_init, worker_ready
from django.conf import settings

from annotator.jobs.runner import fail_job, fail_stale_jobs

logger = logging.getLogger(__name__)


@worker_init.connect
def preload_seed_model(**_: Any) -> dict[str, float] | None:
    """Import scikit-learn and read the installed resources of the supervised seed model once,
    in the worker's main process before its pool forks (``SEED_MODEL_PRELOAD``): the pool's
    processes share them, and the first retrain does not wait 2–3 s for them."""
    if not settings.SEED_MODEL_PRELOAD:
        return None
    from alignment_core.aligner.link_model import preload

    start = time.perf_counter()
    try:
        seconds = preload()
    except Exception:  # a broken resource fails the seed job that reads it, with its message
        logger.exception("could not preload the seed model's resources")
        return None
    logger.info(
        "seed model preloaded in %.1f s (%s)",
        time.perf_counter() - start,
        ", ".join(f"{key} {value:.1f} s" for key, value in seconds.items()),
    )
    return seconds


@worker_ready.connect
def fail_stale_jobs_at_worker_start(**_: Any) -> None:
    """Jobs left running by a worker that was killed are failed when a worker starts."""
    try:
        fail_stale_jobs()
    except Exception:  # never stop a worker from starting over this
        logger.exception("could not check for stale jobs at worker start")


@task_failure.connect
def fail_job_of_failed_task(
    sender: Any = None,
    exception: BaseException | None = None,
    args: Any = None,
    kwargs: Any = None,
    **_: Any,
) -> None:
    """A job task that failed outside ``run_job`` — above all, a pool child killed mid-task
    (WorkerLostError, reported in the worker's main process) — fails its job with the reason."""
    if not getattr(sender, "job_task", False):
        return
    job_id = (args[0] if args else None) or (kwargs or {}).get("job_id")
    if not isinstance(job_id, int):
        return
    from billiard.exceptions import WorkerLostError

    if isinstance(exception, WorkerLostError):
        message = "Failed: worker lost"
        error = (
            f"The worker process running this job died ({exception}); "
            "it may have been killed or run out of memory."
        )
    else:
        message = f"Failed: {type(exception).__name__}"
        error = f"{type(exception).__name__}: {exception}"
    try:
        fail_job(job_id=job_id, message=message, error=error)
    except Exception:
        logger.exception("could not mark job %s failed", job_id)
