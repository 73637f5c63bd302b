"""Seeding-aligner speed and memory on a synthetic paraphrase corpus, beside eflomal in the same run.

    .venv/bin/python benchmarks/aligner_speed.py [--pairs 20000] [--vocab 20000] [--runs 1]
        [--threads 2] [--seed 1] [--no-eflomal] [--json OUT]

Corpus: ``alignment_core.aligner.synthetic`` (``--pairs`` pairs of 15–25 tokens, Zipfian
vocabulary of ``--vocab`` words, ~20% synonym substitutions, neighbour swaps, 2%
deletions/insertions; seeded), gold links known. Ours: ``python -m alignment_core align
CORPUS.tsv --no-builtin`` (IBM1 ×5 + HMM ×5 in both directions and the intersection; the
corpus streams from the file, training runs the chunked EM), timed as a subprocess from the
text file to the links file, after a 50-pair warm-up run that loads the cached numba kernels.
Anchor: ``eflomal-align -m 2`` (IBM1 + HMM, its default iterations; pinned in
requirements-bench.txt), timed as a subprocess from text files to both directions' links,
then intersected. Both are scored (AER) against the gold; peak memory is each subprocess's
``ru_maxrss``. ``--runs N`` repeats both N times (alternating) and prints each run and the
spread.

Targets: wall time ≤ eflomal's, peak memory ≤ 2× eflomal's, AER within 0.5 points of
eflomal's. When eflomal is not installed, its figures are reported as unavailable beside the
quoted reference figures (MGIZA ≈55 s, eflomal ≈19 s at 20,000 pairs).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from alignment_core.agreement.word import score_word  # noqa: E402
from alignment_core.aligner.synthetic import synthetic_corpus  # noqa: E402
from alignment_core.alignment import Alignment  # noqa: E402

QUOTED = {"MGIZA": 55.0, "eflomal": 19.0}
TARGET_TIME_RATIO, TARGET_MEMORY_RATIO, TARGET_AER_POINTS = 1.0, 2.0, 0.005


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


# Runs a command from a small launcher process, so that the peak RSS is the command's, not that
# of this (large) process at fork time; prints the children's peak RSS in kB.
_LAUNCHER = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
    "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def timed(cmd: list) -> tuple[float, float]:
    """Wall seconds and peak MB of ``cmd``."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _LAUNCHER, *map(str, cmd)], check=True,
                          capture_output=True, text=True, cwd=REPO)  # fmt: skip
    return time.perf_counter() - t0, int(proc.stdout.split()[-1]) / 1024


def run_eflomal(binary: str, d: Path) -> tuple[float, list[Alignment], float]:
    """``eflomal-align -m 2`` (both directions) plus the intersection: seconds, links, MB."""
    cmd = [binary, "-s", d / "src", "-t", d / "tgt", "-f", d / "fwd", "-r", d / "rev"]
    seconds, mb = timed([*cmd, "-m", "2", "--overwrite"])
    t0 = time.perf_counter()
    fwd, rev = read_links(d / "fwd"), read_links(d / "rev")
    inter = [Alignment.from_sets(f & r) for f, r in zip(fwd, rev, strict=True)]
    return seconds + time.perf_counter() - t0, inter, mb


def run_ours(d: Path, corpus: str, threads: int) -> tuple[float, list[Alignment], float]:
    """``python -m alignment_core align`` from the tsv to pharaoh links: seconds, links, MB."""
    cmd = [sys.executable, "-m", "alignment_core", "align", d / corpus, "--no-builtin",
           "--quiet", "--threads", threads, "--out", d / "ours.txt"]  # fmt: skip
    seconds, mb = timed(cmd)
    links = [Alignment.from_sets(x) for x in read_links(d / "ours.txt")]
    return seconds, links, mb


def write_inputs(d: Path, pairs) -> None:
    with (
        open(d / "corpus.tsv", "w") as tsv,
        open(d / "src", "w") as src,
        open(d / "tgt", "w") as tgt,
    ):
        for n, (s, t) in enumerate(pairs):
            tsv.write(f"p{n}\t{' '.join(s)}\t{' '.join(t)}\n")
            src.write(" ".join(s) + "\n")
            tgt.write(" ".join(t) + "\n")
        (d / "warm.tsv").write_text("".join(f"w{n}\tx y z{n}\ty x z{n}\n" for n in range(50)))


def _runs(args, d: Path, corpus) -> list[dict]:
    warm = timed([sys.executable, "-m", "alignment_core", "align", d / "warm.tsv",
                  "--no-builtin", "--quiet", "--out", d / "warm.txt"])[0]  # fmt: skip
    binary = None if args.no_eflomal else eflomal_binary()
    runs = []
    for _ in range(args.runs):
        row: dict = {"load_before": os.getloadavg()[0], "warmup_seconds": warm}
        ours_s, ours_links, ours_mb = run_ours(d, "corpus.tsv", args.threads)
        print(f"ours: {ours_s:.1f} s, {ours_mb:.0f} MB", flush=True)
        row.update(ours_seconds=ours_s, ours_peak_mb=ours_mb,
                   ours_aer=aer(corpus.pairs, ours_links, corpus.gold))  # fmt: skip
        if binary:
            ef_s, ef_links, ef_mb = run_eflomal(binary, d)
            row.update(eflomal_seconds=ef_s, eflomal_peak_mb=ef_mb,
                       eflomal_aer=aer(corpus.pairs, ef_links, corpus.gold))  # fmt: skip
        row["load_after"] = os.getloadavg()[0]
        runs.append(row)
        print(f"run {len(runs)}: {json.dumps(row)}", flush=True)
    return runs


def _print(runs: list[dict]) -> None:
    def f(x, spec):
        return "n/a" if x is None else format(x, spec)

    print(f"\n{'run':>4}{'ours s':>9}{'eflomal s':>11}{'ratio':>7}{'ours MB':>9}{'efl MB':>8}"
          f"{'ratio':>7}{'ours AER':>10}{'efl AER':>9}{'load':>12}")  # fmt: skip
    for n, r in enumerate(runs, 1):
        ef_s, ef_mb = r.get("eflomal_seconds"), r.get("eflomal_peak_mb")
        r["time_ratio"] = None if ef_s is None else r["ours_seconds"] / ef_s
        r["memory_ratio"] = None if ef_mb is None else r["ours_peak_mb"] / ef_mb
        print(f"{n:>4}{r['ours_seconds']:>9.1f}{f(ef_s, '.1f'):>11}{f(r['time_ratio'], '.2f'):>7}"
              f"{r['ours_peak_mb']:>9.0f}{f(ef_mb, '.0f'):>8}{f(r['memory_ratio'], '.2f'):>7}"
              f"{r['ours_aer']:>10.2%}{f(r.get('eflomal_aer'), '.2%'):>9}"
              f"{r['load_before']:>6.1f}→{r['load_after']:<5.1f}")  # fmt: skip
    if len(runs) > 1:
        for key in ("ours_seconds", "time_ratio", "ours_peak_mb", "memory_ratio"):
            vals = [r[key] for r in runs if r.get(key) is not None]
            if vals:
                print(f"spread of {key}: {min(vals):.2f} – {max(vals):.2f}")
    print(f"kernel load / warm-up run (not timed above): {runs[0]['warmup_seconds']:.2f} s")
    last = runs[-1]
    if last.get("eflomal_seconds") is None:
        print(f"eflomal unavailable; quoted reference figures: MGIZA ≈{QUOTED['MGIZA']:.0f} s, "
              f"eflomal ≈{QUOTED['eflomal']:.0f} s")  # fmt: skip
        return
    checks = {
        "time ≤ eflomal": last["time_ratio"] <= TARGET_TIME_RATIO,
        "memory ≤ 2× eflomal": last["memory_ratio"] <= TARGET_MEMORY_RATIO,
        "AER within 0.5 points": last["ours_aer"] <= last["eflomal_aer"] + TARGET_AER_POINTS,
    }
    print(
        "targets (last run): "
        + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items())
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--vocab", type=int, default=20_000, help="vocabulary size (Zipfian)")
    ap.add_argument("--runs", type=int, default=1, help="repeat ours and eflomal N times")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-eflomal", action="store_true", help="skip the anchor")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    corpus = synthetic_corpus(args.pairs, vocab_size=args.vocab, seed=args.seed)
    tokens = sum(len(s) + len(t) for s, t in corpus.pairs)
    print(f"synthetic corpus: {args.pairs} pairs, vocabulary {args.vocab}, {tokens} tokens "
          f"({time.perf_counter() - t0:.1f} s to generate); threads={args.threads}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_inputs(d, corpus.pairs)
        runs = _runs(args, d, corpus)
    _print(runs)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"pairs": args.pairs, "vocab": args.vocab, "threads": args.threads, "runs": runs},
            indent=2))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
