"""Celery tasks. One runs jobs: it takes a job id and runs that job's work through the runner
(``annotator.jobs.runner.run_job``), which keeps the Job row (status, progress, heartbeat,
result, error) up to date. Which work a kind runs is registered by its feature at start-up
(``annotator.jobs.registry``); a new kind of job costs one ``register`` call and no task here.
The other is housekeeping, scheduled by Celery beat (``CELERY_BEAT_SCHEDULE`` in the settings):
the sweep that fails jobs whose worker died.

Direction: this module imports the runner; nothing imports this module. Jobs are started by
task name (``annotator.jobs.services.start_job`` → ``send_task("annotator.tasks.run_job")``).
"""

from __future__ import annotations

from celery import Task, shared_task

from annotator.jobs.parts import run_part
from annotator.jobs.runner import fail_stale_jobs, run_job


class JobTask(Task):
    """Base of tasks whose first argument is a Job id. The worker-lost handler
    (``annotator.signals``) fails the job when the process running such a task dies."""

    job_task = True


@shared_task(base=JobTask, name="annotator.tasks.run_job")
def run_job_task(job_id: int) -> None:
    run_job(job_id)


@shared_task(base=JobTask, name="annotator.tasks.run_job_part")
def run_job_part_task(job_id: int, key: str) -> None:
    """One part of a job spread over a Celery group (``annotator.jobs.parts``)."""
    run_part(job_id, key)


@shared_task(name="annotator.tasks.fail_stale_jobs", ignore_result=True)
def fail_stale_jobs_task() -> int:
    """Fail running jobs whose heartbeat stopped (their worker died); returns how many."""
    return fail_stale_jobs()
