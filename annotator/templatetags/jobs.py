"""What a job's box shows: ``{% job_failure job request.user as failure %}``, a failure as this
user may see it (the traceback for staff and the project's leads, else the one-line reason),
and ``{% job_summary job as summary %}``, a succeeded job's result in words."""

from __future__ import annotations

from typing import Any

from django import template

from annotator.jobs import selectors as job_selectors
from annotator.models import Job

register = template.Library()


@register.simple_tag
def job_failure(job: Job, user: Any) -> str:
    if job.status != Job.Status.FAILED:
        return ""
    if job.error and job_selectors.can_see_traceback(job=job, user=user):
        return job.error
    return job_selectors.failure_reason(job=job) or ""


@register.simple_tag
def job_summary(job: Job) -> str:
    return job_selectors.result_summary(job=job) or ""
