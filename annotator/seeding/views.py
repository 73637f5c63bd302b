"""The seeding feature's page action: a lead starts a seeding run (a job) from the project page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from annotator.jobs.views import _error, lead_starts_job
from annotator.models import Job, Project
from annotator.seeding import services as seeding


@lead_starts_job
def start_seeding(request: HttpRequest, project: Project) -> Job | HttpResponse:
    """ "Seed with aligner" (use_gold absent/false) or "Retrain with gold" (use_gold=true)."""
    use_gold = request.POST.get("use_gold", "false").lower()
    if use_gold not in ("true", "false"):
        return _error(request, "use_gold must be 'true' or 'false'", 400)
    return seeding.start_seed_job(project=project, user=request.user, use_gold=use_gold == "true")
