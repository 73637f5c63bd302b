"""``builtin``: rebuild the built-in English paraphrase model (issue 34) from Edinburgh++.

    python -m alignment_core builtin build --data DIR --out FILE [--resources DIR]

DIR holds Edinburgh++'s ``gold.train.sure+poss.json`` and ``gold.train.sure.json`` (the test
split is never read). The shipped file is ``alignment_core/aligner/builtin/en-paraphrase-1.npz``
(see ``MODEL.md`` beside it); rebuilding with the same data, resources and libraries gives the
same bytes. Prints the file's sha256.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "builtin",
        help="rebuild the built-in English paraphrase model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", required=True)
    build = actions.add_parser("build", help="train it on Edinburgh++'s train split")
    build.add_argument("--data", required=True, metavar="DIR", help="the Edinburgh++ folder")
    build.add_argument("--out", required=True, metavar="FILE", help="the .npz to write")
    build.add_argument("--resources", metavar="DIR", help="the resources folder (default: "
                       "$GRIDALIGN_RESOURCES, else <venv>/share/gridalign)")  # fmt: skip
    build.set_defaults(func=run_build)


def run_build(args: argparse.Namespace) -> int:
    from alignment_core.aligner.builtin_build import TRAIN_FILES, build_builtin
    from alignment_core.aligner.resources import resources_dir
    from alignment_core.aligner.seed_resources import SeedResources

    folder = Path(args.data)
    absent = [name for name in TRAIN_FILES if not (folder / name).is_file()]
    if absent:
        print(f"error: {folder / absent[0]} not found (--data: the Edinburgh++ folder)",
              file=sys.stderr)  # fmt: skip
        return 1
    resources = SeedResources.load(args.resources or resources_dir())
    try:
        meta = build_builtin(folder, args.out, resources)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    digest = hashlib.sha256(Path(args.out).read_bytes()).hexdigest()
    cv = meta.get("cv") or {}
    print(
        f"{meta['version']}: {meta['data']['pairs']} train pairs, threshold {meta['threshold']},"
        f" CV edits/pair {cv.get('edits_per_pair', float('nan')):.2f}; wrote {args.out}"
        f" ({Path(args.out).stat().st_size} bytes, sha256 {digest})"
    )
    return 0
