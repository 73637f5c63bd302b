"""``{% job_failure job request.user as failure %}``: what a job's box shows of a failure to
this user — the traceback for staff and the project's leads, else the one-line reason."""

from __future__ import annotations

from typing import Any

from django import template

from annotator.models import Job
from annotator.selectors import jobs as job_selectors

register = template.Library()


@register.simple_tag
def job_failure(job: Job, user: Any) -> str:
    if job.status != Job.Status.FAILED:
        return ""
    if job.error and job_selectors.can_see_traceback(job=job, user=user):
        return job.error
    return job_selectors.failure_reason(job=job) or ""
