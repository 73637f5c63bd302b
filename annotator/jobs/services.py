"""Starting jobs (writes): a queued ``Job`` row, then its Celery message, sent once the
transaction commits.

The message is sent *by task name* (``celery_app.send_task``), so no service imports
``annotator.tasks`` and the task module is free to import the runner at its top: the import
graph has one direction, services → jobs ← tasks. Which work a kind runs is looked up in the
registry (``annotator.jobs.registry``), filled by each feature at start-up.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from celery import current_app
from django.db import transaction

from annotator.jobs.registry import job_kind
from annotator.jobs.runner import UNFINISHED, fail_job
from annotator.models import Job, Project

logger = logging.getLogger(__name__)

# The one task that runs every kind of job (``annotator.tasks.run_job_task``), by its name.
RUN_JOB_TASK = "annotator.tasks.run_job"


def start_job(
    *,
    kind: str,
    project: Project | None = None,
    user: Any = None,
    params: dict[str, Any] | None = None,
    task: Any = None,
) -> Job:
    """Create a queued Job of ``kind`` and dispatch it once the transaction commits.

    The worker runs the kind's registered work through the one job task, sent by name
    (``task``, anything with ``apply_async(args=, task_id=)``, replaces it in tests). If the
    broker cannot take the message, the job is failed at once with the reason (it would
    otherwise wait forever as "queued").

    For a kind registered ``one_at_a_time_per_project``, a project's unfinished job of that kind
    is returned instead of a new one. The project row is locked (``SELECT ... FOR UPDATE``) while
    looking, so concurrent requests take turns and all see the one job (PostgreSQL; SQLite
    serialises writers anyway).
    """
    try:
        one_at_a_time = job_kind(kind).one_at_a_time_per_project
    except KeyError:
        if task is None:  # an unknown kind fails here, in the request, not in the worker
            raise
        one_at_a_time = False  # a test's own kind, run by its own task
    params = dict(params or {})
    json.dumps(params)  # fail here, not in the worker, on a non-JSON parameter
    with transaction.atomic():
        if project is not None and one_at_a_time:
            Project.objects.select_for_update().filter(pk=project.pk).values_list("pk").first()
            active = (
                Job.objects.filter(project=project, kind=kind, status__in=UNFINISHED)
                .order_by("created_at", "id")
                .first()
            )
            if active is not None:
                logger.info(
                    "%s job %s of project %s is unfinished: reused", kind, active.pk, project.pk
                )
                return active
        job = Job.objects.create(
            kind=kind,
            project=project,
            created_by=user if getattr(user, "is_authenticated", False) else None,
            params=params,
            celery_task_id=str(uuid.uuid4()),
            message="Waiting for a worker",
        )
        transaction.on_commit(
            lambda: _dispatch(job_id=job.pk, task=task, task_id=job.celery_task_id)
        )
    return job


def send_job_task(*, job_id: int, task_id: str) -> None:
    """Send the job task's message by name. ``send_task`` ignores ``task_always_eager``, so in
    eager mode (tests, ``CELERY_TASK_ALWAYS_EAGER``) the registered task is applied in-process
    instead; the worker's task modules are loaded the way the worker loads them."""
    app = current_app
    if app.conf.task_always_eager:
        if RUN_JOB_TASK not in app.tasks:
            app.loader.import_default_modules()
        app.tasks[RUN_JOB_TASK].apply(args=[job_id], task_id=task_id)
        return
    app.send_task(RUN_JOB_TASK, args=[job_id], task_id=task_id)


def _dispatch(*, job_id: int, task: Any, task_id: str) -> None:
    try:
        if task is None:
            send_job_task(job_id=job_id, task_id=task_id)
        else:
            task.apply_async(args=[job_id], task_id=task_id)
    except Exception as exc:  # broker down or misconfigured: say so on the job
        logger.exception("could not queue job %s", job_id)
        fail_job(
            job_id=job_id,
            message="Could not be queued",
            error=f"The task queue (broker) did not accept the job: {type(exc).__name__}: {exc}",
        )
