"""Celery signal handlers that keep Job rows honest when a worker dies (connected in
``AnnotatorConfig.ready``)."""

from __future__ import annotations

import logging
from typing import Any

from celery.signals import task_failure, worker_ready

logger = logging.getLogger(__name__)


@worker_ready.connect
def fail_stale_jobs_at_worker_start(**_: Any) -> None:
    """Jobs left running by a worker that was killed are failed when a worker starts."""
    from annotator.services.jobs import fail_stale_jobs

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

    from annotator.services.jobs import fail_job

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
