"""The disagreement browser's rows: doubly annotated pairs, lowest agreement first.

Each row's figures are one pair's word- and phrase-level scores of one annotator against
another: every pair of its final annotations, in slot order (A+B, A+C, B+C for three
annotators, the dashboard's pairwise comparisons), from ``alignment_core.agreement``'s
per-pair scores. Read live from the database — no stored report needed — because a lead
adjudicating pairs wants the list as it is now.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from annotator.models import Project
from annotator.reports.selectors.reports import input_keys, pair_annotations


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
    rows: list[DisagreementRow]
    subcorpora: list[str] = field(default_factory=list)  # every choice of the filter
    annotator_pairs: list[str] = field(default_factory=list)
    total: int = 0  # rows (pair × pair of its annotators) before filtering


def pair_key(a: str, b: str) -> str:
    """An unordered annotator pair as the filter names it: ``"alice+bob"`` (names sorted)."""
    return "+".join(sorted((a, b)))


def _sort_key(row: DisagreementRow) -> tuple:
    # lowest F1 first; undefined F1 (no sure links on a side) after every defined one
    return (row.word_f1 is None, row.word_f1 if row.word_f1 is not None else 0.0, row.pair_id)


def disagreements(
    *,
    project: Project,
    subcorpus: str | None = None,
    annotator_pair: str | None = None,
    include_trial: bool = False,
) -> Disagreements:
    """Doubly annotated pairs, one row per pair of their annotators (a pair annotated by three
    people gives three rows), sorted by word F1 (lowest first), optionally only one subcorpus
    (name; "" = pairs without one) and one annotator pair (:func:`pair_key`)."""
    keys = input_keys(project=project, include_trial=include_trial)
    keys.rows = {pid: rows for pid, rows in keys.rows.items() if len(rows) >= 2}
    records = pair_annotations(keys=keys)
    external = dict(project.pairs.filter(pk__in=keys.rows).values_list("id", "external_id"))
    # every pair of annotators of each pair, in A/B order (A+B, A+C, B+C with three annotators,
    # as the dashboard's pairwise tables; issue 31, defect 6)
    sides = [
        (r, pair)
        for r in records
        for pair in itertools.combinations(list(r.annotations.items()), 2)
    ]
    from alignment_core.agreement.phrase import (
        score_alignments,  # numba: loaded when first used, never by an idle web process
    )

    word, phrase = score_alignments((r.source, r.target, s[0][1], s[1][1]) for r, s in sides)
    rows = [
        DisagreementRow(
            pair_id=int(r.pair_id),
            external_id=external[int(r.pair_id)],
            subcorpus=r.subcorpus,
            first=s[0][0],
            second=s[1][0],
            word_f1=w.f1,
            word_precision=w.precision_sure,
            word_recall=w.recall_sure,
            phrase_f1=p.f1,
            source=list(r.source),
            target=list(r.target),
        )
        for (r, s), w, p in zip(sides, word.per_pair(), phrase.per_pair(), strict=True)
    ]
    result = Disagreements(
        rows=[],
        subcorpora=sorted({row.subcorpus for row in rows}),
        annotator_pairs=sorted({row.annotator_pair for row in rows}),
        total=len(rows),
    )
    if subcorpus is not None:
        rows = [row for row in rows if row.subcorpus == subcorpus]
    if annotator_pair:
        rows = [row for row in rows if row.annotator_pair == annotator_pair]
    result.rows = sorted(rows, key=_sort_key)
    return result
