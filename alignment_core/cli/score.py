"""``score``: word- and phrase-level precision / recall / F1 (and AER) of TEST against GOLD.

    python -m alignment_core score GOLD TEST [--json] [--include-identical]
        [--from FMT] [--source-text F --target-text F] [--encoding ENC]

Pairs are matched by id when both files carry overlapping ids, else by position; a pair whose
tokens differ between the files is reported on stderr and left out. Only links (and phrase pairs)
between non-identical words count unless ``--include-identical``. Figures are fractions in
[0, 1]; an undefined ratio (0/0) is ``null`` in JSON and "–" in the table.

JSON: {"pairs": n, "word": {"precision_sure", "recall_sure", "f1", "precision_possible",
"recall_possible", "aer"}, "phrase": {"precision_sure", "recall_sure", "f1",
"precision_possible", "recall_possible"}}
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from alignment_core.alignment import AlignedPair
from alignment_core.formats import FORMATS

if TYPE_CHECKING:
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
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def read_matched(
    paths: Sequence[str],
    args: argparse.Namespace,
    *,
    allow_missing: bool = False,
    extra: Sequence[tuple[str, list[AlignedPair]]] = (),
) -> Matching:
    """Read ``paths`` and match their pairs; problems go to stderr. ``extra`` are already-read
    files appended after ``paths`` (as ``(name, pairs)``)."""
    from alignment_core.agreement.matching import match_pairs, read_annotation_files

    files = read_annotation_files(
        paths,
        args.from_fmt,
        encoding=args.encoding,
        source_text=args.source_text,
        target_text=args.target_text,
    )
    names = list(paths) + [name for name, _ in extra]
    files += [pairs for _, pairs in extra]
    matching = match_pairs(files, names, allow_missing=allow_missing)
    for line in matching.problems:
        print(f"warning: {line}", file=sys.stderr)
    return matching


def show(value: float | None, percent: bool = True) -> str:
    """A figure for a plain-text table: percentage with one decimal, "–" when undefined."""
    if value is None:
        return "–"
    return f"{100 * value:.1f}" if percent else f"{value:.3f}"


def scores_table(word: dict, phrase: dict) -> list[str]:
    """Rows word / phrase, columns P/R sure, F1, P/R possible, AER (percentages)."""
    cols = ("precision_sure", "recall_sure", "f1", "precision_possible", "recall_possible", "aer")
    heads = ("P sure", "R sure", "F1", "P poss", "R poss", "AER")
    lines = [f"{'level':<8}" + "".join(f"{h:>9}" for h in heads)]
    for name, figures in (("word", word), ("phrase", phrase)):
        lines.append(f"{name:<8}" + "".join(f"{show(figures.get(c)):>9}" for c in cols))
    return lines


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="precision/recall/F1/AER of a test alignment file against a gold one",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("gold", metavar="GOLD", help="reference alignments (B)")
    p.add_argument("test", metavar="TEST", help="alignments to score (A)")
    p.add_argument(
        "--include-identical", action="store_true", help="also count links between identical words"
    )
    add_input_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from alignment_core.agreement.phrase import score_alignments

    matching = read_matched([args.gold, args.test], args)
    if not matching.pairs:
        print("error: no pair could be matched between GOLD and TEST", file=sys.stderr)
        return 1
    word, phrase = score_alignments(
        ((p.source, p.target, p.alignments[1], p.alignments[0]) for p in matching.pairs),
        include_identical=args.include_identical,
    )
    out = {"pairs": len(matching.pairs), "word": word.as_dict(), "phrase": phrase.as_dict()}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"pairs: {out['pairs']}  (TEST {args.test} against GOLD {args.gold})")
        print("\n".join(scores_table(out["word"], out["phrase"])))
    return 0
