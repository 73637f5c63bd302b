"""The annotator's pages: their queue in a project, the grid page of one assignment and the
project's guidelines. The grid page carries what changes per request (the pair's tokens, the
annotation, the queue place); its script fetches the seed and its posteriors from
``/api/assignments/<id>/seed/`` (annotator.grid.api.assignments), cached by the browser."""

from __future__ import annotations

from typing import Any

import nh3
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import select_template
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from annotator.common import access
from annotator.common.urls import url_with_id
from annotator.discussions import selectors as discussion_selectors
from annotator.grid import services as annotation_services
from annotator.grid.selectors import queue as queue_selectors
from annotator.grid.selectors.assignments import get_own_assignment
from annotator.grid.selectors.grid import grid_page_payload
from annotator.models import Assignment, Project, SeedAlignment
from annotator.seeding.selectors import pending_seed_job
from annotator.templatetags.gridalign import render_markdown

QUEUE_PAGE_SIZE = 200
# grid-frontend owns annotate.html; the placeholder only stands in until their branch is merged.
GRID_TEMPLATES = ["annotator/annotate.html", "annotator/annotate_placeholder.html"]


def _member_project(request: HttpRequest, project_id: int) -> Project:
    project = access.get_visible_project(project_id=project_id, user=request.user)
    if project is None:
        raise Http404("No such project, or you are not a member of it.")
    return project


@require_GET
@login_required
def queue(request: HttpRequest, project_id: int) -> HttpResponse:
    project = _member_project(request, project_id)
    status = request.GET.get("status") or ""
    if status and status not in queue_selectors.STATUSES:
        status = ""
    assignments = queue_selectors.queue_page_rows(
        user=request.user, project=project, status=status or None
    )
    counts = queue_selectors.queue_counts(user=request.user, project=project)
    paginator = Paginator(assignments, QUEUE_PAGE_SIZE)
    paginator.count = getattr(counts, status) if status else counts.total  # not counted again
    page = paginator.get_page(request.GET.get("page"))
    context = {
        "project": project,
        "counts": counts,
        "resume": queue_selectors.resume_assignment(user=request.user, project=project),
        "page": page,
        "status": status,
        "statuses": Assignment.Status.choices,
        "flag_labels": dict(Assignment.Flag.choices),
    }
    context["threads"], context["answered"] = discussion_selectors.own_thread_states(
        project=project, user=request.user
    )
    return render(request, "annotator/queue.html", context)


def _pending_seed_job(*, assignment: Assignment, project: Project) -> Any:
    """The seed job that will write this pair's first seed, when it has none yet (None
    otherwise); read only for an assignment with no seed of its own."""
    if assignment.seed_id is not None:
        return None
    if SeedAlignment.objects.filter(pair_id=assignment.pair_id).exists():
        return None
    return pending_seed_job(project=project)


@never_cache
@require_GET
@login_required
def annotate(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """The grid page. Opening it is recorded (time spent on the first save counts from here).
    The page carries the API's answer for the assignment but the seed and posteriors
    (``grid_data``: :func:`grid_page_payload`); the seed row is not even read here, the
    script gets it from the seed endpoint, which a second opening revalidates (304). A pair
    with no seed while the project's seed job runs shows that job (the demo right after
    ``make run``): reloaded after it, the pair starts from its new seed."""
    assignment = get_own_assignment(assignment_id=assignment_id, user=request.user, with_seed=False)
    if assignment is None:
        raise Http404("No such assignment in your queue.")
    place = annotation_services.open_assignment_with_place(assignment=assignment, user=request.user)
    project = assignment.pair.project
    context = {
        "assignment": assignment,
        "project": project,
        "pair": assignment.pair,
        "api_url": url_with_id("assignment-detail", assignment.pk),
        "queue_url": url_with_id("project-queue", project.pk),
        "guidelines_url": url_with_id("project-guidelines", project.pk),
        "flag_reasons": [(v, label) for v, label in Assignment.Flag.choices if v],
        "grid_data": grid_page_payload(assignment=assignment, place=place),
        "seed_job": _pending_seed_job(assignment=assignment, project=project),
    }
    return HttpResponse(select_template(GRID_TEMPLATES).render(context, request))


def guidelines_html(text: str) -> str:
    """Markdown → HTML (python-markdown), then sanitised with nh3: whatever a lead writes, no
    script, handler or javascript: URL reaches the annotators' browsers."""
    return nh3.clean(str(render_markdown(text)))


@require_GET
@login_required
def guidelines(request: HttpRequest, project_id: int) -> HttpResponse:
    project = _member_project(request, project_id)
    context = {"project": project, "guidelines_html": guidelines_html(project.guidelines)}
    return render(request, "annotator/guidelines.html", context)
