"""The aligner's corpus store (encoding, chunk files, sparse table) at two sizes in one run:
is it linear?

    .venv/bin/python benchmarks/aligner_encoding.py CORPUS.tsv [--pairs 1000000] [--small 100000]

Reads the first ``--pairs`` pairs of a tab-separated corpus (``id<TAB>source<TAB>target``, as
``aligner_speed.py`` writes it) and runs ``Workspace.create`` on them (words to ids, chunk
files, the CSR table, initial parameters), each size in its own subprocess. Figure: CPU and
wall seconds and peak RSS at ``--pairs``; anchor: the same at ``--small`` pairs, scaled by
the ratio of sizes. CPU time is the figure to read on a loaded machine (the load average is
printed); ratio 1.0 is linear.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def measure(path: str, n: int) -> dict:
    """``Workspace.create`` of the first ``n`` pairs of ``path``, in this process."""
    from alignment_core.aligner._kernels import get_kernels
    from alignment_core.aligner.workspace import Workspace

    get_kernels()

    def pairs():
        with open(path, encoding="utf-8") as fh:
            for line in itertools.islice(fh, n):
                _, s, t = line.rstrip("\n").split("\t")
                yield s.split(), t.split()

    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu0, wall0, load0 = usage.ru_utime + usage.ru_stime, time.perf_counter(), os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="gridalign-enc-") as tmp:
        ws = Workspace.create(Path(tmp) / "em", pairs())
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {"pairs": ws.meta["n_pairs"], "entries": ws.n_entries, "chunks": ws.n_chunks,
                "cpu": usage.ru_utime + usage.ru_stime - cpu0,
                "wall": time.perf_counter() - wall0, "peak_mb": usage.ru_maxrss / 1024,
                "load": f"{load0:.1f}→{os.getloadavg()[0]:.1f}"}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--small", type=int, default=100_000)
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # the subprocess's own run
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure(args.corpus, args.one)))
        return 0
    rows = []
    for n in (args.small, args.pairs):
        out = subprocess.run([sys.executable, __file__, args.corpus, "--one", str(n)],
                             check=True, capture_output=True, text=True)  # fmt: skip
        rows.append(json.loads(out.stdout.splitlines()[-1]))
        r = rows[-1]
        print(f"{r['pairs']:>9} pairs: {r['cpu']:7.1f} s CPU {r['wall']:7.1f} s wall "
              f"{r['peak_mb']:6.0f} MB peak, {r['entries']} table entries, {r['chunks']} chunks, "
              f"load {r['load']}", flush=True)  # fmt: skip
    small, big = rows
    scale = big["pairs"] / small["pairs"]
    print(f"figure {big['cpu']:.1f} s CPU at {big['pairs']} pairs; anchor {small['cpu']:.1f} s × "
          f"{scale:g} = {small['cpu'] * scale:.1f} s; ratio {big['cpu'] / (small['cpu'] * scale):.2f} "
          f"(1.0 = linear)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
