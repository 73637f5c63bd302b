"""``sentalign``: align the sentences of two documents, or of many pairs in one call.

    python -m alignment_core sentalign SRC TGT --out FILE [options]
    python -m alignment_core sentalign SRC_DIR TGT_DIR --out-dir DIR [options]
    python -m alignment_core sentalign --list PAIRS --out-dir DIR [options]
    options: [--mode parallel|comparable] [--split LANG | --split SRC_LANG:TGT_LANG]
        [--languages SRC_LANG:TGT_LANG] [--method full|gale-church] [--threshold T]
        [--encoding ENC] [--no-scores]

SRC and TGT hold one sentence per line, taken as they are (sentence k is line k + 1), unless
``--split`` names their language(s): then they are raw text split by pysbd's rules. An HTML
file (recognised by its content) is reduced to its main text's blocks, split with ``--split``'s
language (English rules without it), and in parallel mode its block boundaries are anchors.

Many pairs in one call (the start-up, most of a small pair's time, is paid once):

* two directories: their files are matched by name as the zip upload matches them
  (``alignment_core.sentalign.pairing``): ``x.de`` / ``x.fr`` (the languages of
  ``--languages``, else of ``--split``), ``x.src.html`` / ``x.tgt.html``, or the same name in
  both (``doc1.txt``); subfolders count. The same directory twice is one folder of both
  sides, as in a zip, where the names alone tell the sides. A file without a partner stops the call before any
  work. Each pair's beads go to ``DIR/NAME.beads`` (NAME: the pair's name, ``x`` or ``a/x``).
* ``--list PAIRS``: one pair a line, ``SRC<TAB>TGT`` or ``SRC<TAB>TGT<TAB>OUT`` (paths as on
  the command line, relative to the current directory; blank lines and ``#`` lines skipped);
  without OUT the beads go to ``DIR/NAME.beads``, NAME the source's file name less its
  language tag (``--languages``) or ``.src``.

A pair that cannot be aligned is reported on stderr by its name, and the others go on; the
exit status is 1 if any pair failed (2 for a usage error).

FILE gets one bead per line, 0-based sentence indices: ``[i, j]:[k]:score`` (score = the
bead's confidence in [0, 1]), null beads ``[]:[k]`` / ``[i]:[]``; in comparable mode one
``[i]:[j]:score`` line per proposed pair. ``--no-scores`` leaves the ``:score`` out. Bad input
(binary, undecodable, an unknown language) is an error naming the file: nothing is written
for that pair.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from alignment_core.formats.errors import FormatError
from alignment_core.sentalign.pairing import (
    SOURCE,
    TARGET,
    PairingError,
    match_by_name,
    side_of,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sentalign",
        help="align the sentences of two documents (parallel beads or comparable pairs)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("src", metavar="SRC", nargs="?", help="source document, or directory")
    p.add_argument("tgt", metavar="TGT", nargs="?", help="target document, or directory")
    p.add_argument("--out", metavar="FILE", help="bead file to write (one pair)")
    p.add_argument("--out-dir", metavar="DIR", help="directory for one bead file per pair")
    p.add_argument("--list", metavar="PAIRS", help="file of pairs: SRC<TAB>TGT[<TAB>OUT] a line")
    p.add_argument("--mode", choices=("parallel", "comparable"), default="parallel")
    p.add_argument(
        "--split",
        metavar="LANG",
        help="split raw text into sentences with this language's rules (LANG or SRC:TGT)",
    )
    p.add_argument(
        "--languages",
        metavar="SRC:TGT",
        help="directories: the language tags in file names (x.de / x.fr); --split's by default",
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
    p.set_defaults(func=run, parser=p)


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


@dataclass(frozen=True)
class Job:
    """One pair to align: its name (for messages), its two files and its bead file."""

    name: str
    src: str
    tgt: str
    out: str


class Usage(Exception):
    """A usage error (exit 2): the arguments do not say one way to find the pairs."""


def run(args: argparse.Namespace) -> int:
    try:
        jobs = _jobs(args)
    except Usage as exc:
        args.parser.error(str(exc))  # exits with status 2
    resources = _load_resources() if args.mode == "comparable" and args.resources else None
    failed = 0
    for job in jobs:
        try:
            if isinstance(job, str):  # a line of the list that names no pair
                raise FormatError(job)
            _align_one(job, args, resources)
        except (FormatError, OSError) as exc:
            failed += 1
            name = job.name if isinstance(job, Job) else ""
            print(f"error: {_message(name, exc)}", file=sys.stderr)
    if len(jobs) > 1:
        print(f"{len(jobs) - failed} of {len(jobs)} pairs aligned", file=sys.stderr)
    return 1 if failed else 0


def _message(name: str, exc: Exception) -> str:
    if isinstance(exc, FormatError) and exc.file is None:
        text = exc.reason
    elif isinstance(exc, OSError):
        text = f"cannot write {exc.filename}: {exc.strerror or exc}"
    else:
        text = str(exc)
    return f"{name}: {text}" if name and not text.startswith(name) else text


def _jobs(args: argparse.Namespace) -> list[Job | str]:
    """The pairs the arguments name, in order; a line of ``--list`` that names none is its
    error message in its place."""
    if args.list:
        if args.src or args.tgt or args.out:
            raise Usage("--list takes no SRC, TGT or --out (the list names the files)")
        return _listed(args.list, args.out_dir, _languages(args.languages or args.split))
    if not (args.src and args.tgt):
        raise Usage("give SRC and TGT (two files or two directories), or --list PAIRS")
    if Path(args.src).is_dir() or Path(args.tgt).is_dir():
        return _directories(args)
    if bool(args.out) == bool(args.out_dir):
        raise Usage("give one of --out FILE or --out-dir DIR")
    langs = (x or "" for x in _languages(args.languages or args.split))
    out = args.out or _in_dir(args.out_dir, side_of(Path(args.src).name, *langs)[0])
    return [Job(args.src, args.src, args.tgt, out)]


def _in_dir(out_dir: str, name: str) -> str:
    return str(Path(out_dir) / f"{name}.beads")


def _directories(args: argparse.Namespace) -> list[Job | str]:
    if not (Path(args.src).is_dir() and Path(args.tgt).is_dir()):
        raise Usage("SRC and TGT must both be files or both be directories")
    if args.out or not args.out_dir:
        raise Usage("two directories take --out-dir DIR (one bead file per pair), not --out")
    src_lang, tgt_lang = _languages(args.languages or args.split)
    if Path(args.src).resolve() == Path(args.tgt).resolve():  # one folder: names tell, as in a zip
        files = [(p, None) for p in _files_under(args.src)]
    else:
        files = [(p, SOURCE) for p in _files_under(args.src)]
        files += [(p, TARGET) for p in _files_under(args.tgt)]
    try:
        pairs = match_by_name(
            files,
            source_language=src_lang or "",
            target_language=tgt_lang or "",
        )
    except PairingError as exc:
        raise FormatError(str(exc), file=f"{args.src} and {args.tgt}") from None
    if not pairs:
        raise FormatError("no documents in either directory", file=f"{args.src} and {args.tgt}")
    return [
        Job(
            p.name,
            str(Path(args.src) / p.source),
            str(Path(args.tgt) / p.target),
            _in_dir(args.out_dir, p.name),
        )
        for p in pairs
    ]


def _files_under(folder: str) -> list[str]:
    """Files below ``folder`` as POSIX paths relative to it (hidden folders left out)."""
    root = Path(folder)
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def _listed(list_file: str, out_dir: str | None, languages) -> list[Job | str]:
    try:
        text = Path(list_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(f"cannot read the list: {exc}", file=list_file) from None
    jobs: list[Job | str] = []
    outs: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{list_file}:{number}"
        fields = line.split("\t")
        if len(fields) not in (2, 3) or not all(f.strip() for f in fields):
            jobs.append(f"{where}: not SRC<TAB>TGT or SRC<TAB>TGT<TAB>OUT ({line[:80]!r})")
            continue
        src, tgt = fields[0].strip(), fields[1].strip()
        if len(fields) == 3:
            out = fields[2].strip()
        elif out_dir:
            out = _in_dir(out_dir, side_of(Path(src).name, *(x or "" for x in languages))[0])
        else:
            jobs.append(f"{where}: no OUT on the line and no --out-dir for {src}")
            continue
        if out in outs:
            jobs.append(f"{where}: {out} is already the output of line {outs[out]}")
            continue
        outs[out] = number
        jobs.append(Job(f"{where} ({Path(src).name})", src, tgt, out))
    if not jobs:
        raise FormatError("no pairs in the list", file=list_file)
    return jobs


def _align_one(job: Job, args: argparse.Namespace, resources) -> None:
    src_lang, tgt_lang = _languages(args.split)
    src, src_blocks = read_document(job.src, encoding=args.encoding, lang=src_lang)
    tgt, tgt_blocks = read_document(job.tgt, encoding=args.encoding, lang=tgt_lang)
    if args.mode == "parallel":
        lines = _parallel_lines(src, tgt, src_blocks, tgt_blocks, args)
    else:
        lines = _comparable_lines(src, tgt, args, resources)
    Path(job.out).parent.mkdir(parents=True, exist_ok=True)
    write_atomically(job.out, (line + "\n" for line in lines))
    print(
        f"{len(src)} + {len(tgt)} sentences -> {len(lines)} "
        f"{'beads' if args.mode == 'parallel' else 'pairs'} in {job.out}",
        file=sys.stderr,
    )


def _parallel_lines(src, tgt, src_blocks, tgt_blocks, args) -> list[str]:
    from alignment_core.formats.beads import format_bead
    from alignment_core.sentalign import ParallelConfig, align_parallel

    beads = align_parallel(
        src,
        tgt,
        config=ParallelConfig(mode=args.method),
        src_blocks=src_blocks,
        tgt_blocks=tgt_blocks,
    )
    return [format_bead(b.src, b.tgt, None if args.no_scores else b.confidence) for b in beads]


def _comparable_lines(src, tgt, args, resources) -> list[str]:
    from alignment_core.formats.beads import format_bead
    from alignment_core.sentalign.comparable import ComparableConfig, match_comparable

    cfg = ComparableConfig()
    if args.threshold is not None:
        cfg = ComparableConfig(threshold=args.threshold)
    return [
        format_bead((pair.src,), (pair.tgt,), None if args.no_scores else pair.score)
        for pair in match_comparable(src, tgt, config=cfg, resources=resources)
    ]


def _load_resources():
    """WordNet, vectors and thesaurus, built here at the edge (None for what is missing)."""
    from alignment_core.paraphrase.features import Resources

    return Resources.load()
