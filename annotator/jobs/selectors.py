"""Reads of Job rows, and nothing else: a job whose worker died is failed by the sweep
(``annotator.jobs.runner.fail_stale_jobs``) at worker start and every minute from Celery beat,
never by a page or an API call that merely looks at it."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from annotator.common.plain_words import in_plain_words
from annotator.jobs.registry import summary_for
from annotator.jobs.results import can_see_result, visible_result
from annotator.models import Job, Membership, Project


def visible_jobs(*, user: Any) -> QuerySet[Job]:
    """Jobs ``user`` may see: staff all; others their own and those of their projects."""
    if not getattr(user, "is_authenticated", False):
        return Job.objects.none()
    jobs = Job.objects.select_related("project")
    if user.is_staff:
        return jobs
    projects = Membership.objects.filter(user=user).values("project_id")
    return jobs.filter(Q(project_id__in=projects) | Q(created_by=user))


def get_job(*, job_id: int, user: Any) -> Job | None:
    """The job if it exists and ``user`` may see it, else None."""
    return visible_jobs(user=user).filter(pk=job_id).first()


def project_jobs(*, project: Project, limit: int = 10) -> list[Job]:
    """The project's most recent jobs, newest first."""
    return list(project.jobs.order_by("-created_at", "-id")[:limit])


def can_see_traceback(*, job: Job, user: Any) -> bool:
    """A failed job's traceback names server paths and code: staff and the project's leads
    see it (a job without a project: its creator); annotators get the one-line reason."""
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff:
        return True
    if job.project_id is None:
        return job.created_by_id == user.pk
    return Membership.objects.filter(
        project_id=job.project_id, user=user, role=Membership.Role.LEAD
    ).exists()


def failure_reason(*, job: Job) -> str | None:
    """A failed job's reason in one line, without traceback: the first line of ``error`` (it
    starts with ``Type: message``), else the message. None unless the job failed."""
    if job.status != Job.Status.FAILED:
        return None
    lines = (job.error or "").strip().splitlines()
    return in_plain_words(lines[0] if lines else job.message)[:500]


def result_summary(*, job: Job) -> str | None:
    """A succeeded job's result in words (the summary its kind registered), or None."""
    summarise = summary_for(job.kind)
    if job.status != Job.Status.SUCCEEDED or summarise is None or not isinstance(job.result, dict):
        return None
    return summarise(job.result)


def job_state(*, job: Job, user: Any) -> dict[str, Any]:
    """What the browser's progress bar shows of a job to ``user``: ``reason`` (one line) to
    everyone, ``error`` (with its traceback) only to those :func:`can_see_traceback` allows."""

    def iso(value):
        return value.isoformat() if value else None

    return {
        "id": job.pk,
        "kind": job.kind,
        "project": job.project_id,
        "status": job.status,
        "finished": job.is_finished,
        "progress": job.progress,
        "message": in_plain_words(job.message),
        "reason": failure_reason(job=job),
        "error": in_plain_words(job.error or "") or None
        if can_see_traceback(job=job, user=user)
        else None,
        "result": visible_result(job=job, user=user),  # the blind rule (job_results.py)
        "summary": result_summary(job=job) if can_see_result(job=job, user=user) else None,
        "created_at": iso(job.created_at),
        "started_at": iso(job.started_at),
        "heartbeat_at": iso(job.heartbeat_at),
        "finished_at": iso(job.finished_at),
    }
