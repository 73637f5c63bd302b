"""Corpus scale (issue 45): one driver for the scale benchmarks, each a *part* that prints its
figures beside the anchor measured in the same run, their ratio and the load average.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/scale.py \\
        [PART ...] [-- PART'S OPTIONS]

    .venv/bin/python benchmarks/scale.py --list
    .venv/bin/python benchmarks/scale.py pages -- --rounds 40 --keep-db gridalign_scale

Without a part, every part runs in turn. A part is a module of this folder with
``main(argv) -> rows | None``; register new ones in ``PARTS``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# part name → (module in benchmarks/, what it measures: figure against anchor)
PARTS: dict[str, tuple[str, str]] = {
    "pages": (
        "scale_pages",
        "every page and API listing at 1,000,000 pairs against the same request at 1,000",
    ),
}


def run_part(name: str, argv: list[str]) -> bool:
    module_name, what = PARTS[name]
    print(f"== {name}: {what} (load average {os.getloadavg()[0]:.1f})")
    t0 = time.perf_counter()
    rows = importlib.import_module(module_name).main(argv)
    print(f"== {name}: {time.perf_counter() - t0:.0f} s, load average {os.getloadavg()[0]:.1f}")
    return rows is not None and all(r.get("ratio", 0) <= r.get("goal", 1.5) for r in rows)


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
        for name, (module, what) in PARTS.items():
            print(f"{name:10} benchmarks/{module}.py: {what}")
        return 0
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}: choose from {', '.join(PARTS)}")
    results = [run_part(name, extra) for name in args.parts or PARTS]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
