"""The home page (the user's projects) and a project's page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.common import access
from annotator.jobs import selectors as job_selectors
from annotator.jobs.views import SelftestForm
from annotator.projects.selectors import projects as project_selectors
from annotator.projects.services import projects as project_services


@login_required
def home(request: HttpRequest) -> HttpResponse:
    summaries = project_selectors.user_projects(user=request.user)
    context = {
        "summaries": summaries,
        "archived": [s for s in summaries if s.project.archived_at],
        "may_create": project_services.may_create_projects(user=request.user),
    }
    return render(request, "annotator/home.html", context)


@login_required
def project_detail(request: HttpRequest, project_id: int) -> HttpResponse:
    project = access.get_visible_project(project_id=project_id, user=request.user)
    if project is None:
        raise Http404("No such project, or you are not a member of it.")
    summary = project_selectors.project_summary(project=project, user=request.user)
    context = {
        "project": project,
        "summary": summary,
        "members": project_selectors.project_members(project=project),
        "jobs": job_selectors.project_jobs(project=project),
        "pending_reviews": project_selectors.pending_review_count(project=project)
        if summary.is_lead
        else 0,
        # The self-test job checks the worker: a tool for whoever runs the site, not for leads.
        "selftest_form": SelftestForm() if request.user.is_staff else None,
    }
    return render(request, "annotator/project.html", context)
