"""Everything the grid page's script needs about one assignment, as JSON-able values: the pair,
the seed and its posteriors, the annotator's current alignment, their place in the queue and
(for a submitted trial pair) feedback. Only the assignment's own data: see the blind rule in
``annotator.selectors.assignments``."""

from __future__ import annotations

import base64
from typing import Any

from annotator.models import Assignment, SeedAlignment, SentencePair
from annotator.selectors.assignments import annotation_state, starting_seed, trial_feedback
from annotator.selectors.queue import queue_place

POSTERIOR_SCALE = 255  # one byte a cell: round(255·p)


def flag_data(assignment: Assignment) -> dict[str, str] | None:
    if not assignment.flag:
        return None
    return {"reason": assignment.flag, "note": assignment.flag_note}


def posteriors_data(seed: SeedAlignment | None, rows: int, cols: int) -> dict[str, Any] | None:
    """The seed's posterior matrix as stored (N×M bytes, row-major), base64 for JSON; None when
    there is none or it does not fit the pair."""
    if seed is None or seed.posteriors is None:
        return None
    raw = bytes(seed.posteriors)
    if len(raw) != rows * cols:
        return None
    return {
        "rows": rows,
        "cols": cols,
        "scale": POSTERIOR_SCALE,
        "data": base64.b64encode(raw).decode("ascii"),
    }


def pair_data(pair: SentencePair) -> dict[str, Any]:
    """The pair as the grid shows it: ids, subcorpus, trial flag and both sentences' tokens."""
    return {
        "id": pair.pk,
        "external_id": pair.external_id,
        "subcorpus": pair.subcorpus.name if pair.subcorpus_id else None,
        "is_trial": pair.is_trial,
        "source": pair.source_tokens,
        "target": pair.target_tokens,
    }


def grid_data(*, assignment: Assignment) -> dict[str, Any]:
    """The assignment as the grid sees it (the API adds ``urls``)."""
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
