"""Reads about seeds for other selectors: the uncertainty-first queue order (issue 11 §3).

A project with ``uncertainty_first`` serves its unstarted, non-trial assignments most
uncertain seed first (``SeedAlignment.uncertainty``, written at seeding), after the pairs the
annotator has already started or submitted; pending trial pairs stay ahead of everything (the
queue's own rank). Other projects keep the import order.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Case, F, FloatField, IntegerField, Q, QuerySet, Value, When

from annotator.models import Assignment

_UNCERTAINTY_FIRST = Q(
    pair__project__uncertainty_first=True,
    pair__is_trial=False,
    status=Assignment.Status.ASSIGNED,
)


def uncertainty_order(assignments: QuerySet[Assignment]) -> tuple[QuerySet[Assignment], list[Any]]:
    """``assignments`` annotated for the uncertainty-first order, and the ``order_by`` terms
    to place after the queue's own rank (before the import position)."""
    annotated = assignments.annotate(
        uncertainty_rank=Case(
            When(_UNCERTAINTY_FIRST, then=Value(1)), default=Value(0), output_field=IntegerField()
        ),
        uncertainty_key=Case(
            When(_UNCERTAINTY_FIRST, then=F("seed__uncertainty")),
            default=Value(None),
            output_field=FloatField(),
        ),
    )
    return annotated, ["uncertainty_rank", F("uncertainty_key").desc(nulls_last=True)]
