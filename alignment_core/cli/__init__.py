"""Command line entry point. Each subcommand lives in its own module exposing
``register(subparsers)``, which adds a parser whose ``func(args) -> int`` does the work.

Exit codes: 0 success, 1 a data problem (the message on stderr names file, line and reason),
2 a usage error (argparse).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from alignment_core.aligner._kernels import use_plain_kernels
from alignment_core.formats.errors import FormatError

# module name -> subcommands it registers
_COMMAND_MODULES = ("convert", "score", "agree", "fleiss", "align", "resources")
_COMMAND_MODULES += ("sentalign", "paraphrase")  # issue 33: sentence pairs from documents
_COMMAND_MODULES += ("builtin",)  # issue 34: the built-in English model


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m alignment_core",
        description="Word alignment formats, agreement measures and the seeding aligner.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in _COMMAND_MODULES:
        importlib.import_module(f"alignment_core.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # the edge decides: GRIDALIGN_ALIGNER_PLAIN=1 runs the aligner's kernels as plain Python
    use_plain_kernels(os.environ.get("GRIDALIGN_ALIGNER_PLAIN", "") not in ("", "0"))
    try:
        return int(args.func(args) or 0)
    except FormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
