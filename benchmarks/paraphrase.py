"""The pair classifier (issue 33) on MSRP train by cross-validation, with its learning curve.

    .venv/bin/python benchmarks/paraphrase.py [--data DIR] [--folds 10] [--no-resources]
        [--json FILE]

The 4,076 pairs of ``msrp-train`` play the lead's decisions. Stratified k-fold
cross-validation (fixed seed): each fold is predicted by a classifier fitted on the other
folds only, so every pair is scored by a model that never saw it. The learning curve fits on
the first 100, 500, 1,000 and all training pairs of each fold (a fixed shuffled order) and is
scored on the same held-out folds.

Anchors: published test-set figures without neural models (accuracy / F1): TF-IDF cosine
69.6 / 81.2, Wan et al. 2006 75.6 / 83.0, Madnani et al. 2012 77.4 / 84.1; and in the same
run a TF-IDF cosine with its threshold chosen on the training folds. Goal: accuracy ≥ 76.0
and F1 ≥ 83.5. The test set is kept elsewhere; nothing here ships (MSRP's licence).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from alignment_core.formats.msrp import parse_msrp  # noqa: E402
from alignment_core.paraphrase.features import FeatureExtractor, Resources  # noqa: E402
from alignment_core.paraphrase.model import DEFAULT_THRESHOLD, PairClassifier  # noqa: E402

PUBLISHED = {"TF-IDF cosine": (69.6, 81.2), "Wan et al. 2006": (75.6, 83.0),
             "Madnani et al. 2012": (77.4, 84.1)}  # fmt: skip
GOAL = (76.0, 83.5)
SIZES = (100, 500, 1000, None)


def data_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    return Path(os.environ.get("GRIDALIGN_SHARED_DATA", REPO.parent / "shared" / "data"))


def acc_f1(y: np.ndarray, pred: np.ndarray) -> tuple[float, float]:
    tp = int(((pred == 1) & (y == 1)).sum())
    p = tp / max(int(pred.sum()), 1)
    r = tp / max(int(y.sum()), 1)
    return 100 * float((pred == y).mean()), 100 * (2 * p * r / (p + r) if p + r else 0.0)


def tfidf_cosines(pairs) -> np.ndarray:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(lowercase=True).fit(
        [p.string1 for p in pairs] + [p.string2 for p in pairs]
    )
    a = vec.transform([p.string1 for p in pairs])
    b = vec.transform([p.string2 for p in pairs])
    return np.asarray(a.multiply(b).sum(1)).ravel()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--no-resources", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    from sklearn.model_selection import StratifiedKFold

    path = data_dir(args.data) / "msrp-train" / "msr_paraphrase_train.txt"
    if not path.is_file():
        print(f"error: {path} not found (set GRIDALIGN_SHARED_DATA or --data)")
        return 1
    pairs = parse_msrp(path.read_text(encoding="utf-8"), str(path))
    y = np.array([p.quality for p in pairs])
    t0 = time.perf_counter()
    resources = None if args.no_resources else Resources.load()
    X = FeatureExtractor(resources).matrix([(p.string1, p.string2) for p in pairs])
    print(f"MSRP train: {len(pairs)} pairs ({100 * y.mean():.1f}% positive); features in "
          f"{time.perf_counter() - t0:.1f} s; resources: "
          f"{'none' if resources is None else 'WordNet/vectors/thesaurus as installed'}")  # fmt: skip
    cos = tfidf_cosines(pairs)
    folds = list(StratifiedKFold(args.folds, shuffle=True, random_state=0).split(X, y))
    rng = np.random.default_rng(0)
    preds = {size: np.zeros(len(y), dtype=int) for size in SIZES}
    tfidf_pred = np.zeros(len(y), dtype=int)
    for train, test in folds:
        order = rng.permutation(train)
        for size in SIZES:
            idx = order if size is None else order[:size]
            clf = PairClassifier().fit_features(X[idx], y[idx])
            preds[size][test] = clf.predict_proba_features(X[test]) >= DEFAULT_THRESHOLD
        grid = np.linspace(0.0, 1.0, 101)
        best = max(grid, key=lambda th: ((cos[train] >= th) == y[train]).mean())
        tfidf_pred[test] = cos[test] >= best
    out = {}
    print(f"{args.folds}-fold cross-validation          accuracy   F1")
    for size in SIZES:
        a, f = acc_f1(y, preds[size])
        label = "all" if size is None else str(size)
        out[label] = {"accuracy": a, "f1": f}
        print(f"  ours, {label:>4} decisions a fold       {a:5.1f}    {f:5.1f}")
    ta, tf = acc_f1(y, tfidf_pred)
    out["tfidf_same_run"] = {"accuracy": ta, "f1": tf}
    print(f"  TF-IDF cosine (same run)            {ta:5.1f}    {tf:5.1f}")
    a, f = out["all"]["accuracy"], out["all"]["f1"]
    print(f"  ratio ours / TF-IDF (same run): accuracy {a / ta:.3f}, F1 {f / tf:.3f}")
    print("  published (test set):")
    for name, (pa, pf) in PUBLISHED.items():
        print(f"    {name:<22}            {pa:5.1f}    {pf:5.1f}   ours/theirs {a / pa:.3f}, "
              f"{f / pf:.3f}")  # fmt: skip
    met = a >= GOAL[0] and f >= GOAL[1]
    print(f"  goal accuracy >= {GOAL[0]} and F1 >= {GOAL[1]}: {'met' if met else 'NOT met'}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
