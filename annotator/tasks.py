"""Celery tasks. One runs jobs: it takes a job id and runs that job's work through the runner
(``annotator.jobs.runner.run_job``), which keeps the Job row (status, progress, heartbeat,
result, error) up to date. Which work a kind runs is registered by its feature at start-up
(``annotator.jobs.registry``); a new kind of job costs one ``register`` call and no task here.
The other is housekeeping, scheduled by Celery beat (``CELERY_BEAT_SCHEDULE`` in the settings):
the sweep that fails jobs whose worker died.

The seeding parts' tasks (``seed_*``) each call one function of ``annotator.seeding.
chunked_steps``, imported in the task's body (the worker's modules load lazily).

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


# The parts of a chunked seeding (``annotator.seeding.chunked``): each is idempotent, so a
# part whose worker dies is requeued and runs again elsewhere (acknowledged late, rejected back
# to the queue when its worker is lost). They store their (empty) result, which is how a chord
# knows its header is done. Not ``JobTask``s: a part's lost worker retries it, not fails it.
_SEED_PART = {"acks_late": True, "reject_on_worker_lost": True, "ignore_result": False}


@shared_task(name="annotator.tasks.seed_estep", **_SEED_PART)
def seed_estep_task(job_id: int, step: int, chunk: int, direction: int) -> None:
    from annotator.seeding.chunked_steps import estep

    estep(job_id, step, chunk, direction)


@shared_task(name="annotator.tasks.seed_mstep", **_SEED_PART)
def seed_mstep_task(job_id: int, step: int) -> None:
    from annotator.seeding.chunked_steps import mstep

    mstep(job_id, step)


@shared_task(name="annotator.tasks.seed_fit", **_SEED_PART)
def seed_fit_task(job_id: int) -> None:
    from annotator.seeding.chunked_steps import fit

    fit(job_id)


@shared_task(name="annotator.tasks.seed_align", **_SEED_PART)
def seed_align_task(job_id: int, chunk: int) -> None:
    from annotator.seeding.chunked_steps import align

    align(job_id, chunk)


@shared_task(name="annotator.tasks.seed_publish", **_SEED_PART)
def seed_publish_task(job_id: int) -> None:
    from annotator.seeding.chunked_steps import publish

    publish(job_id)


@shared_task(name="annotator.tasks.fail_stale_jobs", ignore_result=True)
def fail_stale_jobs_task() -> int:
    """Fail running jobs whose heartbeat stopped (their worker died); returns how many."""
    return fail_stale_jobs()
