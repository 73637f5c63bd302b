"""``score``: word- and phrase-level precision / recall / F1 (and AER) of TEST against GOLD.

    python -m alignment_core score GOLD TEST [--json] [--include-identical]
        [--from FMT] [--source-text F --target-text F] [--encoding ENC] [--normalize]

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

from alignment_core.cli.inputs import add_input_options, read_matched
from alignment_core.cli.tables import scores_table


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
