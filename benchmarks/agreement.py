"""Speed of the agreement module, each figure beside a pure-Python anchor timed in the same run.

    .venv/bin/python benchmarks/agreement.py [--data DIR] [--samples 1000] [--anchor-samples 5]
        [--score-pairs 100000] [--anchor-score-pairs 1000]

1. κ_C at phrase level for 300 doubly annotated pairs, J = 1,000, on ONE core (the process is
   pinned to one CPU where the OS allows). Sentence lengths and the annotator-A alignments are
   the Edinburgh++ test gold (``edinburgh/gold.test.sure+poss.json``, first 300 of 306 pairs);
   annotator B is A perturbed (10 % of links dropped, neighbours added, some sure→possible) and
   the seed is an intersection-like subset of A's sure links plus a few wrong links. Without the
   data folder, lengths are drawn from a documented fallback: N, M ~ round(Normal(23, 9))
   clipped to [4, 50] (the test set's mean is 22.7 / 23.0, range 4–50), with near-diagonal
   alignments. The anchor is a straightforward pure-Python implementation of the same
   computation (per-cell ``random.random()`` flips, span enumeration with list scans, atoms by
   pairwise containment); it runs ``--anchor-samples`` samples per pair and is scaled linearly to
   J (printed). Peak memory for J = 100 vs J = 1,000 shows that samples are streamed.
   A dense variant (both annotators far from the seed, fitted flip rates ≈ ½) is timed too.
2. Word + phrase scoring of 100,000 pairs (the Edinburgh pairs and perturbations, cycled),
   against pure-Python set-based scoring of ``--anchor-score-pairs`` pairs scaled to the same
   count. Budget: 30 s.

The data folder defaults to ``$GRIDALIGN_SHARED_DATA`` or ``../shared/data`` beside the repo.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from alignment_core.agreement import KappaPair, kappa_c, score_alignments  # noqa: E402
from alignment_core.agreement.batch import WORD_COLUMNS, count_pairs  # noqa: E402
from alignment_core.alignment import Alignment  # noqa: E402

KAPPA_BUDGET_S = 10.0
SCORE_BUDGET_S = 30.0


def data_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    return Path(os.environ.get("GRIDALIGN_SHARED_DATA", REPO.parent / "shared" / "data"))


# -- inputs ------------------------------------------------------------------------------------


def base_pairs(folder: Path, count: int, rng: np.random.Generator) -> tuple[list, str]:
    """(source, target, gold Alignment) triples and a description of where they came from."""
    gold = folder / "edinburgh" / "gold.test.sure+poss.json"
    if gold.is_file():
        from alignment_core.formats import read_pairs

        pairs = read_pairs(
            gold, "edinburgh", sure_path=folder / "edinburgh" / "gold.test.sure.json"
        )
        out = [(p.source, p.target, p.alignment) for p in pairs[:count]]
        return out, f"Edinburgh++ test gold ({gold}), {len(out)} of {len(pairs)} pairs"
    out = []
    for _ in range(count):
        n, m = (int(np.clip(round(x), 4, 50)) for x in rng.normal(23, 9, 2))
        src = [f"s{k}" for k in rng.integers(0, 400, n)]
        tgt = [f"s{k}" if rng.random() < 0.5 else f"t{k}" for k in rng.integers(0, 400, m)]
        links = {(i, min(m - 1, int(i * m / n + rng.integers(-1, 2)))) for i in range(n)}
        links = {(i, max(0, j)) for i, j in links if rng.random() < 0.85}
        out.append((src, tgt, Alignment.from_sets(links)))
    return out, "fallback lengths N, M ~ round(Normal(23, 9)) in [4, 50], near-diagonal links"


def perturb(a: Alignment, n: int, m: int, rng: np.random.Generator) -> Alignment:
    """Another annotator: drop 10 % of links, add a neighbour to 10 %, demote 10 % of sure."""
    sure, poss = set(a.sure), set(a.possible)
    for link in list(sure | poss):
        r = rng.random()
        if r < 0.1:
            sure.discard(link)
            poss.discard(link)
        elif r < 0.2:
            i, j = link
            poss.add(
                (min(n - 1, i + int(rng.integers(0, 2))), min(m - 1, j + int(rng.integers(0, 2))))
            )
        elif r < 0.3 and link in sure:
            sure.discard(link)
            poss.add(link)
    return Alignment.from_sets(sure, poss - sure)


def seed_of(a: Alignment, n: int, m: int, rng: np.random.Generator) -> Alignment:
    """An intersection-like seed: 60 % of the sure links and one wrong link in five pairs."""
    links = {x for x in sorted(a.sure) if rng.random() < 0.6}
    if rng.random() < 0.2:
        links.add((int(rng.integers(0, n)), int(rng.integers(0, m))))
    return Alignment.from_sets(links)


def dense(n: int, m: int, rng: np.random.Generator) -> Alignment:
    grid = rng.random((n, m)) < 0.5
    return Alignment.from_sets((int(i), int(j)) for i, j in zip(*np.nonzero(grid), strict=True))


# -- the pure-Python anchor ------------------------------------------------------------------


def py_consistent(links: set, n: int, m: int) -> list[tuple[int, int, int, int]]:
    rows = {i for i, _ in links}
    cols = {j for _, j in links}
    out = []
    for i1 in range(n):
        for i2 in range(i1, n):
            if i1 not in rows or i2 not in rows:
                continue
            tg = [j for i, j in links if i1 <= i <= i2]
            j1, j2 = min(tg), max(tg)
            if j1 not in cols or j2 not in cols:
                continue
            if all((i1 <= i <= i2) == (j1 <= j <= j2) for i, j in links):
                out.append((i1, i2, j1, j2))
    return out


def py_atoms(links: set, n: int, m: int) -> list[tuple[int, int, int, int]]:
    cons = py_consistent(links, n, m)
    return [
        b
        for b in cons
        if not any(
            c != b and b[0] <= c[0] and c[1] <= b[1] and b[2] <= c[2] and c[3] <= b[3] for c in cons
        )
    ]


def py_units(src, tgt, links: set) -> set:
    n, m = len(src), len(tgt)
    return {
        b
        for b in py_atoms(links, n, m)
        if " ".join(src[b[0] : b[1] + 1]).casefold() != " ".join(tgt[b[2] : b[3] + 1]).casefold()
    }


def py_theta(ua: set, ub: set) -> float:
    low = min(len(ua), len(ub))
    return len(ua & ub) / low if low else 0.0


def py_kappa(pairs: list[KappaPair], samples: int, seed: int) -> tuple[float, float]:
    """θ̂ and θ̂_0 the straightforward way (same definitions as alignment_core.agreement)."""
    kept = []
    for p in pairs:
        ua = py_units(p.source, p.target, set(p.first.all_links))
        ub = py_units(p.source, p.target, set(p.second.all_links))
        if ua or ub:
            kept.append((p, py_theta(ua, ub)))
    lines = {}
    for who in ("A", "B"):
        xs = [len(p.source) + len(p.target) for p, _ in kept]
        ys = [
            len((p.first if who == "A" else p.second).all_links ^ p.seed.all_links)
            / (len(p.source) * len(p.target))
            for p, _ in kept
        ]
        slope, intercept = np.polyfit(xs, ys, 1)
        lines[who] = (float(intercept), float(slope))
    rnd = random.Random(seed)
    theta0 = 0.0
    for p, _ in kept:
        n, m = len(p.source), len(p.target)
        rates = [min(1.0, max(0.0, a + b * (n + m))) for a, b in lines.values()]
        acc = 0.0
        for _ in range(samples):
            units = []
            for rate in rates:
                links = set(p.seed.all_links)
                for i in range(n):
                    for j in range(m):
                        if rnd.random() < rate:
                            links ^= {(i, j)}
                units.append(py_units(p.source, p.target, links))
            acc += py_theta(*units)
        theta0 += acc / samples
    return sum(t for _, t in kept) / len(kept), theta0 / len(kept)


def py_compatible(ref: Alignment, box: tuple[int, int, int, int]) -> bool:
    """No sure link of ``ref`` crosses the box; each boundary word has a link inside it."""
    i1, i2, j1, j2 = box
    if any((i1 <= i <= i2) != (j1 <= j <= j2) for i, j in ref.sure):
        return False
    inside = [(i, j) for i, j in ref.all_links if i1 <= i <= i2 and j1 <= j <= j2]
    rows, cols = {i for i, _ in inside}, {j for _, j in inside}
    return i1 in rows and i2 in rows and j1 in cols and j2 in cols


def py_score(items) -> int:
    """Word and phrase counts the straightforward way; returns a checksum of the counts."""
    total = 0
    for src, tgt, a, b in items:
        n, m = len(src), len(tgt)

        def keep(links, src=src, tgt=tgt):
            return {(i, j) for i, j in links if src[i].casefold() != tgt[j].casefold()}

        a_s, a_p, b_s, b_p = keep(a.sure), keep(a.all_links), keep(b.sure), keep(b.all_links)
        total += len(a_s & b_p) + len(a_p & b_s) + len(a_p & b_p)
        cons_a = set(py_consistent(set(a.all_links), n, m))
        cons_b = set(py_consistent(set(b.all_links), n, m))
        # sure columns: atom(A_S) against compat(B), atom(B_S) against compat(A)
        for sure, other in ((a.sure, b), (b.sure, a)):
            atoms = py_units(src, tgt, set(sure))
            total += len(atoms) + sum(py_compatible(other, x) for x in atoms)
        for links, cons in ((a.all_links, cons_b), (b.all_links, cons_a)):
            atoms = py_units(src, tgt, set(links))
            total += len(atoms) + len(atoms & cons)
    return total


# -- measurements -----------------------------------------------------------------------------


def pin_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity); numba kernels are single-threaded"


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def peak_memory(fn) -> tuple[float, float]:
    """(tracemalloc peak in MiB, growth of the process's max RSS in MiB) while fn runs."""
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20, (rss1 - rss0) / 1024


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data")
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--anchor-samples", type=int, default=5)
    ap.add_argument("--score-pairs", type=int, default=100_000)
    ap.add_argument("--anchor-score-pairs", type=int, default=1000)
    args = ap.parse_args()

    print(f"one core: {pin_one_core()}")
    rng = np.random.default_rng(2008)
    base, where = base_pairs(data_dir(args.data), args.pairs, rng)
    print(f"pairs: {where}")
    kpairs = []
    for src, tgt, a in base:
        n, m = len(src), len(tgt)
        kpairs.append(KappaPair(src, tgt, seed_of(a, n, m, rng), a, perturb(a, n, m, rng)))

    print(f"\n1. κ_C, phrase level, {len(kpairs)} pairs, J = {args.samples}")
    kappa_c(kpairs[:2], samples=2)  # load the compiled kernels (cached) outside the timing
    result, fast = timed(lambda: kappa_c(kpairs, samples=args.samples, rng_seed=1))
    print(
        f"   θ̂ = {result.theta:.4f}  θ̂_0 = {result.theta0:.4f} ± {result.overall.theta0_stderr:.4f}"
        f"  κ_C = {result.kappa_c:.4f} ± {result.stderr:.4f}"
        f"  (edit rates at L = 46: A {result.edit_models['A'].rate(46):.4f},"
        f" B {result.edit_models['B'].rate(46):.4f})"
    )
    (th, th0), slow = timed(lambda: py_kappa(kpairs, args.anchor_samples, 1))
    scaled = slow * args.samples / args.anchor_samples
    print(
        f"   anchor (pure Python) ran J = {args.anchor_samples} and is scaled linearly to J = {args.samples}"
    )
    print(f"   anchor θ̂ = {th:.4f}, θ̂_0 = {th0:.4f} (J = {args.anchor_samples}: noisier)")
    print(
        f"   figure {fast:8.2f} s   anchor {scaled:8.1f} s   ratio {scaled / fast:6.0f}×   budget ≤ {KAPPA_BUDGET_S:.0f} s: {'ok' if fast <= KAPPA_BUDGET_S else 'OVER'}"
    )
    for j in (100, args.samples):
        mib, rss = peak_memory(lambda j=j: kappa_c(kpairs, samples=j, rng_seed=1))
        print(
            f"   peak memory J = {j:5d}: tracemalloc {mib:6.2f} MiB, max-RSS growth {rss:6.1f} MiB"
        )

    dpairs = [
        KappaPair(
            p.source,
            p.target,
            p.seed,
            dense(len(p.source), len(p.target), rng),
            dense(len(p.source), len(p.target), rng),
        )
        for p in kpairs
    ]
    dres, dtime = timed(lambda: kappa_c(dpairs, samples=args.samples, rng_seed=1))
    print(
        f"   dense variant (fitted flip rate at L = 46: {dres.edit_models['A'].rate(46):.2f}):"
        f" {dtime:.2f} s, θ̂_0 = {dres.theta0:.4f}"
    )

    print(f"\n2. word + phrase scoring, {args.score_pairs:,} pairs")
    distinct = []
    for src, tgt, a in base:
        n, m = len(src), len(tgt)
        for _ in range(max(1, 2000 // len(base))):
            distinct.append((src, tgt, perturb(a, n, m, rng), perturb(a, n, m, rng)))
    items = [distinct[k % len(distinct)] for k in range(args.score_pairs)]
    score_alignments(items[:10])
    (word, phrase), fast = timed(lambda: score_alignments(items))
    print(
        f"   word F1 {word.f1:.4f}, phrase F1 {phrase.f1:.4f} ({len(distinct)} distinct pairs cycled)"
    )
    anchor_items = items[: args.anchor_score_pairs]
    checksum, slow = timed(lambda: py_score(anchor_items))
    rows = count_pairs(anchor_items)
    same = checksum == int(rows[:, 4:7].sum() + rows[:, len(WORD_COLUMNS) :].sum())
    scaled = slow * len(items) / len(anchor_items)
    print(
        f"   anchor (pure Python sets) ran {len(anchor_items):,} pairs, scaled linearly to"
        f" {len(items):,}; its counts {'equal' if same else 'DIFFER FROM'} the kernel's"
    )
    print(
        f"   figure {fast:8.2f} s ({len(items) / fast:,.0f} pairs/s)   anchor {scaled:8.1f} s"
        f"   ratio {scaled / fast:6.0f}×   budget ≤ {SCORE_BUDGET_S:.0f} s: {'ok' if fast <= SCORE_BUDGET_S else 'OVER'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
