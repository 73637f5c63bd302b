"""Strict and lax precision / recall / F1 over beads, as Vecalign's ``score.py`` computes them
(Sennrich & Volk 2011's measures).

* Precision runs over the test beads (null beads included, the empty-empty bead left out): a
  bead is a strict hit when the gold has exactly it, a lax hit when it is a strict hit or some
  source sentence of it is aligned in the gold to some target sentence of it.
* Recall is the same count with gold and test swapped and null beads removed from both.
Counts are summed over documents before the ratios are taken.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

BeadPair = tuple[Sequence[int], Sequence[int]]


@dataclass(frozen=True)
class BeadScores:
    precision_strict: float
    recall_strict: float
    f1_strict: float
    precision_lax: float
    recall_lax: float
    f1_lax: float

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


def _counts(gold: Iterable[BeadPair], test: Iterable[BeadPair]) -> tuple[int, int, int, int]:
    """(strict hits, strict misses, lax hits, lax misses) of ``test`` against ``gold``."""
    gold_set = {(tuple(s), tuple(t)) for s, t in gold if len(s) or len(t)}
    test_set = {(tuple(s), tuple(t)) for s, t in test if len(s) or len(t)}
    partners: dict[int, set[int]] = defaultdict(set)
    for s, t in gold_set:
        for i in s:
            partners[i].update(t)
    tp_s = fp_s = tp_l = fp_l = 0
    for s, t in test_set:
        if (s, t) in gold_set:
            tp_s += 1
            tp_l += 1
        elif any(j in partners[i] for i in s for j in t):
            fp_s += 1
            tp_l += 1
        else:
            fp_s += 1
            fp_l += 1
    return tp_s, fp_s, tp_l, fp_l


def _ratio(a: int, b: int) -> float:
    return a / (a + b) if a + b else 0.0


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def score_beads(
    gold_docs: Sequence[Sequence[BeadPair]], test_docs: Sequence[Sequence[BeadPair]]
) -> BeadScores:
    """Scores summed over documents (``gold_docs[k]`` against ``test_docs[k]``)."""
    p = [0, 0, 0, 0]
    r = [0, 0, 0, 0]
    for gold, test in zip(gold_docs, test_docs, strict=True):
        for k, v in enumerate(_counts(gold, test)):
            p[k] += v
        gold_full = [(s, t) for s, t in gold if len(s) and len(t)]
        test_full = [(s, t) for s, t in test if len(s) and len(t)]
        for k, v in enumerate(_counts(test_full, gold_full)):
            r[k] += v
    ps, pl = _ratio(p[0], p[1]), _ratio(p[2], p[3])
    rs, rl = _ratio(r[0], r[1]), _ratio(r[2], r[3])
    return BeadScores(ps, rs, _f1(ps, rs), pl, rl, _f1(pl, rl))
