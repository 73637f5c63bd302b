"""Starting jobs from a project page, and a job's live state as JSON (polled by jobs.js)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from annotator.common import access
from annotator.jobs import selectors as job_selectors
from annotator.jobs import selftest as job_services
from annotator.models import Job, Project


class SelftestForm(forms.Form):
    steps = forms.IntegerField(min_value=1, max_value=200, initial=20, required=False)
    delay = forms.FloatField(
        min_value=0, max_value=2, initial=0.2, required=False, help_text="seconds per step"
    )
    fail = forms.BooleanField(required=False, help_text="raise an error half-way")


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _error(request: HttpRequest, message: str, status: int) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"error": message}, status=status)
    return HttpResponse(message, status=status)


def lead_starts_job(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A POST by a lead (or staff) of the project in the URL, which starts a job. The view is
    called with the project and returns the Job (or an error response); the answer is 202 with
    the job's URL for JSON clients, else a redirect to the job on the project page."""

    @require_POST
    @login_required
    @functools.wraps(view)
    def wrapper(request: HttpRequest, project_id: int) -> HttpResponse:
        project = access.get_visible_project(project_id=project_id, user=request.user)
        if project is None:
            raise Http404("No such project, or you are not a member of it.")
        if not access.can_manage_project(project=project, user=request.user):
            return _error(request, "Only the project's leads start jobs.", 403)
        job = view(request, project)
        if isinstance(job, HttpResponse):
            return job
        url = reverse("job-detail", args=[job.pk])
        if _wants_json(request):
            return JsonResponse({"id": job.pk, "url": url, "status": job.status}, status=202)
        return redirect(reverse("project-detail", args=[project.pk]) + f"#job-{job.pk}")

    return wrapper


@lead_starts_job
def start_selftest(request: HttpRequest, project: Project) -> Job | HttpResponse:
    form = SelftestForm(request.POST)
    if not form.is_valid():
        if _wants_json(request):
            return JsonResponse({"errors": form.errors}, status=400)
        return render(request, "annotator/form_error.html", {"form": form}, status=400)
    steps = form.cleaned_data["steps"] or 20
    delay = form.cleaned_data["delay"]
    return job_services.start_selftest_job(
        project=project,
        user=request.user,
        steps=steps,
        delay=0.2 if delay is None else delay,
        fail_at=steps // 2 + 1 if form.cleaned_data["fail"] else None,
    )


@never_cache
@require_GET
def job_detail(request: HttpRequest, job_id: int) -> JsonResponse:
    """A job's state (status, progress, message, error, result). JSON errors, never a redirect,
    so a polling page can tell a lost session (401) from a missing job (404)."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "not logged in"}, status=401)
    job = job_selectors.get_job(job_id=job_id, user=request.user)
    if job is None:
        return JsonResponse({"error": "no such job"}, status=404)
    return JsonResponse(job_selectors.job_state(job=job, user=request.user))
