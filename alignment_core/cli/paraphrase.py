"""``paraphrase``: learn from labelled sentence pairs, then score new ones.

    python -m alignment_core paraphrase PAIRS --decisions LABELLED --out FILE
        [--threshold T] [--no-resources]

PAIRS and LABELLED are in the Microsoft Research Paraphrase Corpus format (tab-separated, the
header ``Quality  #1 ID  #2 ID  #1 String  #2 String``; PAIRS may leave Quality empty, it is
not read). The classifier (gradient-boosted trees over seed 002's overlap features) is fitted
on LABELLED only. FILE gets one line per pair of PAIRS, in input order:
``probability<TAB>0|1`` (1 when the probability is at least the threshold, 0.4 by default).
WordNet, word vectors and the thesaurus are read when installed (``--no-resources``: never).
Bad input is an error naming file and line; nothing is written.
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "paraphrase",
        help="learn which sentence pairs are worth aligning from labelled pairs; score others",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("pairs", metavar="PAIRS", help="pairs to score (MSRP format)")
    p.add_argument(
        "--decisions", required=True, metavar="LABELLED", help="labelled pairs (MSRP format)"
    )
    p.add_argument("--out", required=True, metavar="FILE")
    p.add_argument("--threshold", type=float, default=None, help="decision threshold (0.4)")
    p.add_argument("--no-resources", action="store_true", help="no WordNet, vectors, thesaurus")
    p.add_argument("--encoding", default="utf-8")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from alignment_core.cli.sentalign import write_atomically
    from alignment_core.formats._io import read_path
    from alignment_core.formats.msrp import parse_msrp
    from alignment_core.paraphrase.features import Resources
    from alignment_core.paraphrase.model import DEFAULT_THRESHOLD, train_and_predict

    labelled = parse_msrp(read_path(args.decisions, encoding=args.encoding), args.decisions)
    pairs = parse_msrp(
        read_path(args.pairs, encoding=args.encoding), args.pairs, require_quality=False
    )
    if not labelled:
        print(f"error: {args.decisions}: no labelled pairs to learn from", file=sys.stderr)
        return 1
    resources = None if args.no_resources else Resources.load()
    threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold
    out = train_and_predict(
        [(p.string1, p.string2, int(p.quality or 0)) for p in labelled],
        [(p.string1, p.string2) for p in pairs],
        resources=resources,
        threshold=threshold,
    )
    write_atomically(args.out, (f"{prob:.6f}\t{label}\n" for prob, label in out))
    print(
        f"learnt from {len(labelled)} decisions; {sum(lb for _, lb in out)} of {len(out)} "
        f"pairs predicted 1 -> {args.out}",
        file=sys.stderr,
    )
    return 0
