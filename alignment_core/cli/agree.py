"""``agree``: chance-corrected agreement κ_C between two annotators (SPEC §5).

    python -m alignment_core agree A B --seed SEED [--samples J] [--rng-seed S]
        [--level phrase|word] [--bin-width W] [--include-identical] [--json]
        [--from FMT] [--seed-from FMT] [--source-text F --target-text F] [--encoding ENC]
        [--normalize]

SEED is the automatic alignment both annotators started from (a file in any readable format),
or the word ``empty``: every pair's seed is then the empty alignment. That is the right choice
for corpora annotated from scratch, such as MSR RTE2: the chance model then starts from nothing
and each annotator's samples are random alignments with that annotator's link density (its edit
rate is its links per cell), so κ_C measures agreement beyond what random alignments of the
same density would reach. (A file literally named "empty" can be given as ./empty.)

Pairs are matched across A, B and SEED by id (else by position); a pair whose tokens differ
between files is reported on stderr and left out. Figures are fractions; undefined ones are
null (κ_C with a reason).

JSON: {"pairs" (matched), "theta", "theta0", "kappa_c", "stderr" (Monte Carlo standard error of
κ_C), "samples", "rng_seed", "level", "reason", "theta0_stderr", "kappa_pairs" (pairs with units;
the others are "skipped_empty"), "seed", "edit_models", "by_subcorpus": {name: {...}},
"by_length": [{"min_length", "max_length", ...}], "word": {...}, "phrase": {...}} where
``word`` / ``phrase`` score A against B as ``score B A`` does.
"""

from __future__ import annotations

import argparse
import json
import sys

from alignment_core.cli.inputs import add_input_options, read_alignment_files, read_matched
from alignment_core.cli.tables import scores_table, show
from alignment_core.formats import FORMATS
from alignment_core.progress import ProgressBar

EMPTY_SEED = "empty"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agree",
        help="κ_C (chance-corrected agreement) between two annotators",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("a", metavar="A", help="annotator A's alignments")
    p.add_argument("b", metavar="B", help="annotator B's alignments")
    p.add_argument(
        "--seed", required=True, help="the seed alignments both started from, or 'empty'"
    )
    p.add_argument("--seed-from", choices=list(FORMATS), help="format of SEED (default: as --from)")
    p.add_argument("--samples", type=int, default=1000, help="Monte Carlo samples J (default 1000)")
    p.add_argument("--rng-seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--level", choices=("phrase", "word"), default="phrase")
    p.add_argument(
        "--bin-width", type=int, default=5, help="length-bin width in tokens (default 5)"
    )
    p.add_argument(
        "--include-identical", action="store_true", help="also count identical words and phrases"
    )
    add_input_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from alignment_core.agreement.phrase import score_alignments

    if args.samples < 1 or args.bin_width < 1:
        print("error: --samples and --bin-width must be at least 1", file=sys.stderr)
        return 2
    extra = []
    if args.seed != EMPTY_SEED:
        (seed_pairs,) = read_alignment_files([args.seed], args, fmt=args.seed_from)
        extra = [(args.seed, seed_pairs)]
    matching = read_matched([args.a, args.b], args, extra=extra)
    pairs = matching.pairs
    if not pairs:
        print("error: no pair could be matched between the files", file=sys.stderr)
        return 1
    k = _kappa(args, pairs, with_seed=bool(extra)).as_dict()
    word, phrase = score_alignments(
        ((p.source, p.target, p.alignments[0], p.alignments[1]) for p in pairs),
        include_identical=args.include_identical,
    )
    out = {
        "pairs": len(pairs),
        **{key: k[key] for key in _KAPPA_KEYS},
        "kappa_pairs": k["pairs"],
        "skipped_empty": k["skipped_empty"],
        "seed": EMPTY_SEED if not extra else args.seed,
        "edit_models": k["edit_models"],
        "by_subcorpus": k["by_subcorpus"],
        "by_length": k["by_length"],
        "word": word.as_dict(),
        "phrase": phrase.as_dict(),
    }
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        _print_tables(args, out, k)
    return 0


# the κ_C figures the JSON output carries under their own names, in this order
_KAPPA_KEYS = (
    "theta", "theta0", "kappa_c", "stderr", "samples", "rng_seed", "level", "reason",
    "theta0_stderr",
)  # fmt: skip


def _kappa(args: argparse.Namespace, pairs, with_seed: bool):
    """κ_C of A against B on the matched pairs (the seed, when given, is their third file)."""
    from alignment_core.agreement.kappa_c import KappaPair, kappa_c
    from alignment_core.alignment import Alignment

    empty = Alignment()
    bar = ProgressBar(sys.stderr, enabled=sys.stderr.isatty())
    result = kappa_c(
        (
            KappaPair(
                p.source,
                p.target,
                p.alignments[2] if with_seed else empty,
                p.alignments[0],
                p.alignments[1],
                p.subcorpus,
                p.id,
            )
            for p in pairs
        ),
        level=args.level,
        samples=args.samples,
        rng_seed=args.rng_seed,
        include_identical=args.include_identical,
        bin_width=args.bin_width,
        progress=bar,
    )
    bar.close()
    return result


def _print_tables(args: argparse.Namespace, out: dict, k: dict) -> None:
    print(f"pairs: {out['pairs']} matched, {out['kappa_pairs']} with units at {args.level} level")
    print(
        f"J = {out['samples']} samples, rng seed {out['rng_seed']}, seed alignment: {out['seed']}"
    )
    rows = [("all", k)] + [(name, s) for name, s in k["by_subcorpus"].items()]
    rows += [(f"len {b['min_length']}-{b['max_length']}", b) for b in k["by_length"]]
    print(f"{'group':<14}{'pairs':>7}{'theta':>9}{'theta0':>9}{'kappa_C':>9}{'stderr':>9}  note")
    for name, s in rows:
        figures = "".join(f"{show(s[c], percent=False):>9}" for c in ("theta", "theta0", "kappa_c"))
        se = "–" if s["stderr"] is None else f"{s['stderr']:.4f}"
        print(f"{name or '(none)':<14}{s['pairs']:>7}{figures}{se:>9}  {s['reason'] or ''}")
    print("\nA against B:")
    print("\n".join(scores_table(out["word"], out["phrase"])))
