"""The agreement report of a corpus: the paper's Tables 3, 4 and 5, length series, pairwise and
multi-rater figures, as plain JSON-ready data (dicts, lists, str, int, float, None).

Input is one :class:`PairAnnotations` per sentence pair — what a Django service can build from
database rows (pair id, subcorpus, tokens, the stored seed alignment and each annotator's final
alignment). Nothing here touches a database.

Conventions (the spec is silent on these; chosen to follow the paper):

* **Tables 3 / 4** (word / phrase level) use the doubly annotated pairs: those with two or more
  annotations, of which the first two in the record's ``annotations`` order play A (test) and B
  (reference); so put them in a stable order (e.g. by assignment). Rows: each subcorpus (sorted)
  then ``"all"``; columns precision (poss, sure), recall (poss, sure), F1, κ_C. κ_C needs the seed,
  so it is computed over the pairs that have one (``kappa_c_pairs``).
* **Table 5** (human against aligner): for each annotator, every pair they annotated that has a
  seed, with the *seed as the test side and the annotator as the reference* — as in the paper,
  where the aligner's precision is reported against the human. κ_C there uses the seed as the
  second "annotator": its edit rate is 0, so its chance samples are the seed itself.
* **Pairwise**: every pair of annotators (names sorted; the first is the test side) over the pairs
  both annotated, with Cohen's κ over cells.
* **Multi-rater**: Fleiss' κ and Krippendorff's α over link items of all annotators (``classic``).
* 0/0 and undefined κ are None; a reason accompanies an undefined κ_C.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations

from alignment_core.agreement.batch import WORD_COLUMNS, count_pairs
from alignment_core.agreement.classic import cohen_kappa_cells, multi_rater_agreement
from alignment_core.agreement.kappa_c import KappaPair, KappaResult, kappa_c
from alignment_core.agreement.phrase import phrase_scores_from_rows
from alignment_core.agreement.word import word_scores_from_rows
from alignment_core.alignment import Alignment
from alignment_core.progress import Progress, part, silent

ALL = "all"
SEED = "seed"
NOT_COMPUTED = "not computed"
TABLE_COLUMNS = (
    "precision_possible",
    "precision_sure",
    "recall_possible",
    "recall_sure",
    "f1",
    "kappa_c",
)


@dataclass(frozen=True)
class PairAnnotations:
    """One sentence pair and everything annotated on it (0-based links)."""

    pair_id: str
    subcorpus: str
    source: Sequence[str]
    target: Sequence[str]
    seed: Alignment | None
    annotations: Mapping[str, Alignment] = field(default_factory=dict)


@dataclass(frozen=True)
class _Comparison:
    """Test/reference alignments of a set of pairs, with who plays each side."""

    records: list[PairAnnotations]
    test: list[Alignment]
    reference: list[Alignment]
    test_names: list[str]
    reference_names: list[str]


class _Steps:
    """The report's work as equal steps (a section's tables, each κ_C), each step a share of
    the caller's progress; a κ_C reports inside its own share."""

    def __init__(self, progress: Progress, total: int) -> None:
        self.progress, self.total, self.done = progress, max(total, 1), 0

    def next(self, message: str | None = None) -> Progress:
        """Begin the next step (saying ``message``, if any); returns the step's own Progress."""
        start = self.done / self.total
        self.done += 1
        if message is not None:
            self.progress(start, message)
        return part(self.progress, start, self.done / self.total)


def _kappa_pairs(c: _Comparison) -> list[KappaPair]:
    return [
        KappaPair(r.source, r.target, r.seed, a, b, r.subcorpus, r.pair_id, na, nb)
        for r, a, b, na, nb in zip(
            c.records, c.test, c.reference, c.test_names, c.reference_names, strict=True
        )
        if r.seed is not None
    ]


def _tables(
    c: _Comparison, settings: dict, steps: _Steps, *, with_kappa: bool = True
) -> tuple[dict, dict[str, KappaResult]]:
    """Word and phrase tables (rows by subcorpus + all) and the κ_C results behind them (none
    when not ``with_kappa``: κ_C is then None with the reason ``NOT_COMPUTED``)."""
    rows = count_pairs(
        (
            (r.source, r.target, a, b)
            for r, a, b in zip(c.records, c.test, c.reference, strict=True)
        ),
        include_identical=settings["include_identical"],
    )
    nw = len(WORD_COLUMNS)
    kappas: dict[str, KappaResult] = {}
    tables: dict[str, list[dict]] = {}
    subcorpora = sorted({r.subcorpus for r in c.records})
    groups = [(s, [k for k, r in enumerate(c.records) if r.subcorpus == s]) for s in subcorpora]
    groups.append((ALL, list(range(len(c.records)))))
    for level in ("word", "phrase"):
        if with_kappa:
            kappas[level] = kappa_c(
                _kappa_pairs(c),
                level=level,
                samples=settings["samples"],
                rng_seed=settings["rng_seed"],
                include_identical=settings["include_identical"],
                bin_width=settings["bin_width"],
                progress=steps.next(),
            )
        table = []
        for name, idx in groups:
            if level == "word":
                scores = word_scores_from_rows(rows[idx, :nw]).as_dict()
            else:
                scores = phrase_scores_from_rows(rows[idx, nw:]).as_dict()
            k = None
            if with_kappa:
                result = kappas[level]
                k = result.overall if name == ALL else result.by_subcorpus.get(name)
            row: dict = {"subcorpus": name, "pairs": len(idx)}
            row.update({col: scores.get(col) for col in TABLE_COLUMNS if col != "kappa_c"})
            row["kappa_c"] = None if k is None else k.kappa_c
            row["kappa_c_pairs"] = 0 if k is None else k.pairs
            row["kappa_c_reason"] = (
                NOT_COMPUTED if not with_kappa else "no seed" if k is None else k.reason
            )
            table.append(row)
        tables[level] = table
    return tables, kappas


def _edit_rates(kappas: dict[str, KappaResult]) -> dict:
    """Per level and annotator: the edit model κ_C's chance samples use and the points it was
    fitted on, ``[[L = N + M, edit rate], ...]`` (the data of an edit-rate-by-length plot)."""
    return {
        level: {
            who: {
                **asdict(model),
                "points": [
                    [length, rate]
                    for length, rate in zip(*k.edit_observations.get(who, ([], [])), strict=True)
                ],
            }
            for who, model in sorted(k.edit_models.items())
        }
        for level, k in kappas.items()
    }


def _summary(
    c: _Comparison,
    settings: dict,
    steps: _Steps,
    *,
    with_kappa: bool = True,
    edit_points: bool = False,
) -> dict:
    tables, kappas = _tables(c, settings, steps, with_kappa=with_kappa)
    extra = {"edit_rates": _edit_rates(kappas)} if edit_points else {}
    return {
        "pairs": len(c.records),
        "word": tables["word"],
        "phrase": tables["phrase"],
        "kappa_c": {level: k.as_dict() for level, k in kappas.items()},
        "by_length": {
            level: [
                {
                    "min_length": lo,
                    "max_length": hi,
                    "pairs": s.pairs,
                    "theta": s.theta,
                    "theta0": s.theta0,
                    "kappa_c": s.kappa_c,
                    "stderr": s.stderr,
                }
                for lo, hi, s in k.by_length
            ]
            for level, k in kappas.items()
        },
        "cohen_kappa_cells": cohen_kappa_cells(
            (len(r.source), len(r.target), a, b)
            for r, a, b in zip(c.records, c.test, c.reference, strict=True)
        ),
        **extra,
    }


def build_report(
    records: Iterable[PairAnnotations],
    *,
    samples: int = 1000,
    rng_seed: int = 0,
    include_identical: bool = False,
    bin_width: int = 5,
    pairwise: bool = True,
    pairwise_kappa_c: bool = True,
    progress: Progress | None = None,
) -> dict:
    """The full agreement report (module doc); ``samples`` = J for every κ_C, each κ_C drawn
    from its own Generator seeded with ``rng_seed``. ``progress(fraction, message)`` is called
    at each step and within each κ_C, ending at 1.0.

    ``pairwise_kappa_c=False`` leaves κ_C out of the pairwise section (its P/R/F1 and Cohen's κ
    stay): every doubly annotated pair is in Tables 3/4 already, so this halves the Monte Carlo
    work of a two-annotator project. ``agreement["edit_rates"]`` holds each annotator's edit
    model and the points it was fitted on, per level."""
    records = list(records)
    settings = {
        "samples": samples,
        "rng_seed": rng_seed,
        "include_identical": include_identical,
        "bin_width": bin_width,
    }
    annotators = sorted({name for r in records for name in r.annotations})
    report: dict = {"pairs": len(records), "annotators": annotators, "settings": settings}
    # one step per section and per κ_C (two levels): Tables 3/4, Table 5 per annotator, the
    # pairwise comparisons, then the multi-rater figures
    pairs_of_annotators = len(list(combinations(annotators, 2))) if pairwise else 0
    steps = _Steps(
        progress or silent,
        3 + 3 * len(annotators) + (3 if pairwise_kappa_c else 1) * pairs_of_annotators + 1,
    )
    say = steps.next

    doubly = [r for r in records if len(r.annotations) >= 2]
    firsts = [list(r.annotations.items())[:2] for r in doubly]
    both = _Comparison(
        doubly,
        [f[0][1] for f in firsts],
        [f[1][1] for f in firsts],
        [f[0][0] for f in firsts],
        [f[1][0] for f in firsts],
    )
    say(f"Tables 3 and 4: {len(doubly)} doubly annotated pairs")
    report["agreement"] = _summary(both, settings, steps, edit_points=True)
    report["against_seed"] = _against_seed(records, annotators, settings, steps)
    report["pairwise"] = (
        _pairwise(records, annotators, settings, steps, pairwise_kappa_c) if pairwise else []
    )
    say(f"multi-rater agreement of {len(annotators)} annotators")
    report["multi_rater"] = _multi_rater(records, annotators)
    steps.progress(1.0, "agreement report done")
    return report


def _multi_rater(records, annotators) -> dict:
    """Fleiss' κ and Krippendorff's α over every annotator, with the items each counted."""
    multi = multi_rater_agreement((r.annotations for r in records), annotators)
    return {**multi.as_dict(), "fleiss_items": multi.fleiss_items, "alpha_items": multi.alpha_items}


def _against_seed(records, annotators, settings, steps) -> dict:
    """Table 5: the seed against each annotator, on the pairs they annotated that have one."""
    out = {}
    for name in annotators:
        mine = [r for r in records if name in r.annotations and r.seed is not None]
        steps.next(f"Table 5: seed against {name} on {len(mine)} pairs")
        c = _Comparison(
            mine,
            [r.seed for r in mine],  # type: ignore[misc]  # filtered above
            [r.annotations[name] for r in mine],
            [SEED] * len(mine),
            [name] * len(mine),
        )
        out[name] = {"test": SEED, "reference": name, **_summary(c, settings, steps)}
    return out


def _pairwise(records, annotators, settings, steps, with_kappa: bool) -> list[dict]:
    """Every pair of annotators on the pairs both annotated (κ_C only ``with_kappa``)."""
    out = []
    for a, b in combinations(annotators, 2):
        shared = [r for r in records if a in r.annotations and b in r.annotations]
        steps.next(f"pairwise: {a} against {b} on {len(shared)} pairs")
        c = _Comparison(
            shared,
            [r.annotations[a] for r in shared],
            [r.annotations[b] for r in shared],
            [a] * len(shared),
            [b] * len(shared),
        )
        summary = _summary(c, settings, steps, with_kappa=with_kappa)
        out.append({"test": a, "reference": b, **summary})
    return out


def table_lines(rows: list[dict], title: str) -> list[str]:
    """A plain-text rendering of one table: P/R/F1 as percentages with one decimal, κ_C as a
    fraction with three; "–" where undefined."""
    heads = ("P poss", "P sure", "R poss", "R sure", "F1", "kappa_C")
    head = f"{title:<12}{'pairs':>7}" + "".join(f"{h:>9}" for h in heads)
    lines = [head, "-" * len(head)]
    for row in rows:
        cells = []
        for col in TABLE_COLUMNS:
            v = row.get(col)
            text = "–" if v is None else f"{v:.3f}" if col == "kappa_c" else f"{100 * v:.1f}"
            cells.append(f"{text:>9}")
        lines.append(f"{row['subcorpus'] or '(none)':<12}{row['pairs']:>7}" + "".join(cells))
    return lines
