"""Gold alignments with history (issue 8 §6). ``set_gold`` is the ONE way gold is written:
the importer, adjudication and "a submitted single-annotated pair becomes gold" all call it.

Every call appends a GoldRevision (version + 1) and updates the GoldAlignment row to the
latest; nothing is overwritten without its predecessor kept as a revision.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotator.links import normalize_links
from annotator.models import (
    Annotation,
    Assignment,
    GoldAlignment,
    GoldReview,
    GoldRevision,
    Project,
    SentencePair,
)
from annotator.seeding.services import maybe_start_auto_retrain

Origin = GoldAlignment.Origin


class GoldError(ValueError):
    """Gold that cannot be written (the message says why)."""


def set_gold(
    *,
    pair: SentencePair,
    links: Any,
    origin: str,
    author: Any = None,
    note: str = "",
) -> GoldAlignment:
    """Make ``links`` the pair's gold: ``set_gold_many`` for one pair, answering its row.
    Raises ValidationError (links naming the bad cell) or GoldError (an unknown origin);
    nothing is written then. A trial pair may hold gold (its reference for the annotators'
    feedback); exports and reports leave trial pairs out."""
    with transaction.atomic():
        set_gold_many(links_by_pair={pair.pk: links}, origin=origin, author=author, note=note)
        return GoldAlignment.objects.select_related("pair").get(pair=pair)


def set_gold_many(
    *,
    links_by_pair: Mapping[int, Any],
    origin: str,
    author: Any = None,
    note: str = "",
    batch_size: int = 2000,
) -> int:
    """Make each pair's links its gold (the one writer of gold): a new version and a
    GoldRevision for every pair, in bulk queries, the rows locked while they change. Returns
    how many were written. Raises ValidationError (links naming the bad cell) or GoldError (an
    unknown origin); nothing is written then."""
    if origin not in Origin.values:
        raise GoldError(f"origin must be one of {', '.join(Origin.values)}, not {origin!r}")
    pair_ids = list(links_by_pair)
    with transaction.atomic():
        changed: list[GoldAlignment] = []
        for start in range(0, len(pair_ids), batch_size):
            chunk = pair_ids[start : start + batch_size]
            changed += _write_gold_rows(
                {pk: links_by_pair[pk] for pk in chunk},
                origin=origin, author=author, note=note, batch_size=batch_size,
            )  # fmt: skip
        GoldRevision.objects.bulk_create(
            [
                GoldRevision(
                    gold_id=g.pk,
                    version=g.version,
                    links=g.links,
                    origin=origin,
                    author=author,
                    note=note,
                )
                for g in changed
            ],  # fmt: skip
            batch_size=batch_size,
        )
        first = SentencePair.objects.filter(pk__in=pair_ids[:1]).select_related("project").first()
        if first is not None:
            transaction.on_commit(lambda: _after_gold_written(project=first.project))
    return len(changed)


def _write_gold_rows(
    links_by_pair: Mapping[int, Any], *, origin: str, author: Any, note: str, batch_size: int
) -> list[GoldAlignment]:
    """Create or bump the GoldAlignment rows of one chunk of pairs (locked while they change);
    returns them with their primary keys."""
    shapes = {
        pk: (len(src), len(tgt))
        for pk, src, tgt in SentencePair.objects.filter(pk__in=list(links_by_pair)).values_list(
            "pk", "source_tokens", "target_tokens"
        )
    }
    current = {
        g.pair_id: g
        for g in GoldAlignment.objects.select_for_update().filter(pair_id__in=list(links_by_pair))
    }
    fresh, updated = [], []
    for pk, links in links_by_pair.items():
        clean = normalize_links(links, *shapes[pk])
        gold = current.get(pk)
        if gold is None:
            gold = GoldAlignment(pair_id=pk, version=1)
            fresh.append(gold)
        else:
            gold.version += 1
            updated.append(gold)
        gold.links, gold.origin, gold.note = clean, origin, note
        gold.adjudicator = author if origin == Origin.ADJUDICATED else None
        gold.updated_at = timezone.now()
    GoldAlignment.objects.bulk_create(fresh, batch_size=batch_size)
    GoldAlignment.objects.bulk_update(
        updated, ["version", "links", "origin", "note", "adjudicator", "updated_at"]
    )
    if any(g.pk is None for g in fresh):  # a backend that returns no primary keys
        ids = dict(
            GoldAlignment.objects.filter(pair_id__in=[g.pair_id for g in fresh]).values_list(
                "pair_id", "pk"
            )
        )
        for g in fresh:
            g.pk = ids[g.pair_id]
    return fresh + updated


def _after_gold_written(*, project: Project) -> None:
    """The one place to react to new gold, once the write is committed: the project may
    retrain its seeds (every N new gold pairs, when it is set to)."""
    maybe_start_auto_retrain(project=project)


def gold_from_single_submission(*, assignment: Assignment) -> GoldAlignment | None:
    """Called when an assignment is submitted: a non-trial pair with exactly one active
    annotator becomes gold as it stands (origin single), or, under the project's "review"
    policy, waits in the lead's review queue (a pending GoldReview) instead. Doubly annotated pairs wait for
    adjudication; a pair already adjudicated keeps its gold."""
    pair = assignment.pair
    if pair.is_trial or assignment.withdrawn_at is not None:
        return None
    active = Assignment.objects.filter(pair=pair, withdrawn_at__isnull=True)
    if active.count() != 1:
        return None
    current = GoldAlignment.objects.filter(pair=pair).only("origin").first()
    if current is not None and current.origin == Origin.ADJUDICATED:
        return None
    if pair.project.single_gold_policy == Project.SingleGold.REVIEW:
        _queue_for_review(assignment=assignment)
        return None
    annotation = Annotation.objects.get(assignment=assignment)
    return set_gold(
        pair=pair,
        links=annotation.links,
        origin=Origin.SINGLE,
        author=assignment.annotator,
        note=f"submitted by {assignment.annotator.get_username()}",
    )


def _queue_for_review(*, assignment: Assignment) -> GoldReview:
    """Put the submission in the lead's review queue (one pending review per pair: a
    resubmission refreshes it)."""
    review, _ = GoldReview.objects.update_or_create(
        pair=assignment.pair,
        status=GoldReview.Status.PENDING,
        defaults={"assignment": assignment},
    )
    return review
