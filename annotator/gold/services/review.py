"""The lead's review of single-annotator gold (issue 31): under a project's "review" policy a
submitted pair only one annotator had waits as a pending GoldReview; the lead accepts it (it
becomes gold through ``set_gold``, origin single) or sends it back (the assignment is reopened,
nothing is lost). Accepting a submission that differs from gold the pair already has (imported,
or written since) replaces that gold only when the lead confirmed it: ``replace_version`` names
the gold version the lead saw and agreed to replace (the page asks, as adjudication does)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from annotator.gold.services.gold import GoldError, set_gold
from annotator.links import links_difference
from annotator.models import Annotation, GoldAlignment, GoldReview
from annotator.projects.services.assignment import AssignmentError, reopen_assignment


def _pending(review: GoldReview) -> GoldReview:
    fresh = GoldReview.objects.select_for_update().get(pk=review.pk)
    if fresh.status != GoldReview.Status.PENDING:
        raise GoldError("this submission was reviewed already")
    return fresh


class ReplaceUnconfirmed(GoldError):
    """The pair has different gold and the lead did not confirm replacing that version."""


def accept_review(
    *, review: GoldReview, by: Any, replace_version: int | None = None
) -> GoldAlignment:
    """Make the reviewed submission the pair's gold (origin single, author the annotator).
    When the pair already has gold that differs, ``replace_version`` must be its version (the
    lead confirmed replacing it); else ReplaceUnconfirmed and nothing is written."""
    with transaction.atomic():
        review = _pending(review)
        assignment = review.assignment
        if assignment.status != assignment.Status.SUBMITTED:
            raise GoldError("the annotator is working on this pair again; wait for the submission")
        annotation = Annotation.objects.get(assignment=assignment)
        current = GoldAlignment.objects.select_for_update().filter(pair=review.pair).first()
        if current is not None and replace_version != current.version:
            _check_same(current, annotation.links)
        gold = set_gold(
            pair=review.pair,
            links=annotation.links,
            origin=GoldAlignment.Origin.SINGLE,
            author=assignment.annotator,
            note=f"submitted by {assignment.annotator.get_username()}, "
            f"accepted by {by.get_username()}",
        )
        _decide(review, GoldReview.Status.ACCEPTED, by)
    return gold


def _check_same(current: GoldAlignment, links: list[list[Any]]) -> None:
    """Refuse (ReplaceUnconfirmed, saying what would change) when ``links`` differ from the
    current gold; the same links replace nothing and need no confirmation."""
    d = links_difference(current.links, links)
    if d["added"] or d["removed"] or d["changed"]:
        fewer = f", {d['fewer']} FEWER links" if d["fewer"] else ""
        raise ReplaceUnconfirmed(
            f"the pair has gold v{current.version} ({len(current.links)} links, "
            f"{current.get_origin_display().lower()}) and this submission differs from it "
            f"({d['added']} added, {d['removed']} removed, {d['changed']} sure/possible "
            f"changed{fewer}); confirm to replace it. Nothing was written."
        )


def return_review(*, review: GoldReview, by: Any) -> GoldReview:
    """Send the submission back to its annotator (the assignment reopens; no gold written)."""
    with transaction.atomic():
        review = _pending(review)
        try:
            reopen_assignment(assignment=review.assignment, by=by)
        except AssignmentError as exc:
            raise GoldError(str(exc)) from exc
        _decide(review, GoldReview.Status.RETURNED, by)
    return review


def _decide(review: GoldReview, status: str, by: Any) -> None:
    review.status, review.decided_by, review.decided_at = status, by, timezone.now()
    review.save(update_fields=["status", "decided_by", "decided_at"])
