"""The lead's pair browser and read-only pair view (issue 31, "see anyone's work"): find pairs
by id or words, subcorpus, status, flag, annotator and agreement; then see each annotator's
alignment, the seed and the gold of one pair, with every revision and its time. Leads only:
the blind rule keeps annotators from seeing each other's work, so nothing here is reachable
from an annotator's pages."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet, TextField, Value
from django.db.models.functions import Upper

from annotator.models import (
    Annotation,
    Assignment,
    GoldAlignment,
    PairAgreement,
    Project,
    SeedAlignment,
    SentencePair,
)

STATUSES = ("unassigned", "assigned", "in_progress", "submitted", "gold", "no_gold")


@dataclass
class PairFilters:
    q: str = ""
    subcorpus: str = ""
    status: str = ""
    flag: str = ""
    annotator: str = ""
    max_agreement: float | None = None


def link_f1(a: list[list[Any]] | None, b: list[list[Any]] | None) -> float | None:
    """F1 between two annotators' link sets (sure and possible alike, 0-based (i, j) cells):
    2|A ∩ B| / (|A| + |B|); 1.0 when both are empty; None when one is missing."""
    if a is None or b is None:
        return None
    cells_a = {(int(i), int(j)) for i, j, *_ in a}
    cells_b = {(int(i), int(j)) for i, j, *_ in b}
    if not cells_a and not cells_b:
        return 1.0
    return 2 * len(cells_a & cells_b) / (len(cells_a) + len(cells_b))


# A page of the browser lists PAGE_SIZE pairs; the matches are counted up to COUNT_CAP (past
# it the page says "more than"), and pages go as far as the counted matches: at a million pairs
# neither the count nor a deep OFFSET walks the whole project (narrow the filters instead).
PAGE_SIZE = 100
COUNT_CAP = 10_000


def _filtered(project: Project, f: PairFilters) -> QuerySet[SentencePair]:
    """The matching pairs in project order (no row read yet)."""
    qs = SentencePair.objects.filter(project=project)
    current = Q(assignments__withdrawn_at__isnull=True)
    joined = False
    if f.q:
        qs = qs.filter(Q(external_id__icontains=f.q) | _has_words(f.q.split()))
    if f.subcorpus:
        qs = qs.filter(subcorpus__name=f.subcorpus)
    if f.status == "unassigned":
        qs = qs.exclude(pk__in=Assignment.objects.filter(withdrawn_at__isnull=True)
                        .values("pair_id"))  # fmt: skip
    elif f.status in ("assigned", "in_progress", "submitted"):
        qs, joined = qs.filter(current, assignments__status=f.status), True
    elif f.status == "gold":
        qs = qs.filter(gold__isnull=False)
    elif f.status == "no_gold":
        qs = qs.filter(gold__isnull=True)
    if f.flag == "any":
        flagged = Assignment.objects.filter(pair=OuterRef("pk"), withdrawn_at__isnull=True)
        qs = qs.filter(Exists(flagged.exclude(flag="")))
    elif f.flag:
        qs, joined = qs.filter(current, assignments__flag=f.flag), True
    if f.annotator:
        qs, joined = qs.filter(current, assignments__annotator__username=f.annotator), True
    # DISTINCT only where a join to the assignments can repeat a pair
    return (qs.distinct() if joined else qs).order_by("position", "id")


def _has_words(words: list[str]) -> Q:
    """Every word a substring of one side's tokens or the other's. The search text holds the
    tokens as JSON text, so each word is looked for as JSON writes it (a quote or backslash
    escaped; on SQLite, where the JSON is stored ASCII-escaped, every non-ASCII letter too:
    "été" is found there, not only on PostgreSQL). Both are case-folded by the database's own
    ``UPPER``, so they fold alike; the pattern is a constant the planner folds, so PostgreSQL's
    trigram index on the column can answer it."""
    ascii_only = connection.vendor != "postgresql"
    by_words = Q()
    for word in words:
        as_json = json.dumps(word, ensure_ascii=ascii_only)[1:-1]
        by_words &= Q(search_text__contains=Upper(Value(as_json, output_field=TextField())))
    return by_words


@dataclass
class BrowsedPage:
    """One page of the browser: its rows, its number (1-based), whether more follow, and the
    number of matches (None: more than ``COUNT_CAP``, or not counted: a search or the agreement
    filter, ``counted`` False)."""

    rows: list[dict[str, Any]]
    number: int
    has_next: bool
    total: int | None
    counted: bool = True
    per_page: int = PAGE_SIZE

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_other_pages(self) -> bool:
        return self.has_next or self.has_previous

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1

    @property
    def num_pages(self) -> int | None:
        return None if self.total is None else max(1, -(-self.total // self.per_page))


def page_number(text: str | None) -> int:
    """``?page=`` as a page of the browser: 1 for anything but a positive number, at most the
    last page the counted matches reach."""
    number = int(text) if text and text.isascii() and text.isdigit() else 1
    return min(max(number, 1), COUNT_CAP // PAGE_SIZE)


def browse_pairs(*, project: Project, filters: PairFilters, page: int = 1) -> BrowsedPage:
    """Page ``page`` of the pairs that match, in project order, each with its current
    assignments, whether it has gold, and the agreement (link F1) of its first two submitted
    annotations. Reads one page of rows, whatever the project's size."""
    qs = _filtered(project, filters)
    if filters.max_agreement is not None:
        return _browse_by_agreement(qs, project, filters.max_agreement, page)
    start = (page - 1) * PAGE_SIZE
    ids = list(qs.values_list("pk", flat=True)[start : start + PAGE_SIZE + 1])
    rows = [_row(pair) for pair in _with_work(ids[:PAGE_SIZE])]
    if filters.q:
        # A search is not counted: words no index can find are looked for pair by pair, and
        # the page stops at its hundredth match where a count would read the whole project.
        return BrowsedPage(rows, page, len(ids) > PAGE_SIZE, None, counted=False)
    counted = qs.order_by().values("pk")[: COUNT_CAP + 1].count()
    total = counted if counted <= COUNT_CAP else None
    return BrowsedPage(rows, page, len(ids) > PAGE_SIZE, total)


def _with_work(ids: list[int]) -> list[SentencePair]:
    """The pairs of ``ids`` in project order, with subcorpus, gold flag and current work."""
    current = Prefetch(
        "assignments",
        queryset=Assignment.objects.filter(withdrawn_at__isnull=True)
        .select_related("annotator", "annotation")
        .order_by("slot", "id"),
        to_attr="current_assignments",
    )
    return list(
        SentencePair.objects.filter(pk__in=ids)
        .select_related("subcorpus")
        .annotate(has_gold=Exists(GoldAlignment.objects.filter(pair=OuterRef("pk"))))
        .prefetch_related(current)
        .order_by("position", "id")
    )


def _row(pair: SentencePair) -> dict[str, Any]:
    submitted = [
        a.annotation.links
        for a in pair.current_assignments
        if a.status == Assignment.Status.SUBMITTED and hasattr(a, "annotation")
    ]
    agreement = link_f1(*submitted[:2]) if len(submitted) >= 2 else None
    return {"pair": pair, "assignments": pair.current_assignments,
            "source": snippet(pair.source_tokens), "target": snippet(pair.target_tokens),
            "gold": pair.has_gold, "agreement": agreement}  # fmt: skip


SNIPPET_CHARS = 90


def snippet(tokens: list[str], limit: int = SNIPPET_CHARS) -> str:
    """The sentence as the list shows it: its tokens joined by spaces, cut to ``limit``
    characters with an ellipsis, never between a letter and its combining marks; built once
    per row, so the template only escapes it."""
    text = " ".join(tokens)
    if len(text) <= limit:
        return text
    cut = limit - 1
    while cut > 0 and unicodedata.combining(text[cut]):
        cut -= 1
    return text[:cut] + "…"


def _browse_by_agreement(
    qs: QuerySet[SentencePair], project: Project, at_most: float, page: int
) -> BrowsedPage:
    """The agreement filter: the pairs whose stored agreement (``PairAgreement.link_f1``, kept
    by ``projects.services.agreement_scores``; the caller refreshes it first) is at most
    ``at_most``, in project order, one page read (not counted, as before)."""
    low = PairAgreement.objects.filter(project=project, rank=0, link_f1__lte=at_most)
    start = (page - 1) * PAGE_SIZE
    ids = list(
        qs.filter(pk__in=low.values("pair_id")).values_list("pk", flat=True)[
            start : start + PAGE_SIZE + 1
        ]
    )
    rows = [_row(pair) for pair in _with_work(ids[:PAGE_SIZE])]
    return BrowsedPage(rows, page, len(ids) > PAGE_SIZE, None, counted=False)


@dataclass
class Layer:
    """One alignment of a pair: an annotator's, the seed or the gold, with its history."""

    key: str
    title: str
    links: list[list[Any]] | None
    status: str = ""
    history: list[dict[str, Any]] = field(default_factory=list)


def pair_layers(*, pair: SentencePair) -> list[Layer]:
    """Each annotator's current alignment (every assignment, withdrawn ones marked), the latest
    seed and the gold, each with its revisions (version, kind, time, links, author)."""
    layers: list[Layer] = []
    assignments = (
        Assignment.objects.filter(pair=pair)
        .select_related("annotator")
        .prefetch_related(Prefetch("annotation", queryset=Annotation.objects.all()))
        .order_by("slot", "id")
    )
    for k, a in enumerate(assignments):
        annotation = getattr(a, "annotation", None) if hasattr(a, "annotation") else None
        history = []
        if annotation is not None:
            for r in annotation.revisions.select_related("author").order_by("version"):
                history.append({"version": r.version, "kind": r.get_kind_display(),
                                "at": r.created_at, "links": len(r.links),
                                "author": r.author.get_username() if r.author else "",
                                "seconds": r.elapsed_seconds})  # fmt: skip
        status = a.get_status_display() + (" (withdrawn)" if a.withdrawn_at else "")
        if a.flag:
            status += f" · flagged: {a.get_flag_display()}"
        layers.append(Layer(f"a{k}", a.annotator.get_username(),
                            annotation.links if annotation else None, status, history))  # fmt: skip
    seed = (
        SeedAlignment.objects.filter(pair=pair).select_related("aligner_run")
        .order_by("-aligner_run__created_at", "-id").first()
    )  # fmt: skip
    if seed is not None:
        layers.append(Layer("seed", "Seed", seed.links,
                            f"aligner run {seed.aligner_run_id}"))  # fmt: skip
    gold = GoldAlignment.objects.filter(pair=pair).first()
    if gold is not None:
        history = [{"version": r.version, "kind": r.get_origin_display(), "at": r.created_at,
                    "links": len(r.links), "author": r.author.get_username() if r.author else "",
                    "seconds": None, "note": r.note}
                   for r in gold.revisions.select_related("author").order_by("version")]  # fmt: skip
        layers.append(Layer("gold", "Gold", gold.links, gold.get_origin_display(), history))
    return layers


def grid_rows(pair: SentencePair, layers: list[Layer]) -> list[dict[str, Any]]:
    """The overlay: for each source token, each target cell's marks from every layer."""
    marks: dict[tuple[int, int], list[tuple[str, str]]] = {}
    for layer in layers:
        for i, j, kind, *_ in layer.links or []:
            marks.setdefault((int(i), int(j)), []).append((layer.key, kind))
    return [
        {"token": token, "cells": [marks.get((i, j), []) for j in range(len(pair.target_tokens))]}
        for i, token in enumerate(pair.source_tokens)
    ]


def layer_grid(pair: SentencePair, layer: Layer) -> list[dict[str, Any]]:
    cells = {(int(i), int(j)): kind for i, j, kind, *_ in layer.links or []}
    return [
        {"token": token, "cells": [cells.get((i, j), "") for j in range(len(pair.target_tokens))]}
        for i, token in enumerate(pair.source_tokens)
    ]
