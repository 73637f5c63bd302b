"""What a job's box shows: ``{% job_failure job request.user as failure %}``, a failure as this
user may see it (the traceback for staff and the project's leads, else the one-line reason),
``{% job_summary job request.user as summary %}``, a succeeded job's result in words, and
``{% job_result job request.user as result %}``, the result if this user may see it."""

from __future__ import annotations

from typing import Any

from django import template

from annotator.common.plain_words import in_plain_words
from annotator.jobs import selectors as job_selectors
from annotator.jobs.results import can_see_result, visible_result
from annotator.models import Job

register = template.Library()


@register.simple_tag
def job_failure(job: Job, user: Any) -> str:
    if job.status != Job.Status.FAILED:
        return ""
    if job.error and job_selectors.can_see_traceback(job=job, user=user):
        return in_plain_words(job.error)
    return job_selectors.failure_reason(job=job) or ""


@register.filter
def plain_words(text: str) -> str:
    """A job's message with the command-line options it names put as the pages name them."""
    return in_plain_words(text or "")


@register.simple_tag
def job_summary(job: Job, user: Any) -> str:
    if not can_see_result(job=job, user=user):
        return ""
    return job_selectors.result_summary(job=job) or ""


@register.simple_tag
def job_result(job: Job, user: Any) -> Any:
    """The job's result if ``user`` may see it (annotator.jobs.results), else None."""
    return visible_result(job=job, user=user)
