"""Word-level agreement of a test alignment A against a reference B (SPEC §3).

Counted over links between NON-IDENTICAL words (``x_i.casefold() != y_j.casefold()``) unless
``include_identical``. Corpus figures are micro-averaged: numerators and denominators are summed
over pairs before dividing.

- precision_sure = |A_S ∩ B_P| / |A_S|,  recall_sure = |A_P ∩ B_S| / |B_S|
- f1 = 2·P·R / (P + R) of those two
- precision_possible = |A_P ∩ B_P| / |A_P|,  recall_possible = |A_P ∩ B_P| / |B_P|
- aer = 1 − (|A_P ∩ B_S| + |A_P ∩ B_P|) / (|A_P| + |B_S|)

**0/0**: a ratio whose denominator is 0 is *undefined* and is ``None`` (``null`` in JSON), never
NaN. ``f1`` is ``None`` when precision or recall is undefined and 0.0 when both are 0.
All figures are fractions in [0, 1], not percentages.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from alignment_core.agreement.batch import WORD_COLUMNS, ScoreItem, count_pairs
from alignment_core.alignment import Alignment

WORD_FIGURES = (
    "precision_sure",
    "recall_sure",
    "f1",
    "precision_possible",
    "recall_possible",
    "aer",
)


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None (undefined) when the denominator is 0."""
    return float(numerator) / float(denominator) if denominator else None


def f_measure(precision: float | None, recall: float | None) -> float | None:
    """2·P·R / (P + R); None if either is undefined, 0.0 if both are 0."""
    if precision is None or recall is None:
        return None
    if precision + recall == 0:
        return 0.0
    return 2.0 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class WordCounts:
    """Raw link counts behind the word-level figures (already filtered for identity)."""

    test_sure: int = 0  # |A_S|
    test_links: int = 0  # |A_P|
    ref_sure: int = 0  # |B_S|
    ref_links: int = 0  # |B_P|
    test_sure_matched: int = 0  # |A_S ∩ B_P|
    ref_sure_matched: int = 0  # |A_P ∩ B_S|
    links_matched: int = 0  # |A_P ∩ B_P|

    def __add__(self, other: WordCounts) -> WordCounts:
        return WordCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def as_dict(self) -> dict[str, int]:
        return {f.name: int(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class WordScores:
    """Word-level figures (fractions, None = undefined 0/0) with their counts.

    For a corpus, ``pairs`` is the number of pairs scored and :meth:`per_pair` gives each pair's
    own figures (in input order).
    """

    precision_sure: float | None
    recall_sure: float | None
    f1: float | None
    precision_possible: float | None
    recall_possible: float | None
    aer: float | None
    counts: WordCounts
    pairs: int = 1
    _pair_counts: np.ndarray | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_counts(cls, c: WordCounts, pairs: int = 1, pair_counts: Any = None) -> WordScores:
        p = ratio(c.test_sure_matched, c.test_sure)
        r = ratio(c.ref_sure_matched, c.ref_sure)
        den = c.test_links + c.ref_sure
        aer = None if den == 0 else 1.0 - (c.ref_sure_matched + c.links_matched) / den
        return cls(
            precision_sure=p,
            recall_sure=r,
            f1=f_measure(p, r),
            precision_possible=ratio(c.links_matched, c.test_links),
            recall_possible=ratio(c.links_matched, c.ref_links),
            aer=aer,
            counts=c,
            pairs=pairs,
            _pair_counts=pair_counts,
        )

    def as_dict(self) -> dict[str, float | None]:
        """The six figures, keyed as in the ``score`` JSON contract (None for undefined)."""
        return {name: getattr(self, name) for name in WORD_FIGURES}

    def per_pair(self) -> list[WordScores]:
        """Each pair's own figures, in input order (empty unless built by :func:`score_word`)."""
        if self._pair_counts is None:
            return []
        return [WordScores.from_counts(WordCounts(*map(int, row))) for row in self._pair_counts]


def word_scores_from_rows(rows: np.ndarray) -> WordScores:
    """Micro-averaged scores from per-pair count rows (columns ``WORD_COLUMNS``)."""
    rows = np.asarray(rows, np.int64).reshape(-1, len(WORD_COLUMNS))
    total = WordCounts(*(int(x) for x in rows.sum(axis=0)))
    return WordScores.from_counts(total, pairs=len(rows), pair_counts=rows)


def score_word(items: Iterable[ScoreItem], *, include_identical: bool = False) -> WordScores:
    """Micro-averaged word-level scores of test A against reference B over all items.

    ``items`` yields ``(source_tokens, target_tokens, test: Alignment, reference: Alignment)``;
    links are 0-based (i into source, j into target). Identical-word links are left out unless
    ``include_identical``. Raises ValueError when a link lies outside its pair's grid.
    """
    rows = count_pairs(items, include_identical=include_identical, phrases=False)
    return word_scores_from_rows(rows[:, : len(WORD_COLUMNS)])


def word_counts(
    source: Sequence[str],
    target: Sequence[str],
    test: Alignment,
    reference: Alignment,
    *,
    include_identical: bool = False,
) -> WordCounts:
    """The counts of one pair with plain sets: the readable definition the kernel is held to."""

    def keep(links: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
        if include_identical:
            return links
        return frozenset((i, j) for i, j in links if source[i].casefold() != target[j].casefold())

    a_s, a_p = keep(test.sure), keep(test.all_links)
    b_s, b_p = keep(reference.sure), keep(reference.all_links)
    return WordCounts(
        test_sure=len(a_s),
        test_links=len(a_p),
        ref_sure=len(b_s),
        ref_links=len(b_p),
        test_sure_matched=len(a_s & b_p),
        ref_sure_matched=len(a_p & b_s),
        links_matched=len(a_p & b_p),
    )
