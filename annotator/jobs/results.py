"""Who may see a job's ``result`` and ``params``: one rule for the API (``/api/jobs/``), the job's JSON that
pages poll (``/jobs/<id>/``) and the job boxes on the project page and the dashboard.

A result can hold other people's work (an import's ``links_by_annotator`` counts each
annotator's links; a report holds everyone's agreement), which annotators must not see under the
blind rule. So: staff, the project's leads, and the user who started the job see it; nobody
else (a job without a project: staff and its creator). Everyone who may see the job still sees
its status, progress, message and one-line failure reason.
"""

from __future__ import annotations

from typing import Any

from annotator.models import Job, Membership


def can_see_result(*, job: Job, user: Any, is_lead: bool | None = None) -> bool:
    """True when ``user`` may see ``job.result``. ``is_lead``: whether the user leads the job's
    project, when the caller knows it already (saves a query); None to look it up."""
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff or job.created_by_id == user.pk:
        return True
    if job.project_id is None:
        return False
    if is_lead is None:
        is_lead = Membership.objects.filter(
            project_id=job.project_id, user=user, role=Membership.Role.LEAD
        ).exists()
    return bool(is_lead)


def visible_params(*, job: Job, user: Any, is_lead: bool | None = None) -> Any:
    """``job.params`` (file names, annotators' usernames, options) by the same rule as the
    result: to staff, the project's leads and whoever started the job; else None."""
    return job.params if can_see_result(job=job, user=user, is_lead=is_lead) else None


def visible_result(*, job: Job, user: Any, is_lead: bool | None = None) -> Any:
    """``job.result`` if :func:`can_see_result` allows it, else None."""
    return job.result if can_see_result(job=job, user=user, is_lead=is_lead) else None
