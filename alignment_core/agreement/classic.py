"""Classic agreement coefficients leads expect beside κ_C (SPEC §6).

Labels: ``NONE = 0``, ``SURE = 1``, ``POSSIBLE = 2`` (possible-only links; sure ⊆ possible as in
SPEC §1 means a link is labelled by its strongest kind).

- :func:`cohen_kappa_cells`: Cohen's κ of two annotators over every cell of every pair's
  N × M grid, pooled (one 3 × 3 confusion table for the corpus; all cells, identical words too).
- :func:`link_items`: the items of Fleiss' κ and Krippendorff's α: per pair, the union of the links
  any annotator made (all of them, identical words too), in sorted (i, j) order; each annotator's
  label on an item is sure, possible or none, or *missing* (-1) when that annotator did not
  annotate the pair.
- :func:`fleiss_kappa`: over the items every annotator labelled (items with a missing label are
  left out, as Fleiss' κ needs the same number of raters per item).
- :func:`krippendorff_alpha`: nominal α over all items; missing labels allowed, items with fewer
  than two labels are not pairable and do not count.

Every coefficient is None (undefined) when chance agreement is total, e.g. everybody used one
label only; never NaN.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from alignment_core.alignment import Alignment

NONE, SURE, POSSIBLE = 0, 1, 2
CATEGORIES = 3
MISSING = -1


def _label(a: Alignment, link: tuple[int, int]) -> int:
    if link in a.sure:
        return SURE
    return POSSIBLE if link in a.possible else NONE


def cell_confusion(pairs: Iterable[tuple[int, int, Alignment, Alignment]]) -> np.ndarray:
    """3 × 3 table of (label of A, label of B) over all cells of all (n, m, A, B) pairs."""
    table = np.zeros((CATEGORIES, CATEGORIES), np.int64)
    for n, m, a, b in pairs:
        linked = a.all_links | b.all_links
        for link in linked:
            table[_label(a, link), _label(b, link)] += 1
        table[NONE, NONE] += n * m - len(linked)
    return table


def kappa_from_confusion(table: np.ndarray) -> float | None:
    """Cohen's κ = (p_o − p_e) / (1 − p_e) of a square confusion table; None if p_e = 1."""
    table = np.asarray(table, float)
    total = table.sum()
    if total == 0:
        return None
    po = np.trace(table) / total
    pe = float((table.sum(axis=0) * table.sum(axis=1)).sum()) / total**2
    if pe >= 1.0 - 1e-12:
        return None
    return float((po - pe) / (1.0 - pe))


def cohen_kappa_cells(pairs: Iterable[tuple[int, int, Alignment, Alignment]]) -> float | None:
    """Cohen's κ of annotators A and B over all N × M cells of all (n, m, A, B) pairs, labels
    sure / possible / none, pooled over the corpus."""
    return kappa_from_confusion(cell_confusion(pairs))


def link_items(
    pairs: Iterable[Mapping[str, Alignment | None]], annotators: Sequence[str]
) -> np.ndarray:
    """Items × annotators int8 matrix of labels (NONE, SURE, POSSIBLE, or MISSING = -1).

    Each element of ``pairs`` maps annotator name → that annotator's alignment of the pair (a
    missing key or None means the annotator did not annotate it). Items are the union of the links
    any annotator made on the pair, in sorted (i, j) order, pairs in input order.
    """
    rows: list[list[int]] = []
    for pair in pairs:
        alignments = [pair.get(name) for name in annotators]
        present = [a for a in alignments if a is not None]
        union = sorted(frozenset().union(*(a.all_links for a in present)))
        for link in union:
            rows.append([MISSING if a is None else _label(a, link) for a in alignments])
    return np.asarray(rows, np.int8).reshape(len(rows), len(annotators))


def category_counts(labels: np.ndarray) -> np.ndarray:
    """Items × 3 table: how many annotators gave each label to each item (MISSING ignored)."""
    labels = np.asarray(labels)
    return np.stack([(labels == c).sum(axis=1) for c in range(CATEGORIES)], axis=1)


def fleiss_kappa(labels: np.ndarray) -> tuple[float | None, int]:
    """Fleiss' κ over the items labelled by every annotator; returns (κ or None, items used)."""
    labels = np.asarray(labels)
    complete = labels[(labels != MISSING).all(axis=1)] if labels.size else labels
    counts = category_counts(complete).astype(float)
    items = counts.shape[0]
    raters = labels.shape[1] if labels.ndim == 2 else 0
    if items == 0 or raters < 2:
        return None, items
    p_item = ((counts**2).sum(axis=1) - raters) / (raters * (raters - 1))
    p_bar = p_item.mean()
    p_cat = counts.sum(axis=0) / (items * raters)
    pe = float((p_cat**2).sum())
    if pe >= 1.0 - 1e-12:
        return None, items
    return float((p_bar - pe) / (1.0 - pe)), items


def krippendorff_alpha(labels: np.ndarray) -> tuple[float | None, int]:
    """Nominal Krippendorff's α via the coincidence matrix; returns (α or None, pairable items).

    ``labels`` is items × annotators with MISSING = -1 allowed; items with fewer than two labels
    are left out.
    """
    counts = category_counts(labels).astype(float) if np.size(labels) else np.zeros((0, 3))
    m_u = counts.sum(axis=1)
    counts = counts[m_u >= 2]
    m_u = m_u[m_u >= 2]
    if counts.shape[0] == 0:
        return None, 0
    # coincidences o_ck = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1)
    weighted = counts / (m_u - 1)[:, None]
    coinc = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    n_c = coinc.sum(axis=1)
    n = n_c.sum()
    expected = n * n - float((n_c**2).sum())
    if expected <= 0:
        return None, int(counts.shape[0])
    observed = n - float(np.trace(coinc))
    return float(1.0 - (n - 1) * observed / expected), int(counts.shape[0])


@dataclass(frozen=True)
class MultiRaterAgreement:
    """Fleiss' κ and Krippendorff's α of 2+ annotators over link items (see module doc)."""

    items: int  # link items in total
    fleiss_items: int  # items labelled by every annotator
    alpha_items: int  # items with at least two labels
    fleiss_kappa: float | None
    krippendorff_alpha: float | None

    def as_dict(self) -> dict:
        return {
            "items": self.items,
            "fleiss_kappa": self.fleiss_kappa,
            "krippendorff_alpha": self.krippendorff_alpha,
        }


def multi_rater_agreement(
    pairs: Iterable[Mapping[str, Alignment | None]], annotators: Sequence[str]
) -> MultiRaterAgreement:
    """Fleiss' κ and Krippendorff's α over the link items of ``pairs`` (see :func:`link_items`)."""
    labels = link_items(pairs, annotators)
    fk, f_items = fleiss_kappa(labels)
    ka, a_items = krippendorff_alpha(labels)
    return MultiRaterAgreement(int(labels.shape[0]), f_items, a_items, fk, ka)
