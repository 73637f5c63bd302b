"""Training on a corpus of one chunk: in memory (what ``train`` does for it) beside the same EM
through a workspace folder (what it did before), in the same run.

    .venv/bin/python benchmarks/train_small.py [--pairs 1020] [--runs 5] [--threads 2]

Corpus: Edinburgh++'s 1,020 pairs (train then test; ``$GRIDALIGN_SHARED_DATA`` or
``../shared/data``), or its first ``--pairs``. Both sides train with the default config
(IBM1 ×5 + HMM ×5, both directions, ``--threads``): ``Workspace.in_memory`` + ``run_em`` +
``model()``, and the anchor ``Workspace.create`` in a temporary folder + the same. Runs
alternate (after one warm-up of each, which loads the numba kernels); prints each run's
seconds, the medians, their ratio, the spread, the load average, and whether both gave the
same model (they must: same log-likelihoods and t tables, bit for bit).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from aligner_quality import data_dir, read_split  # noqa: E402 - the shared data and its reader

from alignment_core.aligner import AlignerConfig  # noqa: E402
from alignment_core.aligner.training import run_em  # noqa: E402
from alignment_core.aligner.workspace import Workspace  # noqa: E402


def in_memory(pairs, cfg):
    ws = Workspace.in_memory(pairs, cfg)
    run_em(ws, cfg.threads)
    return ws.model()


def in_folder(pairs, cfg):
    with tempfile.TemporaryDirectory(prefix="gridalign-bench-") as tmp:
        ws = Workspace.create(Path(tmp) / "em", pairs, cfg)
        run_em(ws, cfg.threads)
        return ws.model()


def timed(fn, *args):
    started = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - started, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", help="shared data folder (holds edinburgh/)")
    ap.add_argument("--pairs", type=int, default=1020)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    folder = data_dir(args.data)
    pairs = [
        (p.source, p.target) for s in ("train", "test") for p in read_split(folder / "edinburgh", s)
    ]
    pairs = pairs[: args.pairs]
    cfg = AlignerConfig(threads=args.threads)
    assert len(pairs) <= cfg.chunk_pairs, "one chunk's worth: train() keeps it in memory"
    tokens = sum(len(s) + len(t) for s, t in pairs)
    print(f"{len(pairs)} pairs, {tokens} tokens, threads={args.threads}, "
          f"load average before {os.getloadavg()[0]:.1f}")  # fmt: skip
    _, a = timed(in_memory, pairs, cfg)
    _, b = timed(in_folder, pairs, cfg)
    same = a.log_likelihoods == b.log_likelihoods and np.array_equal(a.forward.t, b.forward.t)
    same = same and np.array_equal(a.backward.t, b.backward.t)
    memory, disk = [], []
    for run in range(args.runs):
        memory.append(timed(in_memory, pairs, cfg)[0])
        disk.append(timed(in_folder, pairs, cfg)[0])
        print(f"run {run + 1}: in memory {memory[-1]:.2f} s, folder (anchor) {disk[-1]:.2f} s")
    m, d = statistics.median(memory), statistics.median(disk)
    print(f"median: in memory {m:.2f} s (spread {min(memory):.2f}-{max(memory):.2f}), "
          f"folder {d:.2f} s (spread {min(disk):.2f}-{max(disk):.2f}), ratio {m / d:.2f}")  # fmt: skip
    print(f"same model bit for bit: {same}; load average after {os.getloadavg()[0]:.1f}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
