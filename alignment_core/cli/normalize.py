"""``--normalize``: the option every command that reads corpora offers (align, score, agree,
fleiss, convert). Without it a token with a control character is refused, and the error names
the option; with it the tokens are cleaned (control characters removed, Unicode NFC; see
``alignment_core.formats.textcheck.Normalization``) and the command says how many changed."""

from __future__ import annotations

import argparse
import sys

from alignment_core.formats import Normalization


def add_normalize_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--normalize",
        action="store_true",
        help="clean the tokens: remove control characters (e.g. U+0082) from inside them and "
        "put them in Unicode NFC (default: refuse a file with control characters)",
    )


def normalization(args: argparse.Namespace) -> Normalization | None:
    """A fresh counter when ``--normalize`` was given, else None (refuse)."""
    return Normalization() if getattr(args, "normalize", False) else None


def say_normalized(norm: Normalization | None) -> None:
    """Tell stderr what ``--normalize`` changed (nothing without the option)."""
    if norm is not None:
        print(
            f"normalize: {norm.tokens_changed} token(s) cleaned in {norm.pairs_changed} pair(s)",
            file=sys.stderr,
        )
