"""Adjudication (issue 8 §6): a lead saves a pair's gold from the overlay of its two
annotations, with a note. The write goes through ``gold.set_gold`` (a new version and a
GoldRevision); ``version`` makes two leads adjudicating at once a conflict, not a silent
overwrite.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from annotator.gold.services.gold import set_gold
from annotator.models import GoldAlignment, GoldReview, SentencePair


class GoldConflict(Exception):
    """The gold changed since the adjudicator loaded it."""

    def __init__(self, current: GoldAlignment | None) -> None:
        super().__init__("the gold of this pair changed since you opened it")
        self.current = current


def adjudicate(
    *, pair: SentencePair, links: Any, adjudicator: Any, note: str = "", version: int
) -> GoldAlignment:
    """Save ``links`` as the pair's adjudicated gold. ``version``: the gold version the edit is
    based on (0 when the pair had none). A single-annotator submission of the pair still
    waiting in the review queue is superseded: the adjudicated gold decides (issue 31). Raises
    GoldConflict or ValidationError."""
    with transaction.atomic():
        # Lock the pair: two adjudicators of a pair without gold yet must not both create it.
        SentencePair.objects.select_for_update().filter(pk=pair.pk).first()
        current = GoldAlignment.objects.filter(pair=pair).first()
        if (current.version if current else 0) != version:
            raise GoldConflict(current)
        gold = set_gold(
            pair=pair,
            links=links,
            origin=GoldAlignment.Origin.ADJUDICATED,
            author=adjudicator,
            note=note.strip(),
        )
        GoldReview.objects.filter(pair=pair, status=GoldReview.Status.PENDING).update(
            status=GoldReview.Status.SUPERSEDED, decided_by=adjudicator, decided_at=timezone.now()
        )
        return gold
