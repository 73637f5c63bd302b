"""Fit the sentence aligner's bead confidences on Text+Berg dev, by cross-validation.

    .venv/bin/python benchmarks/sentalign_calibration.py [--data DIR] [--write]

Text+Berg dev is one long document pair, so it is cut into ``FOLDS`` consecutive regions at
gold bead boundaries; each region is aligned as a document of its own and, again, cut into
halves and quarters (documents of ~20 to ~85 beads, as a lead uploads them). A fold is a
region with all its documents: no text is both fitted and scored. Each bead is labelled
right when the gold has exactly that bead (null beads included).

Paired and null beads get a logistic model each (``alignment_core.sentalign.confidence``),
fitted by Newton's method with a small L2 penalty (bias unpenalised). Without ``--write`` it
prints the out-of-fold figures (``benchmarks/sentalign.py`` prints them too); with it, the
coefficients fitted on all folds replace ``alignment_core/sentalign/_confidence_coef.py``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from alignment_core.sentalign.align import bead_evidence  # noqa: E402
from alignment_core.sentalign.confidence import (  # noqa: E402
    NULL_FEATURES,
    PAIRED_FEATURES,
    probabilities,
)

FOLDS = 5
L2 = 1.0
COEF_FILE = REPO / "alignment_core" / "sentalign" / "_confidence_coef.py"


@dataclass
class Samples:
    """Every bead of every document: fold, paired or not, right or not, features, and the
    confidence before calibration."""

    fold: np.ndarray
    paired: np.ndarray
    right: np.ndarray
    x_paired: np.ndarray
    x_null: np.ndarray
    old: np.ndarray


def documents(src, tgt, gold, folds: int = FOLDS):
    """``(fold, source offset, target offset, gold beads)`` for the regions, their halves
    and their quarters."""
    cuts = np.linspace(0, len(gold), folds + 1).round().astype(int)
    for f in range(folds):
        region = gold[cuts[f] : cuts[f + 1]]
        for parts in (1, 2, 4):
            edges = np.linspace(0, len(region), parts + 1).round().astype(int)
            for p in range(parts):
                piece = region[edges[p] : edges[p + 1]]
                s_ids = [i for a, _ in piece for i in a]
                t_ids = [j for _, b in piece for j in b]
                if s_ids and t_ids:
                    yield f, s_ids, t_ids


def collect(src, tgt, gold) -> Samples:
    gold_set = {(tuple(a), tuple(b)) for a, b in gold}
    cols: dict[str, list] = {k: [] for k in ("fold", "paired", "right", "xp", "xn", "old")}
    for fold, s_ids, t_ids in documents(src, tgt, gold):
        ev = bead_evidence([src[i] for i in s_ids], [tgt[j] for j in t_ids])
        for b in ev.beads:
            glob = (tuple(s_ids[i] for i in b.src), tuple(t_ids[j] for j in b.tgt))
            cols["right"].append(glob in gold_set)
        cols["fold"] += [fold] * len(ev.beads)
        cols["paired"] += ev.is_paired.tolist()
        cols["xp"].append(ev.paired)
        cols["xn"].append(ev.null)
        cols["old"] += ev.uncalibrated
    return Samples(
        np.array(cols["fold"]),
        np.array(cols["paired"], dtype=bool),
        np.array(cols["right"], dtype=bool),
        np.vstack(cols["xp"]),
        np.vstack(cols["xn"]),
        np.array(cols["old"]),
    )


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float | None = None, steps: int = 50):
    """L2-penalised logistic regression by Newton's method (column 0 is the bias)."""
    l2 = L2 if l2 is None else l2
    w = np.zeros(x.shape[1])
    pen = np.full(x.shape[1], l2)
    pen[0] = 1e-6
    for _ in range(steps):
        p = probabilities(x, w)
        grad = x.T @ (p - y) + pen * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(pen)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def out_of_fold(s: Samples) -> np.ndarray:
    """Each bead's calibrated confidence from the models fitted without its fold."""
    pred = np.zeros(len(s.fold))
    fold_p, fold_n = s.fold[s.paired], s.fold[~s.paired]
    right_p, right_n = s.right[s.paired], s.right[~s.paired]
    for f in np.unique(s.fold):
        wp = fit_logistic(s.x_paired[fold_p != f], right_p[fold_p != f])
        wn = fit_logistic(s.x_null[fold_n != f], right_n[fold_n != f])
        idx_p = np.flatnonzero(s.paired)[fold_p == f]
        idx_n = np.flatnonzero(~s.paired)[fold_n == f]
        pred[idx_p] = probabilities(s.x_paired[fold_p == f], wp)
        pred[idx_n] = probabilities(s.x_null[fold_n == f], wn)
    return pred


def ece(conf: np.ndarray, right: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error: the bead-weighted mean |accuracy − mean confidence| over
    ``bins`` equal-width confidence bins."""
    if not len(conf):
        return 0.0
    which = np.minimum((conf * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        mask = which == b
        if mask.any():
            total += mask.sum() * abs(right[mask].mean() - conf[mask].mean())
    return total / len(conf)


def precision_recall(conf, right, threshold: float) -> tuple[float, float]:
    """Of the beads at or above ``threshold``: the share that are right; of the right beads:
    the share at or above it."""
    taken = conf >= threshold
    p = right[taken].mean() if taken.any() else 1.0
    r = taken[right].mean() if right.any() else 1.0
    return float(p), float(r)


def ranking_auc(conf: np.ndarray, right: np.ndarray) -> float:
    """The chance that a right bead is ranked above a wrong one (ties count half): what no
    calibration can change, only new evidence."""
    pos, neg = conf[right], conf[~right]
    if not len(pos) or not len(neg):
        return 1.0
    order = np.sort(neg)
    below = np.searchsorted(order, pos, side="left")
    ties = np.searchsorted(order, pos, side="right") - below
    return float((below + ties / 2).sum() / (len(pos) * len(neg)))


def best_precision_at_recall(conf: np.ndarray, right: np.ndarray, recall: float) -> float:
    """The highest precision of any threshold that keeps at least ``recall`` of the right
    beads: the ceiling of "accept all above" for this ranking, whatever the calibration."""
    order = np.argsort(-conf, kind="stable")
    hits = np.cumsum(right[order])
    taken = np.arange(1, len(conf) + 1)
    # only cut between different confidences: a threshold takes all the beads it ties with
    cut = np.r_[conf[order][1:] != conf[order][:-1], True]
    ok = cut & (hits >= recall * right.sum())
    return float((hits[ok] / taken[ok]).max()) if ok.any() else 0.0


def write_coefficients(s: Samples) -> None:
    wp = fit_logistic(s.x_paired, s.right[s.paired])
    wn = fit_logistic(s.x_null, s.right[~s.paired])

    def fmt(w, names):
        return (
            "(\n" + "".join(f"    {v:.6g},  # {n}\n" for v, n in zip(w, names, strict=True)) + ")"
        )

    COEF_FILE.write_text(
        '"""Generated by ``benchmarks/sentalign_calibration.py --write``: do not edit by hand.\n\n'
        "Logistic coefficients of ``confidence.PAIRED_FEATURES`` / ``NULL_FEATURES``, fitted on\n"
        f"Text+Berg dev ({len(s.fold)} beads of {FOLDS} regions' documents; "
        f"L2 {L2}).\n"
        '"""\n\n'
        f"PAIRED_COEF = {fmt(wp, PAIRED_FEATURES)}\n"
        f"NULL_COEF = {fmt(wn, NULL_FEATURES)}\n",
        encoding="utf-8",
    )
    print(f"wrote {COEF_FILE.relative_to(REPO)}")


def main() -> int:
    from sentalign import data_dir, read_textberg

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--write", action="store_true", help="refit on all folds and write")
    args = ap.parse_args()
    folder = data_dir(args.data)
    s = collect(*read_textberg(folder))
    pred = out_of_fold(s)
    for name, conf in (("uncalibrated", s.old), ("calibrated (out of fold)", pred)):
        p5, r5 = precision_recall(conf[s.paired], s.right[s.paired], 0.5)
        print(f"{name:<26} ECE {ece(conf, s.right):.3f}  P/R at 0.5 {p5:.3f} / {r5:.3f}")
    if args.write:
        write_coefficients(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
