"""Reads behind the grid: an annotator's own assignments, the alignment they start from, their
current annotation and, for submitted trial pairs, feedback against the reference.

The blind rule lives here: nothing in this module returns another person's annotation of a
pair, and gold is only read for a TRIAL pair the asking annotator has already submitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from annotator.common.compiled import CompiledQuery
from annotator.links import to_alignment
from annotator.models import Annotation, Assignment, GoldAlignment, SeedAlignment


@dataclass(frozen=True)
class AnnotationState:
    """An annotator's alignment as the grid sees it. ``version`` 0 means never saved: the
    links are then the seed's (or none), which is what the annotator starts from."""

    version: int
    links: list[list[Any]]
    updated_at: datetime | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "links": self.links,
            "updated_at": self.updated_at.isoformat() if self.updated_at else None,
        }


def own_assignments(*, user: Any) -> QuerySet[Assignment]:
    """``user``'s assignments that the lead has not withdrawn (all projects)."""
    if not getattr(user, "is_authenticated", False):
        return Assignment.objects.none()
    return Assignment.objects.filter(annotator=user, withdrawn_at__isnull=True)


# What the grid reads with an assignment, in the same query: its pair with the project and
# subcorpus, the seed it starts from (with its posterior matrix) and the annotator's current
# annotation (issue 32: one query, not four).
GRID_RELATED = ("pair", "pair__project", "pair__subcorpus", "seed", "annotation")
# What the grid PAGE reads: the same but the seed, whose links and posterior matrix the page's
# script fetches from the seed endpoint, cached and revalidated by the browser.
GRID_PAGE_RELATED = ("pair", "pair__project", "pair__subcorpus", "annotation")
# The project's long texts, which the grid never shows (its guidelines are a page of their own):
# not read with every opening.
_PROJECT_TEXTS = ("pair__project__guidelines", "pair__project__description")


def _own_assignment_with(related: tuple[str, ...]):
    def build(assignment: int, annotator: int) -> QuerySet[Assignment]:
        mine = Assignment.objects.filter(annotator_id=annotator, withdrawn_at__isnull=True)
        return mine.select_related(*related).defer(*_PROJECT_TEXTS).filter(pk=assignment)[:1]

    return build


# Read on every opening of the grid (issue 32): compiled once, a prepared statement on PostgreSQL.
_STAND_INS = {"assignment": -732_100_001, "annotator": -732_100_002}
_OWN_ASSIGNMENT = {
    True: CompiledQuery("grid_read", _own_assignment_with(GRID_RELATED), _STAND_INS),
    False: CompiledQuery("grid_page_read", _own_assignment_with(GRID_PAGE_RELATED), _STAND_INS),
}


def get_own_assignment(
    *, assignment_id: int, user: Any, with_seed: bool = True
) -> Assignment | None:
    """The assignment if it is ``user``'s own and not withdrawn, else None (callers: 404),
    with everything the grid shows of it (:data:`GRID_RELATED`; without its seed row:
    :data:`GRID_PAGE_RELATED`)."""
    if not getattr(user, "is_authenticated", False):
        return None
    found = _OWN_ASSIGNMENT[with_seed].fetch(assignment=assignment_id, annotator=user.pk)
    return found[0] if found else None


def starting_seed(*, assignment: Assignment) -> SeedAlignment | None:
    """The seed the annotator starts from: the one recorded on the assignment, else the pair's
    latest seed (an assignment made after seeding may not have one recorded yet)."""
    if assignment.seed_id is not None:
        return assignment.seed
    return SeedAlignment.objects.filter(pair_id=assignment.pair_id).order_by("-id").first()


def starting_seed_id(*, assignment: Assignment) -> int | None:
    """The id of :func:`starting_seed`, without reading the seed row (its posterior matrix)."""
    if assignment.seed_id is not None:
        return assignment.seed_id
    latest = SeedAlignment.objects.filter(pair_id=assignment.pair_id).order_by("-id")
    return latest.values_list("id", flat=True).first()


def current_annotation(*, assignment: Assignment) -> Annotation | None:
    """The assignment's annotation: the one read with it (``select_related("annotation")``),
    else from the database."""
    if Assignment.annotation.is_cached(assignment):
        try:
            return assignment.annotation
        except Annotation.DoesNotExist:
            return None
    return Annotation.objects.filter(assignment=assignment).first()


def annotation_state(*, assignment: Assignment) -> AnnotationState:
    """The annotator's current alignment, or (version 0) the seed's links if never saved."""
    annotation = current_annotation(assignment=assignment)
    if annotation is not None:
        return AnnotationState(annotation.version, annotation.links, annotation.updated_at)
    seed = starting_seed(assignment=assignment)
    return AnnotationState(0, list(seed.links) if seed else [], None)


def trial_feedback(*, assignment: Assignment) -> dict[str, Any] | None:
    """For a SUBMITTED TRIAL pair with a reference alignment: the reference links and the
    annotator's word-level scores against it (``alignment_core.agreement``); else None.

    ``word`` follows the paper (links between identical words left out); ``word_all_links``
    counts every link, which says more on paraphrases where most links join identical words.
    """
    pair = assignment.pair
    if not pair.is_trial or assignment.status != Assignment.Status.SUBMITTED:
        return None
    reference = GoldAlignment.objects.filter(pair=pair).first()
    annotation = current_annotation(assignment=assignment)
    if reference is None or annotation is None:
        return None
    item = (
        pair.source_tokens,
        pair.target_tokens,
        to_alignment(annotation.links),
        to_alignment(reference.links),
    )
    from alignment_core.agreement.word import (
        score_word,  # numba: loaded when first used, never by an idle web process
    )

    paper = score_word([item])
    every = score_word([item], include_identical=True)
    return {
        "reference": reference.links,
        "word": {**paper.as_dict(), "counts": paper.counts.as_dict()},
        "word_all_links": {**every.as_dict(), "counts": every.counts.as_dict()},
    }
