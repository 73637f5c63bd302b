"""The adjudication page (issue 8 §6): a doubly annotated pair's two annotations overlaid on
the grid (``grid/render.js`` in overlay mode), edited with the grid's controls and saved as gold
through the API (``annotator/gold/api.py``). Leads and staff only."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotator.gold import selectors as adjudication_selectors
from annotator.gold.selectors import adjudication_payload
from annotator.gold.services.gold import GoldError
from annotator.gold.services.restore import restore_gold
from annotator.gold.services.review import accept_review, return_review
from annotator.models import GoldReview, Project, SentencePair
from annotator.projects.views.lead import lead_page


@lead_page
def adjudicate_page(request: HttpRequest, project: Project, pair_id: int) -> HttpResponse:
    pair = get_object_or_404(
        SentencePair.objects.select_related("subcorpus"), pk=pair_id, project=project
    )
    context = {
        "project": project,
        "pair": pair,
        "payload": adjudication_payload(pair=pair),
        "api_url": reverse("api-pair-gold", args=[project.pk, pair.pk]),
        "next_url": _next_to_adjudicate(project, pair),
        "pending_review": adjudication_selectors.pending_review(pair=pair),
    }
    return render(request, "annotator/lead_adjudicate.html", context)


def _next_to_adjudicate(project: Project, pair: SentencePair) -> str:
    """The page after this pair for "Save and next": the next pair of the adjudication list
    (corpus order), else the list itself."""
    later = adjudication_selectors.next_to_adjudicate(project=project, pair=pair)
    if later is not None:
        return reverse("project-adjudicate", args=[project.pk, later])
    return reverse("project-adjudication-list", args=[project.pk])


@lead_page
def adjudication_list(request: HttpRequest, project: Project) -> HttpResponse:
    rows = adjudication_selectors.pairs_to_adjudicate(project=project)
    page = Paginator(rows, 100).get_page(request.GET.get("page"))
    return render(request, "annotator/lead_adjudication_list.html", {"project": project,
                                                                       "rows": page})  # fmt: skip


@require_POST
@lead_page
def restore_gold_version(request: HttpRequest, project: Project, pair_id: int) -> HttpResponse:
    """Restore an earlier gold version from the pair view (a new revision; nothing is lost)."""
    pair = get_object_or_404(SentencePair, pk=pair_id, project=project)
    try:
        version = int(request.POST.get("version", ""))
        gold = restore_gold(pair=pair, version=version, author=request.user)
    except (ValueError, GoldError) as exc:
        messages.error(request, f"Not restored: {exc}")
    else:
        messages.success(request, f"Gold version {version} restored as version {gold.version}.")
    return redirect("project-pair", project_id=project.pk, pair_id=pair.pk)


@lead_page
def review_queue_page(request: HttpRequest, project: Project) -> HttpResponse:
    """The review queue: single-annotator submissions waiting for the lead (policy "review")."""
    rows = adjudication_selectors.review_queue(project=project)
    page = Paginator(rows, 100).get_page(request.GET.get("page"))
    context = {"project": project, "rows": page, "total": len(rows)}
    return render(request, "annotator/lead_review_queue.html", context)


@require_POST
@lead_page
def review_decide(request: HttpRequest, project: Project, review_id: int) -> HttpResponse:
    """Accept a reviewed submission as gold, or send it back to its annotator."""
    review = get_object_or_404(GoldReview, pk=review_id, pair__project=project)
    action = request.POST.get("action")
    try:
        if action == "accept":
            replace = request.POST.get("replace_version", "")
            accept_review(
                review=review,
                by=request.user,
                replace_version=int(replace) if replace.isdigit() else None,
            )
            messages.success(request, f"Pair {review.pair.external_id} accepted as gold.")
        elif action == "return":
            return_review(review=review, by=request.user)
            messages.success(request, f"{review.pair.external_id} sent back to its annotator.")
        else:
            messages.error(request, "Unknown action.")
    except GoldError as exc:
        messages.error(request, f"{review.pair.external_id}: {exc}")
    return redirect("project-review-queue", project.pk)
