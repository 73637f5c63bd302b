"""``convert``: read pairs in one format and write them in another.

    python -m alignment_core convert IN OUT --from FMT --to FMT
        [--source-text F --target-text F | --source-text TEXTPAIRS [--text-format FMT]]
        [--sure-file F] [--encoding ENC] [--subcorpus NAME] [--normalize]
        [--out-source-text F --out-target-text F]

IN or OUT ``-`` is stdin / stdout. ``--from`` / ``--to`` default to what the file names
suggest. The whole input is read and checked before anything is written, and a file output
appears only when complete. Output is UTF-8. A one-line summary goes to stderr.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import TextIO

from alignment_core.cli.normalize import add_normalize_option, normalization, say_normalized
from alignment_core.formats import (
    FORMATS,
    FormatError,
    Normalization,
    guess_format,
    parse_pairs,
    read_pairs,
)
from alignment_core.formats import write_pairs as _write_pairs

_ABOUT = (  # the help text (kept out of __doc__, which python -OO strips)
    "IN or OUT '-' is stdin / stdout. --from / --to default to what the file names suggest. "
    "The whole input is read and checked before anything is written, and a file output "
    "appears only when complete. Output is UTF-8. A one-line summary goes to stderr."
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "convert",
        help="convert alignment / sentence-pair files between formats",
        description=_ABOUT + f"\nFormats: {', '.join(FORMATS)}.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    names = list(FORMATS)
    p.add_argument("input", metavar="IN", help="input file ('-' = stdin)")
    p.add_argument("output", metavar="OUT", help="output file ('-' = stdout)")
    p.add_argument("--from", dest="from_fmt", choices=names, metavar="FMT", help="input format")
    p.add_argument("--to", dest="to_fmt", choices=names, metavar="FMT", help="output format")
    p.add_argument(
        "--source-text",
        metavar="F",
        help="pharaoh/naacl input: source sentences, one per line (or a tsv/bitext/jsonl "
        "file of pairs when given without --target-text)",
    )
    p.add_argument(
        "--target-text",
        metavar="F",
        help="pharaoh/naacl input: target sentences; parallel input: the target side",
    )
    p.add_argument(
        "--text-format", choices=names, metavar="FMT", help="format of a --source-text pair file"
    )
    p.add_argument("--sure-file", metavar="F", help="edinburgh: the sure-only file of IN")
    p.add_argument(
        "--encoding", default="utf-8", metavar="ENC", help="input encoding (default utf-8)"
    )
    p.add_argument("--subcorpus", metavar="NAME", help="subcorpus for pairs whose file names none")
    add_normalize_option(p)
    p.add_argument(
        "--out-source-text",
        metavar="F",
        help="also write the source sentences, one per line (pharaoh/naacl output carries none)",
    )
    p.add_argument(
        "--out-target-text",
        metavar="F",
        help="also write the target sentences; for --to parallel, the target side (required)",
    )
    p.set_defaults(func=run)


def _read(args: argparse.Namespace, norm: Normalization | None = None) -> list:
    fmt = args.from_fmt
    if args.input == "-":
        if fmt is None:
            raise FormatError("reading stdin needs --from", file="<stdin>")
        if args.source_text or args.target_text or args.sure_file:
            raise FormatError(
                "--source-text/--target-text/--sure-file need IN to be a file", file="<stdin>"
            )
        data = sys.stdin.buffer.read()
        return parse_pairs(
            data,
            fmt,
            name="<stdin>",
            encoding=args.encoding,
            subcorpus=args.subcorpus,
            normalize=norm,
        )
    return read_pairs(
        args.input,
        fmt,
        encoding=args.encoding,
        source_text=args.source_text,
        target_text=args.target_text,
        sure_path=args.sure_file,
        subcorpus=args.subcorpus,
        text_format=args.text_format,
        normalize=norm,
    )


def run(args: argparse.Namespace) -> int:
    to_fmt = args.to_fmt or (None if args.output == "-" else guess_format(args.output))
    if to_fmt is None:
        raise FormatError(
            f"cannot tell the output format from the name; pass --to ({', '.join(FORMATS)})",
            file=args.output,
        )
    norm = normalization(args)
    pairs = _read(args, norm)
    say_normalized(norm)
    out: str | TextIO = args.output
    if args.output == "-":
        sys.stdout.flush()
        buffer = getattr(sys.stdout, "buffer", None)
        out = io.TextIOWrapper(buffer, encoding="utf-8", newline="\n") if buffer else sys.stdout
    kwargs = {}
    if to_fmt == "parallel":
        if not args.out_target_text or args.out_source_text:
            raise FormatError(
                "--to parallel writes the source side to OUT and needs --out-target-text F",
                file=args.output,
            )
        kwargs["target_text"] = args.out_target_text
    elif args.out_source_text or args.out_target_text:
        kwargs = {"source_text": args.out_source_text, "target_text": args.out_target_text}
    try:
        _write_pairs(pairs, out, to_fmt, **kwargs)
    finally:
        if isinstance(out, io.TextIOWrapper) and out is not sys.stdout:
            out.flush()
            out.detach()
    aligned = [p.alignment for p in pairs if p.alignment is not None]
    sure = sum(len(a.sure) for a in aligned)
    possible = sum(len(a.possible) for a in aligned)
    print(
        f"converted {len(pairs)} pair{'' if len(pairs) == 1 else 's'} ({sure} sure, {possible} possible links) "
        f"from {args.from_fmt or guess_format(args.input)} to {to_fmt}",
        file=sys.stderr,
    )
    return 0
