"""Everything the grid page's script needs about one assignment, as JSON-able values: the pair,
the seed and its posteriors, the annotator's current alignment, their place in the queue and
(for a submitted trial pair) feedback. Only the assignment's own data: see the blind rule in
``annotator.grid.selectors.assignments``."""

from __future__ import annotations

import base64
from typing import Any

from django.core.cache import cache
from django.urls import reverse

from annotator.grid.selectors.assignments import annotation_state, starting_seed, trial_feedback
from annotator.grid.selectors.queue import queue_place
from annotator.models import POSTERIOR_SCALE, Assignment, SeedAlignment
from annotator.projects.selectors.projects import pair_data


def flag_data(assignment: Assignment) -> dict[str, str] | None:
    if not assignment.flag:
        return None
    return {"reason": assignment.flag, "note": assignment.flag_note}


# A seed is never edited after it is written (models/seeding.py), so its posterior matrix as
# the grid's JSON is computed once per seed and kept in Django's cache: an opening reads the
# seed row without its N×M bytes (``defer``), and only a cache miss loads them. The key names
# the row's identity and its creation time (ids of rolled-back rows can come back in SQLite).
POSTERIORS_CACHE_SECONDS = 7 * 24 * 3600
_NONE = "none"


def _posteriors_key(seed: SeedAlignment) -> str:
    stamp = seed.created_at.timestamp() if seed.created_at else 0
    return f"grid:posteriors:{seed.pk}:{seed.pair_id}:{seed.aligner_run_id}:{stamp}"


def posteriors_data(seed: SeedAlignment | None, rows: int, cols: int) -> dict[str, Any] | None:
    """The seed's posterior matrix as stored (N×M bytes, row-major), base64 for JSON; None when
    there is none or it does not fit the pair. Cached per seed (see above)."""
    if seed is None:
        return None
    key = _posteriors_key(seed)
    cached = cache.get(key)
    if cached is None:
        cached = _posteriors_json(seed.posteriors, rows, cols) or _NONE
        cache.set(key, cached, POSTERIORS_CACHE_SECONDS)
    return None if cached == _NONE else cached


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


def page_url(assignment_id: int | None) -> str | None:
    return reverse("annotate", args=[assignment_id]) if assignment_id else None


def grid_urls(assignment: Assignment, place: dict[str, Any]) -> dict[str, Any]:
    """Where the grid page sends its saves, flag and navigation (``place``: the queue place)."""
    project_id = assignment.pair.project_id
    return {
        "annotation": reverse("assignment-annotation", args=[assignment.pk]),
        "submit": reverse("assignment-submit", args=[assignment.pk]),
        "flag": reverse("assignment-flag", args=[assignment.pk]),
        "page": reverse("annotate", args=[assignment.pk]),
        "queue": reverse("project-queue", args=[project_id]),
        "guidelines": reverse("project-guidelines", args=[project_id]),
        "next_page": page_url(place["next"]),
        "previous_page": page_url(place["previous"]),
    }


def grid_payload(*, assignment: Assignment) -> dict[str, Any]:
    """Everything the grid page's script starts from: :func:`grid_data` with its ``urls``. The
    API's ``GET /api/assignments/<id>/`` answers it, and the grid page carries the same in its
    HTML (one request fewer to open a pair)."""
    data = grid_data(assignment=assignment)
    data["urls"] = grid_urls(assignment, data["queue"])
    return data


def grid_data(*, assignment: Assignment) -> dict[str, Any]:
    """The assignment as the grid sees it (without ``urls``: see :func:`grid_payload`)."""
    pair = assignment.pair
    seed = starting_seed(assignment=assignment)
    state = annotation_state(assignment=assignment)
    rows, cols = pair.shape
    return {
        "id": assignment.pk,
        "project": pair.project_id,
        "status": assignment.status,
        "flag": flag_data(assignment),
        "pair": pair_data(pair),
        "seed": {"links": seed.links, "aligner_run": seed.aligner_run_id} if seed else None,
        "posteriors": posteriors_data(seed, rows, cols),
        "annotation": state.as_dict() if state.version > 0 else None,
        "queue": queue_place(assignment=assignment).as_dict(),
        "feedback": trial_feedback(assignment=assignment),
    }
