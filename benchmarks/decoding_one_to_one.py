"""One-to-one decoding of the supervised link model's probabilities, against its threshold:
annotators' edits per pair on MSR RTE2 dev (annotator A, 2-fold cross-validation over the
800 pairs, the project's gold only).

    .venv/bin/python benchmarks/decoding_one_to_one.py [--data DIR] [--seeds 0,1]

Per fold, the model trains on every pair's sentences and the other fold's gold (as
``decoding.py``'s ``msr_folds``), then each decoder reads its probability matrices:

* ``threshold``: a cell is a link from probability t (the model's own decoding, t retuned);
* ``mutual best``: also below t, from a lower lo, a cell that is the best of its row and of
  its column (competitive linking's one-to-one rule);
* ``assignment``: also the cells of the most probable one-to-one assignment (Hungarian,
  ``scipy.optimize.linear_sum_assignment`` on −log p) from lo.

Each decoder's t and lo are chosen on the training fold's out-of-fold probabilities (what the
model itself tunes its threshold on), then scored on the held-out fold; ``oracle`` is the best
setting chosen on the held-out fold itself: the most any setting of that decoder could give.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from aligner_quality import data_dir  # noqa: E402

from alignment_core.aligner.link_model import (  # noqa: E402
    LinkModelConfig,
    installed_resources,
    train_seed_model,
)
from alignment_core.formats import read_pairs  # noqa: E402

T = np.round(np.arange(0.2, 0.95, 0.025), 3)
LO = np.round(np.arange(0.05, 0.7, 0.05), 2)


def threshold(p: np.ndarray, t: float, lo: float = 0.0) -> np.ndarray:
    return p >= t


def mutual_best(p: np.ndarray, t: float, lo: float) -> np.ndarray:
    best = (p == p.max(axis=1, keepdims=True)) & (p == p.max(axis=0, keepdims=True))
    return (p >= t) | ((p >= lo) & best)


def assignment(p: np.ndarray, t: float, lo: float) -> np.ndarray:
    from scipy.optimize import linear_sum_assignment

    links = p >= t
    rows, cols = linear_sum_assignment(-np.log(np.clip(p, 1e-6, 1.0)))
    chosen = p[rows, cols] >= lo
    links[rows[chosen], cols[chosen]] = True
    return links


DECODERS = {"threshold": threshold, "mutual best": mutual_best, "assignment": assignment}


def settings(name: str) -> list[tuple[float, float]]:
    if name == "threshold":
        return [(t, 0.0) for t in T]
    return [(t, lo) for t in T for lo in LO if lo < t]


def edits(decode, matrices, golds, t: float, lo: float) -> float:
    wrong = 0
    for p, gold in zip(matrices, golds, strict=True):
        links = {(int(i), int(j)) for i, j in zip(*np.nonzero(decode(p, t, lo)), strict=True)}
        wrong += len(links ^ gold)
    return wrong / len(golds)


def fold_run(pairs, fold: np.ndarray, k: int, seed: int) -> dict:
    """Fold k held out: the model's links, its probability matrices, and its out-of-fold
    matrices of the training fold's gold pairs."""
    sentences = [(p.source, p.target) for p in pairs]
    train_idx = [int(i) for i in np.flatnonzero(fold != k)]
    scored = [int(i) for i in np.flatnonzero(fold == k)]
    model = train_seed_model(sentences, {i: pairs[i].alignment for i in train_idx},
                             link_config=LinkModelConfig(seed=seed),
                             resources=installed_resources())  # fmt: skip
    links, matrices = model.predict([sentences[i] for i in scored])
    oof, _, _ = model.out_of_fold
    sizes = [len(pairs[i].source) * len(pairs[i].target) for i in train_idx]
    ends = np.cumsum(sizes)
    oof_matrices = [oof[e - s : e].reshape(len(pairs[i].source), len(pairs[i].target))
                    for i, s, e in zip(train_idx, sizes, ends, strict=True)]  # fmt: skip
    return {"scored": scored, "train": train_idx, "links": links, "matrices": matrices,
            "oof": oof_matrices}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--seeds", default="0", help="fold seeds, e.g. 0,1,2")
    args = ap.parse_args(argv)
    pairs = read_pairs(data_dir(args.data) / "msr-rte2-dev" / "RTE2_dev_A.align.txt", "giza-a3")
    gold = [{(int(i), int(j)) for i, j in p.alignment.all_links} for p in pairs]
    print("MSR RTE2 dev A, 2-fold; edits per pair (|links Δ gold|, sure and possible alike)")
    print(
        f"{'fold seed':<10}{'decoder':<14}{'tuned on train OOF':>20}{'oracle':>9}  chosen (t, lo)"
    )
    for seed in [int(s) for s in args.seeds.split(",")]:
        fold = np.random.default_rng(seed).permutation(len(pairs)) % 2
        runs = [fold_run(pairs, fold, k, seed) for k in (0, 1)]
        model_edits = np.mean([len(a.all_links ^ gold[i]) for r in runs
                               for i, a in zip(r["scored"], r["links"], strict=True)])  # fmt: skip
        print(f"{seed:<10}{'the model':<14}{model_edits:>20.3f}")
        for name, decode in DECODERS.items():
            tuned = oracle = 0.0
            chosen = []
            for r in runs:
                held = [gold[i] for i in r["scored"]]
                train_gold = [gold[i] for i in r["train"]]
                best = min(settings(name), key=lambda s: edits(decode, r["oof"], train_gold, *s))
                chosen.append(best)
                tuned += edits(decode, r["matrices"], held, *best) * len(held)
                oracle += min(edits(decode, r["matrices"], held, *s) for s in settings(name)) * len(
                    held
                )
            shown = ", ".join(f"({t:g}, {lo:g})" for t, lo in chosen)
            print(
                f"{'':<10}{name:<14}{tuned / len(pairs):>20.3f}{oracle / len(pairs):>9.3f}  {shown}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
