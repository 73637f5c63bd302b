"""Corpus scale (issue 45): one driver for the scale benchmarks, each a *part* that prints its
figures beside the anchor measured in the same run, their ratio and the load average.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/scale.py \\
        [PART ...] [-- PART'S OPTIONS]

    .venv/bin/python benchmarks/scale.py --list
    .venv/bin/python benchmarks/scale.py pages -- --rounds 40 --keep-db gridalign_scale

Without a part, every part runs in turn, each in its own process with the options after
``--`` (one part at a time is the usual way: their options differ); each exits 0 when its
goals are met. Register new ones in ``PARTS``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# part name → (script in benchmarks/, what it measures: figure against anchor)
PARTS: dict[str, tuple[str, str]] = {
    "aligner": (
        "aligner_speed",
        "the seeding aligner (IBM1 + HMM both ways) on --pairs synthetic pairs against "
        "eflomal-align -m 2 on the same corpus: wall time, peak RSS, AER",
    ),
    "import": (
        "import",
        "import of --pairs pairs against a psycopg2 COPY of the same rows (PostgreSQL); "
        "SQLite at 1x/2x/4x the file",
    ),
    "seeding": (
        "scale_seeding",
        "a big project seeded over 1 and 2 Celery workers against seeding in one process",
    ),
    "pages": (
        "scale_pages",
        "every page and API listing at 1,000,000 pairs against the same request at 1,000",
    ),
    "endtoend": (
        "scale_endtoend",
        "a --pairs project imported, seeded over 2 workers, opened by an annotator and its "
        "gold exported, through the product: each step's time and peak RSS per process",
    ),
    "documents": (
        "documents_scale",
        "the web process during big uploads, a 1,000-pair zip aligned over the workers",
    ),
}


def run_part(name: str, argv: list[str]) -> bool:
    """Run one part as its own process (each measures its own peak memory); True when it
    exits 0 (its goals met)."""
    script, what = PARTS[name]
    print(f"== {name}: {what} (load average {os.getloadavg()[0]:.1f})", flush=True)
    t0 = time.perf_counter()
    code = subprocess.call([sys.executable, str(HERE / f"{script}.py"), *argv])
    took = time.perf_counter() - t0
    print(f"== {name}: exit {code}, {took:.0f} s, load average {os.getloadavg()[0]:.1f}")
    return code == 0


def main() -> int:
    argv = sys.argv[1:]
    extra: list[str] = []
    if "--" in argv:
        argv, extra = argv[: argv.index("--")], argv[argv.index("--") + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("parts", nargs="*", help=f"any of {', '.join(PARTS)} (default: all)")
    parser.add_argument("--list", action="store_true", help="list the parts and stop")
    args = parser.parse_args(argv)
    if args.list:
        for name, (script, what) in PARTS.items():
            print(f"{name:10} benchmarks/{script}.py: {what}")
        return 0
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}: choose from {', '.join(PARTS)}")
    results = [run_part(name, extra) for name in args.parts or PARTS]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
