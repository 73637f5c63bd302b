"""Reads of Job rows. Reading first fails stale jobs (``fail_stale_jobs``), so a job whose
worker died shows as failed, with the reason, to whoever looks."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from annotator.models import Job, Membership, Project
from annotator.services.jobs import fail_stale_jobs


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
    fail_stale_jobs()
    return visible_jobs(user=user).filter(pk=job_id).first()


def project_jobs(*, project: Project, limit: int = 10) -> list[Job]:
    """The project's most recent jobs, newest first."""
    fail_stale_jobs()
    return list(project.jobs.order_by("-created_at", "-id")[:limit])


def job_state(*, job: Job) -> dict[str, Any]:
    """What the browser's progress bar and the API show of a job."""

    def iso(value):
        return value.isoformat() if value else None

    return {
        "id": job.pk,
        "kind": job.kind,
        "project": job.project_id,
        "status": job.status,
        "finished": job.is_finished,
        "progress": job.progress,
        "message": job.message,
        "error": job.error,
        "result": job.result,
        "created_at": iso(job.created_at),
        "started_at": iso(job.started_at),
        "heartbeat_at": iso(job.heartbeat_at),
        "finished_at": iso(job.finished_at),
    }
