"""The disagreement browser's rows: doubly annotated pairs, lowest agreement first.

Each row's figures are one pair's word- and phrase-level scores of one annotator against
another: every pair of its final annotations, in slot order (A+B, A+C, B+C for three
annotators, the dashboard's pairwise comparisons), from ``alignment_core.agreement``'s
per-pair scores. Read from the scores stored per pair (``PairAgreement``), which the page
refreshes for the pairs changed since its last read, so a lead adjudicating pairs sees the list
as it is now without every doubly annotated pair being scored per view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import F, Q, QuerySet

from annotator.models import PairAgreement, Project
from annotator.reports.selectors.reports import NO_SUBCORPUS


@dataclass(frozen=True)
class DisagreementRow:
    pair_id: int
    external_id: str
    subcorpus: str
    first: str  # annotator A (slot 1)
    second: str  # annotator B (slot 2)
    word_f1: float | None
    word_precision: float | None
    word_recall: float | None
    phrase_f1: float | None
    source: list[str]
    target: list[str]

    @property
    def annotator_pair(self) -> str:
        return pair_key(self.first, self.second)


@dataclass
class Disagreements:
    rows: Sequence[DisagreementRow]
    subcorpora: list[str] = field(default_factory=list)  # every choice of the filter
    annotator_pairs: list[str] = field(default_factory=list)
    total: int = 0  # rows (pair × pair of its annotators) before filtering


def pair_key(a: str, b: str) -> str:
    """An unordered annotator pair as the filter names it: ``"alice+bob"`` (names sorted)."""
    return "+".join(sorted((a, b)))


class StoredRows(Sequence):
    """The rows that match, in browser order (lowest word F1 first, undefined F1 after every
    defined one, then by pair and A/B order), read from the stored scores a slice at a time:
    a page reads its own rows only. ``count()`` counts them in the database."""

    def __init__(self, qs: QuerySet[PairAgreement]):
        self._qs = qs.order_by(F("word_f1").asc(nulls_last=True), "pair_id", "rank")
        self._count: int | None = None

    def count(self) -> int:
        if self._count is None:
            self._count = self._qs.count()
        return self._count

    def __len__(self) -> int:
        return self.count()

    def __iter__(self):
        return iter(_rows_of(self._qs))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return _rows_of(self._qs[index])
        if index < 0:
            index += self.count()
        found = _rows_of(self._qs[index : index + 1])
        if not found:
            raise IndexError(index)
        return found[0]


def _rows_of(qs: QuerySet[PairAgreement]) -> list[DisagreementRow]:
    stored = list(
        qs.values_list(
            "pair_id", "pair__external_id", "pair__subcorpus__name", "first__username",
            "second__username", "word_f1", "word_precision", "word_recall", "phrase_f1",
            "pair__source_tokens", "pair__target_tokens",
        )
    )  # fmt: skip
    # (pair, external id, subcorpus, first, second, four scores, source, target)
    return [
        DisagreementRow(r[0], r[1], r[2] or NO_SUBCORPUS, *r[3:9], list(r[9]), list(r[10]))
        for r in stored
    ]


def disagreements(
    *,
    project: Project,
    subcorpus: str | None = None,
    annotator_pair: str | None = None,
    include_trial: bool = False,
) -> Disagreements:
    """Doubly annotated pairs, one row per pair of their annotators (a pair annotated by three
    people gives three rows), sorted by word F1 (lowest first), optionally only one subcorpus
    (name; "" = pairs without one) and one annotator pair (:func:`pair_key`).

    Read from the stored scores (``PairAgreement``): the caller refreshes them first
    (``projects.services.agreement_scores.refresh_scores``). The rows are a lazy sequence
    (:class:`StoredRows`): a page of them reads that page."""
    every = PairAgreement.objects.filter(project=project)
    if not include_trial:
        every = every.filter(is_trial=False)
    names = dict(project.subcorpora.values_list("pk", "name"))
    subs = every.order_by().values_list("subcorpus_id", flat=True).distinct()
    people = every.order_by().values_list("first__username", "second__username").distinct()
    keys: dict[str, list[tuple[str, str]]] = {}
    for a, b in people:
        keys.setdefault(pair_key(a, b), []).append((a, b))
    result = Disagreements(
        rows=[],
        subcorpora=sorted({names.get(pk) or NO_SUBCORPUS for pk in subs}),
        annotator_pairs=sorted(keys),
        total=every.count(),
    )
    chosen = every
    if subcorpus is not None:
        ids = [pk for pk, name in names.items() if name == subcorpus]
        none = Q(subcorpus_id__isnull=True) if subcorpus == NO_SUBCORPUS else Q(pk__in=[])
        chosen = chosen.filter(Q(subcorpus_id__in=ids) | none)
    if annotator_pair:
        wanted = Q(pk__in=[])
        for a, b in keys.get(annotator_pair, []):
            wanted |= Q(first__username=a, second__username=b)
        chosen = chosen.filter(wanted)
    result.rows = StoredRows(chosen)
    return result
