"""Phrase-level agreement of a test alignment A against a reference B (SPEC §4).

cons(L) / atom(L) are the consistent / atomic phrase pairs of L (``alignment_core.phrases``),
restricted to NON-IDENTICAL pairs (casefolded source text != target text) unless
``include_identical``. Atomicity is decided on the whole alignment first, then identical pairs are
dropped (dropping first would turn composites into atoms). compat(B) are the boxes *compatible*
with B: consistent with some L with B_S ⊆ L ⊆ B_P, i.e. no SURE link of B crosses the box's edge
and each of its four boundary words has a link of B_P inside it (``phrases.is_compatible``).

- precision_sure = |atom(A_S) ∩ compat(B)| / |atom(A_S)|
- recall_sure = |compat(A) ∩ atom(B_S)| / |atom(B_S)|
- precision_possible = |atom(A_P) ∩ cons(B_P)| / |atom(A_P)|
- recall_possible = |cons(A_P) ∩ atom(B_P)| / |atom(B_P)|
- f1 from the sure pair, as at word level.

The sure columns match against compat, not cons(B_P): a sure phrase must respect the reference's
sure links, while its possible links may be there or not (as at word level, where A_S is matched
against B_P). So any alignment scored against itself gets 1.0 in every column.

Micro-averaged over pairs; 0/0 is None exactly as at word level (see ``word.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from alignment_core.agreement.batch import PHRASE_COLUMNS, WORD_COLUMNS, ScoreItem, count_pairs
from alignment_core.agreement.word import WordScores, f_measure, ratio, word_scores_from_rows
from alignment_core.alignment import Alignment
from alignment_core.phrases import (
    atomic_phrases,
    consistent_phrases,
    is_compatible,
    non_identical,
)

PHRASE_FIGURES = ("precision_sure", "recall_sure", "f1", "precision_possible", "recall_possible")


@dataclass(frozen=True)
class PhraseCounts:
    """Raw phrase-pair counts behind the phrase-level figures (already filtered for identity)."""

    test_sure_atoms: int = 0  # |atom(A_S)|
    test_sure_atoms_matched: int = 0  # |atom(A_S) ∩ compat(B)|
    ref_sure_atoms: int = 0  # |atom(B_S)|
    ref_sure_atoms_matched: int = 0  # |compat(A) ∩ atom(B_S)|
    test_atoms: int = 0  # |atom(A_P)|
    test_atoms_matched: int = 0  # |atom(A_P) ∩ cons(B_P)|
    ref_atoms: int = 0  # |atom(B_P)|
    ref_atoms_matched: int = 0  # |cons(A_P) ∩ atom(B_P)|

    def __add__(self, other: PhraseCounts) -> PhraseCounts:
        return PhraseCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def as_dict(self) -> dict[str, int]:
        return {f.name: int(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class PhraseScores:
    """Phrase-level figures (fractions, None = undefined 0/0) with their counts."""

    precision_sure: float | None
    recall_sure: float | None
    f1: float | None
    precision_possible: float | None
    recall_possible: float | None
    counts: PhraseCounts
    pairs: int = 1
    _pair_counts: np.ndarray | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_counts(cls, c: PhraseCounts, pairs: int = 1, pair_counts: Any = None) -> PhraseScores:
        p = ratio(c.test_sure_atoms_matched, c.test_sure_atoms)
        r = ratio(c.ref_sure_atoms_matched, c.ref_sure_atoms)
        return cls(
            precision_sure=p,
            recall_sure=r,
            f1=f_measure(p, r),
            precision_possible=ratio(c.test_atoms_matched, c.test_atoms),
            recall_possible=ratio(c.ref_atoms_matched, c.ref_atoms),
            counts=c,
            pairs=pairs,
            _pair_counts=pair_counts,
        )

    def as_dict(self) -> dict[str, float | None]:
        """The five figures, keyed as in the ``score`` JSON contract (None for undefined)."""
        return {name: getattr(self, name) for name in PHRASE_FIGURES}

    def per_pair(self) -> list[PhraseScores]:
        """Each pair's own figures, in input order."""
        if self._pair_counts is None:
            return []
        return [PhraseScores.from_counts(PhraseCounts(*map(int, r))) for r in self._pair_counts]


def phrase_scores_from_rows(rows: np.ndarray) -> PhraseScores:
    """Micro-averaged scores from per-pair count rows (columns ``PHRASE_COLUMNS``)."""
    rows = np.asarray(rows, np.int64).reshape(-1, len(PHRASE_COLUMNS))
    total = PhraseCounts(*(int(x) for x in rows.sum(axis=0)))
    return PhraseScores.from_counts(total, pairs=len(rows), pair_counts=rows)


def score_phrase(items: Iterable[ScoreItem], *, include_identical: bool = False) -> PhraseScores:
    """Micro-averaged phrase-level scores of test A against reference B over all items
    ``(source_tokens, target_tokens, test, reference)`` (0-based links)."""
    rows = count_pairs(items, include_identical=include_identical, phrases=True)
    return phrase_scores_from_rows(rows[:, len(WORD_COLUMNS) :])


def score_alignments(
    items: Iterable[ScoreItem], *, include_identical: bool = False
) -> tuple[WordScores, PhraseScores]:
    """Word- and phrase-level scores in one pass (what ``score`` and the report use)."""
    rows = count_pairs(items, include_identical=include_identical, phrases=True)
    nw = len(WORD_COLUMNS)
    return word_scores_from_rows(rows[:, :nw]), phrase_scores_from_rows(rows[:, nw:])


def phrase_counts(
    source: Sequence[str],
    target: Sequence[str],
    test: Alignment,
    reference: Alignment,
    *,
    include_identical: bool = False,
) -> PhraseCounts:
    """The counts of one pair with explicit phrase sets: the readable definition."""
    n, m = len(source), len(target)

    def atoms(links: frozenset[tuple[int, int]]) -> set:
        found = atomic_phrases(links, n, m)
        return set(found if include_identical else non_identical(source, target, found))

    def cons(links: frozenset[tuple[int, int]]) -> set:
        return set(consistent_phrases(links, n, m))

    def compatible(boxes: set, other: Alignment) -> set:  # boxes ∩ compat(other)
        return {b for b in boxes if is_compatible(other.sure, other.all_links, n, m, b)}

    a_s, a_p = atoms(test.sure), atoms(test.all_links)
    b_s, b_p = atoms(reference.sure), atoms(reference.all_links)
    ca, cb = cons(test.all_links), cons(reference.all_links)
    return PhraseCounts(
        test_sure_atoms=len(a_s),
        test_sure_atoms_matched=len(compatible(a_s, reference)),
        ref_sure_atoms=len(b_s),
        ref_sure_atoms_matched=len(compatible(b_s, test)),
        test_atoms=len(a_p),
        test_atoms_matched=len(a_p & cb),
        ref_atoms=len(b_p),
        ref_atoms_matched=len(ca & b_p),
    )
