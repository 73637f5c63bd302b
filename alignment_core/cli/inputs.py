"""The input side of the agreement commands (score, agree, fleiss): their file options, and
reading alignment files into values that ``alignment_core.agreement`` takes.

Paths stop here: the agreement package matches and scores alignments it is given, never files.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from alignment_core.alignment import AlignedPair
from alignment_core.cli.normalize import add_normalize_option, normalization, say_normalized
from alignment_core.formats import FORMATS, FormatError, read_pairs

if TYPE_CHECKING:  # the agreement package (numba kernels) loads only when a command runs
    from alignment_core.agreement.matching import Matching


def add_input_options(p: argparse.ArgumentParser) -> None:
    """The file-reading options shared by score, agree and fleiss."""
    p.add_argument(
        "--from",
        dest="from_fmt",
        choices=list(FORMATS),
        help="format of the files (default: guess from each name)",
    )
    p.add_argument(
        "--source-text", metavar="F", help="pharaoh/naacl: source sentences, one per line"
    )
    p.add_argument(
        "--target-text", metavar="F", help="pharaoh/naacl: target sentences, one per line"
    )
    p.add_argument("--encoding", default="utf-8", help="input encoding (default utf-8)")
    add_normalize_option(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def read_alignment_files(
    paths: Sequence[str], args: argparse.Namespace, *, fmt: str | None = None
) -> list[list[AlignedPair]]:
    """Read each file with ``alignment_core.formats.read_pairs`` and the input options (``fmt``
    instead of ``--from``; neither = guess per file from its name). Raises FormatError for an
    unreadable file or one whose pairs carry no alignment (a text-only file)."""
    out = []
    for path in paths:
        norm = normalization(args)
        pairs = read_pairs(
            path,
            fmt or args.from_fmt,
            encoding=args.encoding,
            source_text=args.source_text,
            target_text=args.target_text,
            normalize=norm,
        )
        if norm is not None and norm.tokens_changed:
            say_normalized(norm)
        bare = next((p for p in pairs if p.alignment is None), None)
        if bare is not None:
            raise FormatError(
                f"pair {bare.id} has no alignment (a text-only file?)", file=str(path)
            )
        out.append(pairs)
    return out


def read_matched(
    paths: Sequence[str],
    args: argparse.Namespace,
    *,
    allow_missing: bool = False,
    extra: Sequence[tuple[str, list[AlignedPair]]] = (),
) -> Matching:
    """Read ``paths`` and match their pairs; problems go to stderr. ``extra`` are already-read
    files appended after ``paths`` (as ``(name, pairs)``)."""
    from alignment_core.agreement.matching import match_pairs

    files = read_alignment_files(paths, args)
    names = list(paths) + [name for name, _ in extra]
    files += [pairs for _, pairs in extra]
    matching = match_pairs(files, names, allow_missing=allow_missing)
    for line in matching.problems:
        print(f"warning: {line}", file=sys.stderr)
    return matching
