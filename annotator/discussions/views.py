"""The discussion pages (issue 31): one thread (the annotator and the leads read and answer it)
and the lead's list of a project's threads. Server-rendered forms, no script."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from annotator.common import access
from annotator.common.redirects import next_or
from annotator.discussions import selectors
from annotator.discussions.services import DiscussionError, post_message
from annotator.models import SentencePair


@login_required
def thread_page(request: HttpRequest, project_id: int, pair_id: int, annotator_id: int):
    """GET: the thread; POST: answer in it. 404 for anyone who may not see it (the blind rule)."""
    project = access.get_visible_project(project_id=project_id, user=request.user)
    if project is None:
        raise Http404("No such project, or you are not a member of it.")
    pair = get_object_or_404(SentencePair, pk=pair_id, project=project)
    if not selectors.may_see_thread(
        project=project, pair=pair, annotator_id=annotator_id, user=request.user
    ):
        raise Http404("No such discussion.")
    annotator = get_object_or_404(get_user_model(), pk=annotator_id)
    if request.method == "POST":
        try:
            post_message(pair=pair, annotator=annotator, author=request.user,
                         body=request.POST.get("body", ""))  # fmt: skip
            messages.success(request, "Message posted.")
        except DiscussionError as exc:
            messages.error(request, str(exc))
        return redirect(next_or(request, request.path))
    context = {
        "project": project,
        "pair": pair,
        "thread": selectors.thread(pair=pair, annotator=annotator),
        "is_lead": access.can_manage_project(project=project, user=request.user),
    }
    return render(request, "annotator/discussion.html", context)


@login_required
def project_discussions(request: HttpRequest, project_id: int) -> HttpResponse:
    """The lead's list of every thread of the project, latest first."""
    project = access.get_visible_project(project_id=project_id, user=request.user)
    if project is None:
        raise Http404("No such project, or you are not a member of it.")
    if not access.can_manage_project(project=project, user=request.user):
        raise PermissionDenied("Only the project's leads may open this page.")
    threads = selectors.project_threads(project=project)
    return render(request, "annotator/lead_discussions.html",
                  {"project": project, "threads": threads})  # fmt: skip
