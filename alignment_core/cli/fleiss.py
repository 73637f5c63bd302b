"""``fleiss``: Fleiss' κ and Krippendorff's α (nominal) of several annotators (SPEC §6).

    python -m alignment_core fleiss FILE1 FILE2 FILE3 ... [--json]
        [--from FMT] [--source-text F --target-text F] [--encoding ENC] [--normalize]

One file per annotator. Items are link items: per pair, the union of the links any annotator made
(all links, identical words included); each annotator labels an item sure, possible or none.
Pairs are matched by id (else by position); a pair whose tokens differ between files is reported
on stderr and left out. A pair missing from some files still counts for Krippendorff's α (which
allows missing annotators) but not for Fleiss' κ. Undefined coefficients are null.

JSON: {"items", "fleiss_kappa", "krippendorff_alpha"}. Example (MSR RTE2, GIZA A3 files)::

    python -m alignment_core fleiss RTE2_dev_A.align.txt RTE2_dev_B.align.txt RTE2_dev_C.align.txt
"""

from __future__ import annotations

import argparse
import json
import sys

from alignment_core.cli.inputs import add_input_options, read_matched
from alignment_core.cli.tables import show


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fleiss",
        help="Fleiss' kappa and Krippendorff's alpha over link items of 2+ annotators",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", metavar="FILE", nargs="+", help="one alignment file per annotator")
    add_input_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from alignment_core.agreement.classic import multi_rater_agreement

    if len(args.files) < 2:
        print("error: give at least two annotators' files", file=sys.stderr)
        return 2
    matching = read_matched(args.files, args, allow_missing=True)
    if not matching.pairs:
        print("error: no pair could be matched between the files", file=sys.stderr)
        return 1
    names = [f"#{k}" for k in range(len(args.files))]
    result = multi_rater_agreement(
        (dict(zip(names, p.alignments, strict=True)) for p in matching.pairs), names
    )
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
        return 0
    print(f"annotators: {len(args.files)}   pairs: {len(matching.pairs)}   items: {result.items}")
    print(
        f"Fleiss' kappa        {show(result.fleiss_kappa, percent=False):>8}  ({result.fleiss_items} items)"
    )
    print(
        f"Krippendorff's alpha {show(result.krippendorff_alpha, percent=False):>8}  ({result.alpha_items} items)"
    )
    return 0
