"""Celery tasks. One runs jobs: it takes a job id and runs that job's work through ``run_job``,
which keeps the Job row (status, progress, heartbeat, result, error) up to date. Which work a
job kind runs is said once, in ``annotator.jobs.runner.JOB_KINDS``; a new kind of job costs
one entry there and no task here. The other is housekeeping, scheduled by Celery beat
(``CELERY_BEAT_SCHEDULE`` in the settings): the sweep that fails jobs whose worker died.

Direction (HackSoft): the jobs service imports this module at its top; this module imports the
service only inside the task's body.
"""

from __future__ import annotations

from celery import Task, shared_task


class JobTask(Task):
    """Base of tasks whose first argument is a Job id. The worker-lost handler
    (``annotator.signals``) fails the job when the process running such a task dies."""

    job_task = True


@shared_task(base=JobTask, name="annotator.tasks.run_job")
def run_job_task(job_id: int) -> None:
    from annotator.jobs import runner as jobs

    jobs.run_job(job_id)


@shared_task(name="annotator.tasks.fail_stale_jobs", ignore_result=True)
def fail_stale_jobs_task() -> int:
    """Fail running jobs whose heartbeat stopped (their worker died); returns how many."""
    from annotator.jobs import runner as jobs

    return jobs.fail_stale_jobs()
