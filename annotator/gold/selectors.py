"""What the adjudication page shows (issue 8 §6): a doubly annotated pair's two annotations
(A = slot 1, B = slot 2, never query order), their overlay classes, the starting points
(intersection, union, A, B), the seed and the current gold with its history. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet

from annotator.links import links_difference
from annotator.models import (
    Annotation,
    Assignment,
    GoldAlignment,
    GoldReview,
    Project,
    SentencePair,
)
from annotator.projects.selectors.projects import pair_data
from annotator.reports.selectors.reports import ab_order

# Overlay classes of a cell, as the grid's overlay mode marks them.
BOTH_SURE, BOTH_POSSIBLE, MISMATCH, ONLY_A, ONLY_B = (
    "both_sure", "both_possible", "mismatch", "only_a", "only_b",
)  # fmt: skip


@dataclass
class Side:
    assignment: Assignment
    links: list[list[Any]] | None  # None: never saved

    @property
    def submitted(self) -> bool:
        return self.assignment.status == Assignment.Status.SUBMITTED


def _cells(links: list[list[Any]] | None) -> dict[tuple[int, int], str]:
    return {(int(i), int(j)): str(k) for i, j, k in links or []}


def _links(cells: dict[tuple[int, int], str]) -> list[list[Any]]:
    return [[i, j, cells[(i, j)]] for i, j in sorted(cells)]


def combine(a: list[list[Any]] | None, b: list[list[Any]] | None) -> dict[str, Any]:
    """Starting points and the overlay of A and B. Intersection: cells both linked, sure
    where both said sure; union: cells either linked, sure where either said sure."""
    ca, cb = _cells(a), _cells(b)
    both = ca.keys() & cb.keys()
    inter = {c: "S" if ca[c] == cb[c] == "S" else "P" for c in both}
    union = {c: "S" if "S" in (ca.get(c), cb.get(c)) else "P" for c in ca.keys() | cb.keys()}
    overlay = {}
    for c in ca.keys() | cb.keys():
        if c in both:
            overlay[c] = (
                BOTH_SURE if ca[c] == cb[c] == "S"
                else BOTH_POSSIBLE if ca[c] == cb[c] else MISMATCH
            )  # fmt: skip
        else:
            overlay[c] = ONLY_A if c in ca else ONLY_B
    counts = {k: 0 for k in (BOTH_SURE, BOTH_POSSIBLE, MISMATCH, ONLY_A, ONLY_B)}
    for kind in overlay.values():
        counts[kind] += 1
    return {
        "intersection": _links(inter),
        "union": _links(union),
        "a": _links(ca),
        "b": _links(cb),
        "counts": counts,
    }


def sides(*, pair: SentencePair) -> tuple[Side | None, Side | None]:
    """A and B of ``pair``: its first two active assignments in the report's order (slot 1, slot
    2, then assignments without a slot — an import's annotators — by id), with their links.
    The disagreement browser and Table 3 compare the same two."""
    rows = ab_order(Assignment.objects.filter(pair=pair, withdrawn_at__isnull=True))
    found: list[Side | None] = []
    for a in rows.select_related("annotator", "annotation")[:2]:
        annotation = getattr(a, "annotation", None)  # None: never saved
        found.append(Side(a, annotation.links if annotation else None))
    found += [None] * (2 - len(found))
    return found[0], found[1]


def adjudication_payload(*, pair: SentencePair) -> dict[str, Any]:
    """Everything the page's script needs, as JSON-able values."""
    a, b = sides(pair=pair)
    gold = GoldAlignment.objects.filter(pair=pair).select_related("adjudicator").first()
    seed = pair.seeds.order_by("-aligner_run__created_at", "-id").first()
    history = list(gold.revisions.select_related("author").order_by("-version")) if gold else []

    def side(s: Side | None) -> dict[str, Any] | None:
        if s is None:
            return None
        return {
            "annotator": s.assignment.annotator.get_username(),
            "status": s.assignment.status,
            "status_label": s.assignment.get_status_display(),
            "links": s.links or [],
            "flag": s.assignment.get_flag_display() if s.assignment.flag else None,
            "flag_note": s.assignment.flag_note,
        }

    return {
        "pair": pair_data(pair),
        "a": side(a),
        "b": side(b),
        "combined": combine(a.links if a else None, b.links if b else None),
        "seed": seed.links if seed else None,
        "not_submitted": not_submitted(pair=pair),
        "gold": None
        if gold is None
        else {
            "version": gold.version,
            "links": gold.links,
            "origin": gold.origin,
            "note": gold.note,
            "adjudicator": gold.adjudicator.get_username() if gold.adjudicator else None,
            "updated_at": gold.updated_at.isoformat(),
        },
        "history": [
            {
                "version": r.version,
                "origin": r.origin,
                "author": r.author.get_username() if r.author else None,
                "note": r.note,
                "links": len(r.links),
                "created_at": r.created_at.isoformat(),
            }
            for r in history
        ],
    }


def not_submitted(*, pair: SentencePair) -> list[dict[str, str]]:
    """The pair's active assignments nobody has submitted yet: each annotator and where their
    work stands ("Assigned", "In progress"), for the page's question before gold is saved."""
    rows = ab_order(
        Assignment.objects.filter(pair=pair, withdrawn_at__isnull=True).exclude(
            status=Assignment.Status.SUBMITTED
        )
    ).select_related("annotator")
    return [{"annotator": a.annotator.get_username(), "status": a.get_status_display()}
            for a in rows]  # fmt: skip


def _doubly_annotated(project: Project) -> QuerySet[SentencePair]:
    """Non-trial pairs with two or more active assignments, in corpus order, with the counts:
    found from the project's assignments (the work given out), not by grouping every pair."""
    doubly = (
        Assignment.objects.filter(
            pair__project=project, pair__is_trial=False, withdrawn_at__isnull=True
        )
        .values("pair_id")
        .annotate(n=Count("id"))
        .filter(n__gte=2)
        .values("pair_id")
    )
    active = Q(assignments__withdrawn_at__isnull=True)
    return (
        SentencePair.objects.filter(pk__in=doubly)
        .annotate(
            annotators=Count("assignments", filter=active),
            submitted=Count(
                "assignments",
                filter=active & Q(assignments__status=Assignment.Status.SUBMITTED),
            ),
        )
        .order_by("position", "id")
    )


class AdjudicationRows:
    """The pairs to adjudicate as a lazy sequence a Paginator counts and slices: a page reads
    its own rows only."""

    def __init__(self, pairs: QuerySet[SentencePair]) -> None:
        self.pairs = pairs

    def count(self) -> int:
        return self.pairs.order_by().values("pk").count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index: slice) -> list[dict[str, Any]]:
        rows = self.pairs.select_related("subcorpus", "gold")[index]
        return [
            {"pair": p, "annotators": p.annotators, "submitted": p.submitted,
             "gold": getattr(p, "gold", None)}
            for p in rows
        ]  # fmt: skip


def pairs_to_adjudicate(*, project: Project) -> AdjudicationRows:
    """Non-trial pairs with two or more active assignments (doubly annotated, or an import's
    annotators): how many of them are submitted, and the pair's gold; in corpus order."""
    return AdjudicationRows(_doubly_annotated(project))


def next_to_adjudicate(*, project: Project, pair: SentencePair) -> int | None:
    """The id of the pair after ``pair`` among the pairs to adjudicate (None: ``pair`` is the
    last, or not among them)."""
    pairs = _doubly_annotated(project).values_list("pk", flat=True)
    if not pairs.filter(pk=pair.pk).exists():
        return None
    later = Q(position__gt=pair.position) | Q(position=pair.position, pk__gt=pair.pk)
    return pairs.filter(later).first()


def pending_review(*, pair: SentencePair) -> GoldReview | None:
    """The pair's single-annotator submission waiting in the review queue, if any."""
    return (
        GoldReview.objects.filter(pair=pair, status=GoldReview.Status.PENDING)
        .select_related("assignment__annotator")
        .first()
    )


def review_queue(*, project: Project) -> list[Any]:
    """The project's pending single-annotator submissions, oldest first (the review queue).
    Each carries ``current_gold`` (the pair's gold, or None) and ``difference``: how the
    submission differs from that gold (``links_difference``), None when there is no gold or
    the same links, so the page asks before an accept replaces different gold."""
    rows = list(
        GoldReview.objects.filter(pair__project=project, status=GoldReview.Status.PENDING)
        .select_related("pair", "pair__subcorpus", "assignment__annotator")
        .order_by("created_at", "id")
    )
    golds = {g.pair_id: g for g in GoldAlignment.objects.filter(pair__in=[r.pair for r in rows])}
    links = dict(
        Annotation.objects.filter(assignment__in=[r.assignment for r in rows]).values_list(
            "assignment_id", "links"
        )
    )
    for r in rows:
        r.current_gold = golds.get(r.pair_id)
        r.submitted_links = len(links.get(r.assignment_id) or [])
        r.difference = None
        if r.current_gold is not None:
            d = links_difference(r.current_gold.links, links.get(r.assignment_id) or [])
            r.difference = d if d["added"] or d["removed"] or d["changed"] else None
    return rows
