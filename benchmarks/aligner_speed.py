"""Seeding-aligner speed on a synthetic paraphrase corpus, beside eflomal in the same run.

    .venv/bin/python benchmarks/aligner_speed.py [--pairs 20000] [--threads 2] [--seed 1]
        [--no-eflomal] [--json OUT]

Corpus: ``alignment_core.aligner.synthetic`` (20,000 pairs of 15–25 tokens, Zipfian vocabulary
of 20,000, ~20% synonym substitutions, neighbour swaps, 2% deletions/insertions; seeded), gold
links known. Ours: IBM1 ×5 + HMM ×5 in both directions and the intersection, timed from token
lists to Alignment objects (after a 50-pair warm-up that loads the cached numba kernels; the
warm-up time is printed too). Anchor: ``eflomal-align -m 2`` (IBM1 + HMM, its default
iterations; pinned in requirements-bench.txt), timed as a subprocess from text files to both
directions' links, then intersected. Both intersections are scored (AER) against the gold.

Targets: under 55 s on 2 threads, within 2× of eflomal, AER ≤ 4%, peak memory < 2 GB. When
eflomal is not installed, its time is reported as unavailable beside the quoted reference
figures (MGIZA ≈55 s, eflomal ≈19 s).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from alignment_core.agreement.word import score_word  # noqa: E402
from alignment_core.aligner import AlignerConfig, train  # noqa: E402
from alignment_core.aligner.synthetic import synthetic_corpus  # noqa: E402
from alignment_core.alignment import Alignment  # noqa: E402

QUOTED = {"MGIZA": 55.0, "eflomal": 19.0}
TARGET_SECONDS, TARGET_RATIO, TARGET_AER, TARGET_MB = 55.0, 2.0, 0.04, 2048.0


def aer(pairs, predicted, gold) -> float:
    items = [(s, t, a, g) for (s, t), a, g in zip(pairs, predicted, gold, strict=True)]
    return float(score_word(items, include_identical=True).aer)


def eflomal_binary() -> str | None:
    here = Path(sys.executable).parent / "eflomal-align"
    return str(here) if here.exists() else shutil.which("eflomal-align")


def read_links(path: Path) -> list[set[tuple[int, int]]]:
    out = []
    for line in path.read_text().splitlines():
        out.append({tuple(int(x) for x in link.split("-")) for link in line.split()})
    return out


# Runs eflomal from a small launcher process, so that its peak RSS is not that of this (large)
# process at fork time; prints the children's peak RSS in kB.
_LAUNCHER = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
    "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def run_eflomal(binary: str, pairs) -> tuple[float, list[Alignment], float]:
    """Wall time of ``eflomal-align -m 2`` (both directions) plus the intersection; peak MB."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "src").write_text("".join(" ".join(s) + "\n" for s, _ in pairs))
        (d / "tgt").write_text("".join(" ".join(t) + "\n" for _, t in pairs))
        cmd = [binary, "-s", d / "src", "-t", d / "tgt", "-f", d / "fwd", "-r", d / "rev"]
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, *map(str, cmd), "-m", "2", "--overwrite"],
            check=True,
            capture_output=True,
            text=True,
        )
        fwd, rev = read_links(d / "fwd"), read_links(d / "rev")
        inter = [Alignment.from_sets(f & r) for f, r in zip(fwd, rev, strict=True)]
        return time.perf_counter() - t0, inter, int(proc.stdout.split()[-1]) / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-eflomal", action="store_true", help="skip the anchor")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    corpus = synthetic_corpus(args.pairs, seed=args.seed)
    tokens = sum(len(s) + len(t) for s, t in corpus.pairs)
    print(
        f"synthetic corpus: {args.pairs} pairs, {tokens} tokens ({time.perf_counter() - t0:.1f} s to generate)"
    )

    cfg = AlignerConfig(threads=args.threads)
    t0 = time.perf_counter()
    train(corpus.pairs[:50], cfg).align(corpus.pairs[:50])
    warmup = time.perf_counter() - t0

    t0 = time.perf_counter()
    model = train(corpus.pairs, cfg)
    t_train = time.perf_counter() - t0
    ours_links = model.align(corpus.pairs)
    ours = time.perf_counter() - t0
    ours_aer = aer(corpus.pairs, ours_links, corpus.gold)
    ours_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    binary = None if args.no_eflomal else eflomal_binary()
    ef_time = ef_aer = ef_mb = None
    if binary:
        ef_time, ef_links, ef_mb = run_eflomal(binary, corpus.pairs)
        ef_aer = aer(corpus.pairs, ef_links, corpus.gold)

    def f(x, spec):
        return "unavailable" if x is None else format(x, spec)

    print(f"\n{'':34}{'ours':>12}{'eflomal -m 2':>14}{'ratio':>8}")
    ratio = None if ef_time is None else ours / ef_time
    print(
        f"{'wall time, both dirs + ∩ (s)':34}{ours:>12.1f}{f(ef_time, '.1f'):>14}{'n/a' if ratio is None else format(ratio, '.2f'):>8}"
    )
    print(f"{'  of which training (s)':34}{t_train:>12.1f}")
    print(f"{'intersection AER vs gold':34}{ours_aer:>12.2%}{f(ef_aer, '.2%'):>14}")
    print(f"{'peak memory, ru_maxrss (MB)':34}{ours_mb:>12.0f}{f(ef_mb, '.0f'):>14}")
    print(f"kernel load / warm-up (not timed above): {warmup:.2f} s; threads={args.threads}")
    if ef_time is None:
        print(
            f"eflomal unavailable; quoted reference figures: MGIZA ≈{QUOTED['MGIZA']:.0f} s, eflomal ≈{QUOTED['eflomal']:.0f} s"
        )
    checks = {
        f"under {TARGET_SECONDS:.0f} s": ours < TARGET_SECONDS,
        f"within {TARGET_RATIO:.0f}× eflomal": None if ratio is None else ratio <= TARGET_RATIO,
        f"AER ≤ {TARGET_AER:.0%}": ours_aer <= TARGET_AER,
        "memory < 2 GB": ours_mb < TARGET_MB,
    }
    print(
        "targets: "
        + "; ".join(
            f"{k}: {'n/a' if v is None else 'yes' if v else 'NO'}" for k, v in checks.items()
        )
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "pairs": args.pairs,
                    "threads": args.threads,
                    "ours_seconds": ours,
                    "ours_train_seconds": t_train,
                    "ours_aer": ours_aer,
                    "ours_peak_mb": ours_mb,
                    "eflomal_seconds": ef_time,
                    "eflomal_aer": ef_aer,
                    "eflomal_peak_mb": ef_mb,
                    "ratio": ratio,
                    "warmup_seconds": warmup,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
