"""Everything the grid page's script needs about one assignment, as JSON-able values: the pair,
the seed and its posteriors, the annotator's current alignment, their place in the queue and
(for a submitted trial pair) feedback. Only the assignment's own data: see the blind rule in
``annotator.grid.selectors.assignments``."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import BigIntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from annotator.common.compiled import CompiledQuery
from annotator.common.urls import url_with_id
from annotator.grid.selectors.assignments import (
    AnnotationState,
    current_annotation,
    starting_seed,
    trial_feedback,
)
from annotator.grid.selectors.queue import QueuePlace, queue_place
from annotator.models import POSTERIOR_SCALE, Assignment, SeedAlignment
from annotator.projects.selectors.projects import pair_data


def flag_data(assignment: Assignment) -> dict[str, str] | None:
    if not assignment.flag:
        return None
    return {"reason": assignment.flag, "note": assignment.flag_note}


def posteriors_data(seed: SeedAlignment | None, rows: int, cols: int) -> dict[str, Any] | None:
    """The seed's posterior matrix as stored (N×M bytes, row-major), base64 for JSON; None when
    there is none or it does not fit the pair. The grid reads the seed row with its assignment
    (one query), matrix included: reading it apart, or through a per-process cache that missed
    on most first openings, cost a query more than it saved (issue 32)."""
    if seed is None:
        return None
    return _posteriors_json(seed.posteriors, rows, cols)


def _posteriors_json(posteriors: Any, rows: int, cols: int) -> dict[str, Any] | None:
    if posteriors is None:
        return None
    raw = bytes(posteriors)
    if len(raw) != rows * cols:
        return None
    return {
        "rows": rows,
        "cols": cols,
        "scale": POSTERIOR_SCALE,
        "data": base64.b64encode(raw).decode("ascii"),
    }


@dataclass(frozen=True)
class SeedValidator:
    """What a pair's seed is known by, for HTTP revalidation: the seed the assignment starts
    from (the recorded one, else the pair's latest), its aligner run and when it was written.
    A seed is never edited after it is written (models/seeding.py): a new aligner run writes
    new seeds, so these change exactly when the seed and its posteriors can."""

    seed_id: int | None
    aligner_run_id: int | None
    created_at: datetime | None

    @property
    def etag(self) -> str:
        if self.seed_id is None:
            return '"seed-none"'
        # the creation time too: SQLite can give a rolled-back row's id to the next row
        stamp = self.created_at.timestamp() if self.created_at else 0
        return f'"seed-{self.seed_id}-run-{self.aligner_run_id}-{stamp:.6f}"'

    @property
    def last_modified(self) -> int | None:
        return int(self.created_at.timestamp()) if self.created_at else None


def _seed_validator_of(assignment: int, annotator: int) -> QuerySet:
    latest = SeedAlignment.objects.filter(pair_id=OuterRef("pair_id")).order_by("-id")
    ids = BigIntegerField()
    return (
        Assignment.objects.filter(annotator_id=annotator, withdrawn_at__isnull=True, pk=assignment)
        .annotate(
            seed_pk=Coalesce("seed_id", Subquery(latest.values("id")[:1]), output_field=ids),
            seed_run=Coalesce(
                "seed__aligner_run_id",
                Subquery(latest.values("aligner_run_id")[:1]),
                output_field=ids,
            ),
            seed_made=Coalesce("seed__created_at", Subquery(latest.values("created_at")[:1])),
        )
        .values_list("seed_pk", "seed_run", "seed_made")
    )


# Every later opening of a pair revalidates its seed with this one query: compiled once.
_SEED_VALIDATOR = CompiledQuery(
    "seed_validator", _seed_validator_of, {"assignment": -732_300_001, "annotator": -732_300_002}
)


def seed_validator(*, assignment_id: int, user: Any) -> SeedValidator | None:
    """The validator of the seed ``user``'s own assignment starts from, in ONE query (all that
    a revalidation answered 304 costs); None when the assignment is not theirs (404)."""
    if not getattr(user, "is_authenticated", False):
        return None
    rows = _SEED_VALIDATOR.fetch(assignment=assignment_id, annotator=user.pk)
    return SeedValidator(*rows[0]) if rows else None


def seed_data(*, validator: SeedValidator) -> dict[str, Any]:
    """The seed the validator names, as the grid's JSON: its links and aligner run, and its
    posterior matrix (as in :func:`grid_data`)."""
    if validator.seed_id is None:
        return {"seed": None, "posteriors": None}
    seed = SeedAlignment.objects.select_related("pair").get(pk=validator.seed_id)
    rows, cols = seed.pair.shape
    return {
        "seed": {"links": seed.links, "aligner_run": seed.aligner_run_id},
        "posteriors": posteriors_data(seed, rows, cols),
    }


def page_url(assignment_id: int | None) -> str | None:
    return url_with_id("annotate", assignment_id) if assignment_id else None


def grid_urls(assignment: Assignment, place: dict[str, Any]) -> dict[str, Any]:
    """Where the grid page sends its saves, flag and navigation (``place``: the queue place)."""
    project_id, pk = assignment.pair.project_id, assignment.pk
    return {
        "annotation": url_with_id("assignment-annotation", pk),
        "submit": url_with_id("assignment-submit", pk),
        "flag": url_with_id("assignment-flag", pk),
        "page": url_with_id("annotate", pk),
        "seed": url_with_id("assignment-seed", pk),
        "queue": url_with_id("project-queue", project_id),
        "guidelines": url_with_id("project-guidelines", project_id),
        "next_page": page_url(place["next"]),
        "previous_page": page_url(place["previous"]),
    }


def grid_payload(*, assignment: Assignment, place: QueuePlace | None = None) -> dict[str, Any]:
    """Everything the grid page's script starts from: :func:`grid_data` with its ``urls``. The
    API's ``GET /api/assignments/<id>/`` answers it, and the grid page carries the same in its
    HTML (one request fewer to open a pair)."""
    data = grid_data(assignment=assignment, place=place)
    data["urls"] = grid_urls(assignment, data["queue"])
    return data


def grid_page_payload(*, assignment: Assignment, place: QueuePlace | None = None) -> dict[str, Any]:
    """What the grid PAGE carries: :func:`grid_payload` without ``seed`` and ``posteriors``,
    which do not change between aligner runs: the page's script fetches them from
    ``urls.seed`` (:func:`seed_data`), which the browser keeps and revalidates (issue 32).
    Only what changes per request is left: the annotation, the queue place (``place``, when
    the caller has it already), status, flag."""
    data = _per_request_data(assignment, place)
    data["urls"] = grid_urls(assignment, data["queue"])
    return data


def _per_request_data(assignment: Assignment, place: QueuePlace | None = None) -> dict[str, Any]:
    annotation = current_annotation(assignment=assignment)
    place = place or queue_place(assignment=assignment)
    return {
        "id": assignment.pk,
        "project": assignment.pair.project_id,
        "status": assignment.status,
        "flag": flag_data(assignment),
        "pair": pair_data(assignment.pair),
        "annotation": (
            AnnotationState(annotation.version, annotation.links, annotation.updated_at).as_dict()
            if annotation is not None
            else None
        ),
        "queue": place.as_dict(),
        "feedback": trial_feedback(assignment=assignment),
    }


def grid_data(*, assignment: Assignment, place: QueuePlace | None = None) -> dict[str, Any]:
    """The assignment as the grid sees it (without ``urls``: see :func:`grid_payload`)."""
    pair = assignment.pair
    seed = starting_seed(assignment=assignment)
    rows, cols = pair.shape
    return {
        **_per_request_data(assignment, place),
        "seed": {"links": seed.links, "aligner_run": seed.aligner_run_id} if seed else None,
        "posteriors": posteriors_data(seed, rows, cols),
    }
