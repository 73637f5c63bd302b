"""Celery tasks. Each is thin: it takes a job id and runs one service through ``run_job``, which
keeps the Job row (status, progress, heartbeat, result, error) up to date."""

from __future__ import annotations

from celery import Task, shared_task

from annotator.services import jobs


class JobTask(Task):
    """Base of tasks whose first argument is a Job id. The worker-lost handler
    (``annotator.signals``) fails the job when the process running such a task dies."""

    job_task = True


@shared_task(base=JobTask, name="annotator.tasks.selftest")
def selftest(job_id: int) -> None:
    jobs.run_job(job_id, jobs.selftest_work)


@shared_task(base=JobTask, name="annotator.tasks.seed_project")
def seed_project(job_id: int) -> None:
    from annotator.services.seeding import seed_work

    jobs.run_job(job_id, seed_work)
