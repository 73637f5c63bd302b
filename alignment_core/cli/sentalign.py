"""``sentalign``: align the sentences of two documents.

    python -m alignment_core sentalign SRC TGT --out FILE [--mode parallel|comparable]
        [--split LANG | --split SRC_LANG:TGT_LANG] [--method full|gale-church]
        [--threshold T] [--encoding ENC] [--no-scores]

SRC and TGT hold one sentence per line, taken as they are (sentence k is line k + 1), unless
``--split`` names their language(s): then they are raw text split by pysbd's rules. An HTML
file (recognised by its content) is reduced to its main text's blocks, split with ``--split``'s
language (English rules without it), and in parallel mode its block boundaries are anchors.

FILE gets one bead per line, 0-based sentence indices: ``[i, j]:[k]:score`` (score = the
bead's confidence in [0, 1]), null beads ``[]:[k]`` / ``[i]:[]``; in comparable mode one
``[i]:[j]:score`` line per proposed pair. ``--no-scores`` leaves the ``:score`` out. Bad input
(binary, undecodable, an unknown language) is an error naming the file: nothing is written.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from alignment_core.formats.errors import FormatError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sentalign",
        help="align the sentences of two documents (parallel beads or comparable pairs)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("src", metavar="SRC", help="source document")
    p.add_argument("tgt", metavar="TGT", help="target document")
    p.add_argument("--out", required=True, metavar="FILE", help="bead file to write")
    p.add_argument("--mode", choices=("parallel", "comparable"), default="parallel")
    p.add_argument(
        "--split",
        metavar="LANG",
        help="split raw text into sentences with this language's rules (LANG or SRC:TGT)",
    )
    p.add_argument(
        "--method",
        choices=("full", "gale-church"),
        default="full",
        help="parallel mode: lengths + lexical evidence + IBM1 (full) or plain Gale-Church",
    )
    p.add_argument(
        "--threshold", type=float, default=None, help="comparable mode: lowest pair score kept"
    )
    p.add_argument("--encoding", default="utf-8", help="encoding of SRC and TGT (utf-8)")
    p.add_argument("--no-scores", action="store_true", help="write beads without :score")
    p.add_argument(
        "--resources",
        action="store_true",
        help="comparable mode: also read WordNet, word vectors and the thesaurus if installed",
    )
    p.set_defaults(func=run)


def read_document(path: str, *, encoding: str, lang: str | None):
    """(sentences, block numbers or None) of one file; bad input is a FormatError."""
    from alignment_core.formats._io import decode
    from alignment_core.sentalign.split import (
        SplitError,
        html_sentences,
        lines_as_sentences,
        looks_like_html,
        split_text,
    )

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise FormatError(f"cannot read file: {exc.strerror or exc}", file=path) from None
    if b"\x00" in data[:8192]:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise FormatError("binary file (holds NUL bytes), not text", file=path, line=line)
    text = decode(data, encoding=encoding, name=path)
    try:
        if looks_like_html(text):
            sentences, blocks, _ = html_sentences(text, lang or "en")
            return sentences, blocks
        if lang:
            return split_text(text, lang), None
    except SplitError as exc:
        raise FormatError(str(exc), file=path) from None
    return lines_as_sentences(text), None


def _languages(split: str | None) -> tuple[str | None, str | None]:
    if not split:
        return None, None
    if ":" in split:
        a, b = split.split(":", 1)
        return a, b
    return split, split


def write_atomically(path: str, lines) -> None:
    """Write all lines or nothing (a temporary file renamed over ``path``)."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or Path("."), prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(lines)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run(args: argparse.Namespace) -> int:
    from alignment_core.formats.beads import format_bead

    src_lang, tgt_lang = _languages(args.split)
    src, src_blocks = read_document(args.src, encoding=args.encoding, lang=src_lang)
    tgt, tgt_blocks = read_document(args.tgt, encoding=args.encoding, lang=tgt_lang)
    lines: list[str] = []
    if args.mode == "parallel":
        from alignment_core.sentalign import ParallelConfig, align_parallel

        beads = align_parallel(
            src,
            tgt,
            config=ParallelConfig(mode=args.method),
            src_blocks=src_blocks,
            tgt_blocks=tgt_blocks,
        )
        for b in beads:
            lines.append(format_bead(b.src, b.tgt, None if args.no_scores else b.confidence))
    else:
        from alignment_core.sentalign.comparable import ComparableConfig, match_comparable

        cfg = ComparableConfig()
        if args.threshold is not None:
            cfg = ComparableConfig(threshold=args.threshold)
        resources = _load_resources() if args.resources else None
        for pair in match_comparable(src, tgt, config=cfg, resources=resources):
            score = None if args.no_scores else pair.score
            lines.append(format_bead((pair.src,), (pair.tgt,), score))
    write_atomically(args.out, (line + "\n" for line in lines))
    print(
        f"{len(src)} + {len(tgt)} sentences -> {len(lines)} "
        f"{'beads' if args.mode == 'parallel' else 'pairs'} in {args.out}",
        file=sys.stderr,
    )
    return 0


def _load_resources():
    """WordNet, vectors and thesaurus, built here at the edge (None for what is missing)."""
    from alignment_core.paraphrase.features import Resources

    return Resources.load()
