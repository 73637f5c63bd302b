"""A stored agreement report (``build_report``'s JSON) laid out as the dashboard's tables and
chart data. Nothing is computed here: cells are the report's own figures, formatted for the
page (percent with one decimal, κ with three, as in the paper) or given raw to the CSV."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PCT, KAPPA, INT, TEXT, NUM = "pct", "kappa", "int", "text", "num"
DASH = "–"

SCORE_COLUMNS = [
    ("precision_possible", "P poss", PCT),
    ("precision_sure", "P sure", PCT),
    ("recall_possible", "R poss", PCT),
    ("recall_sure", "R sure", PCT),
    ("f1", "F1", PCT),
    ("kappa_c", "κ_C", KAPPA),
]


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    kind: str = TEXT


@dataclass
class Table:
    slug: str  # the ``table=`` of its CSV download
    title: str
    columns: list[Column]
    rows: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""

    def display_rows(self) -> list[list[dict[str, str]]]:
        """Each row as cells ``{"text", "kind", "title"}`` (title: why a cell is empty)."""
        out = []
        for row in self.rows:
            cells = []
            for c in self.columns:
                value = row.get(c.key)
                title = ""
                if c.key == "kappa_c" and value is None:
                    title = row.get("kappa_c_reason") or ""
                cells.append({"text": format_value(value, c.kind), "kind": c.kind, "title": title})
            out.append(cells)
        return out

    def csv_rows(self) -> list[list[Any]]:
        """Header then rows of raw values (fractions, not percent; empty for undefined)."""
        rows: list[list[Any]] = [[c.label for c in self.columns]]
        for row in self.rows:
            rows.append(["" if row.get(c.key) is None else row.get(c.key) for c in self.columns])
        return rows


def format_value(value: Any, kind: str) -> str:
    if value is None:
        return DASH
    if kind == PCT:
        return f"{100 * value:.1f}"
    if kind == KAPPA:
        return f"{value:.3f}"
    if kind == NUM:
        return f"{value:.4g}"
    return str(value) if value != "" else "(none)"


def _score_table(slug: str, title: str, rows: list[dict], lead: list[Column], note: str) -> Table:
    columns = [*lead, Column("pairs", "Pairs", INT)]
    columns += [Column(key, label, kind) for key, label, kind in SCORE_COLUMNS]
    return Table(slug, title, columns, rows, note)


# θ̂, θ̂₀, κ_C and its standard error: the κ_C table and the by-length table (Figure 4)
KAPPA_COLUMNS = [
    Column("theta", "θ̂", KAPPA),
    Column("theta0", "θ̂₀", KAPPA),
    Column("kappa_c", "κ_C", KAPPA),
    Column("stderr", "Std. error", NUM),
]
LEVEL = Column("level", "Level")


def overall(section: dict, level: str) -> dict:
    """The "all" row (the last) of a section's ``level`` table, or {} when it has none."""
    return (section.get(level) or [{}])[-1]


def _per_level(by_level: dict, row: Any) -> list[dict]:
    """Rows of every level in level order, each with its ``level``; ``row(level, value)``
    gives the rows of one level's value."""
    return [{"level": level, **r} for level, value in sorted(by_level.items()) for r in row(value)]


def report_tables(result: dict) -> dict[str, Table]:
    """Every table of the dashboard, by slug, in the dashboard's order."""
    agreement = result.get("agreement", {})
    tables = [
        *_score_tables(result),
        _pairwise_table(result),
        _classic_table(result),
        _kappa_table(agreement),
        _by_length_table(agreement),
        _edit_rates_table(agreement),
    ]
    return {table.slug: table for table in tables}


SEED_NOTE = (
    "The seed is the test side and the annotator the reference, as in the paper; only "
    "pairs with a seed count (Seed with aligner on the project page makes them)."
)


def _score_tables(result: dict) -> list[Table]:
    """Tables 3 and 4 (A against B, word and phrase level) and Table 5 (the seed against each
    annotator, both levels)."""
    agreement = result.get("agreement", {})
    sub = [Column("subcorpus", "Subcorpus")]
    who = [Column("annotator", "Annotator"), *sub]
    tables = [
        _score_table(
            "word",
            "Table 3: word-level agreement, A against B",
            agreement.get("word", []),
            sub,
            "Precision, recall and F1 in percent over non-identical links; κ_C over pairs with "
            "a seed.",
        ),
        _score_table(
            "phrase",
            "Table 4: phrase-level agreement, A against B",
            agreement.get("phrase", []),
            sub,
            "Atomic phrase pairs against consistent ones.",
        ),
    ]
    for level in ("word", "phrase"):
        rows = [
            {"annotator": name, **row}
            for name, section in sorted(result.get("against_seed", {}).items())
            for row in section.get(level, [])
        ]
        title = f"Table 5 ({level} level): the aligner's seed against each annotator"
        tables.append(_score_table(f"seed-{level}", title, rows, who, SEED_NOTE))
    return tables


def _pairwise_table(result: dict) -> Table:
    rows = [
        {
            "test": p["test"],
            "reference": p["reference"],
            "pairs": p["pairs"],
            "word_precision": overall(p, "word").get("precision_sure"),
            "word_recall": overall(p, "word").get("recall_sure"),
            "word_f1": overall(p, "word").get("f1"),
            "phrase_f1": overall(p, "phrase").get("f1"),
            "cohen": p.get("cohen_kappa_cells"),
        }
        for p in result.get("pairwise", [])
    ]
    return Table(
        "pairwise",
        "Every pair of annotators",
        [
            Column("test", "A (test)"),
            Column("reference", "B (reference)"),
            Column("pairs", "Shared pairs", INT),
            Column("word_precision", "Word P sure", PCT),
            Column("word_recall", "Word R sure", PCT),
            Column("word_f1", "Word F1", PCT),
            Column("phrase_f1", "Phrase F1", PCT),
            Column("cohen", "Cohen's κ", KAPPA),
        ],
        rows,
        "Over the pairs both annotated; Cohen's κ over all cells, labels sure/possible/none.",
    )


def _classic_table(result: dict) -> Table:
    return Table(
        "classic",
        "Classic coefficients",
        [
            Column("name", "Coefficient"),
            Column("value", "Value", KAPPA),
            Column("items", "Over", TEXT),
            Column("note", "Applies", TEXT),
        ],
        classic_rows(result),
    )


def _kappa_table(agreement: dict) -> Table:
    return Table(
        "kappa",
        "κ_C, A against B",
        [
            LEVEL,
            Column("pairs", "Pairs", INT),
            *KAPPA_COLUMNS,
            Column("skipped_empty", "Skipped (no units)", INT),
            Column("samples", "J", INT),
            Column("rng_seed", "Seed", INT),
        ],
        _per_level(agreement.get("kappa_c", {}), lambda k: [k]),
        "κ_C needs the seed the annotators started from: pairs without one are left out.",
    )


def _by_length_table(agreement: dict) -> Table:
    by_length = agreement.get("by_length", {})
    return Table(
        "by-length",
        "θ̂, θ̂₀ and κ_C by length of the shorter sentence",
        [
            LEVEL,
            Column("min_length", "From", INT),
            Column("max_length", "To", INT),
            Column("pairs", "Pairs", INT),
            *KAPPA_COLUMNS,
        ],
        _per_level(
            {level: by_length.get(level, []) for level in agreement.get("kappa_c", {})},
            lambda bins: bins,
        ),
    )


def _edit_rates_table(agreement: dict) -> Table:
    return Table(
        "edit-rates",
        "Edit models of the chance model: p(L) = a + b·L, L = N + M",
        [
            LEVEL,
            Column("annotator", "Annotator"),
            Column("intercept", "a", NUM),
            Column("slope", "b (per token)", NUM),
            Column("pairs", "Fitted on pairs", INT),
        ],
        _per_level(
            agreement.get("edit_rates", {}),
            lambda models: [
                {"annotator": name, **{k: v for k, v in m.items() if k != "points"}}
                for name, m in models.items()
            ],
        ),
    )


def classic_rows(result: dict) -> list[dict]:
    """Cohen's κ (A against B), Fleiss' κ and Krippendorff's α, each with where it applies."""
    multi = result.get("multi_rater", {})
    annotators = len(result.get("annotators", []))
    fleiss_applies = annotators >= 3
    return [
        {
            "name": "Cohen's κ (A against B, cells)",
            "value": result.get("agreement", {}).get("cohen_kappa_cells"),
            "items": f"{result.get('agreement', {}).get('pairs', 0)} doubly annotated pairs",
            "note": "two annotators per pair",
        },
        {
            "name": "Fleiss' κ (link items)",
            "value": multi.get("fleiss_kappa") if fleiss_applies else None,
            "items": f"{multi.get('fleiss_items', 0)} items labelled by everyone",
            "note": "3 or more annotators"
            + ("" if fleiss_applies else f" — this project has {annotators}"),
        },
        {
            "name": "Krippendorff's α (nominal, link items)",
            "value": multi.get("krippendorff_alpha") if annotators >= 2 else None,
            "items": f"{multi.get('alpha_items', 0)} items with two or more labels",
            "note": "2 or more annotators, missing labels allowed",
        },
    ]


def chart_data(result: dict) -> dict:
    """What charts.js draws: Figure 4 series per level, F1 per annotator pair, edit points and
    fitted lines per level and annotator."""
    agreement = result.get("agreement", {})
    return {
        "by_length": agreement.get("by_length", {}),
        "pairwise": [
            {
                "label": f"{p['test']} – {p['reference']}",
                "pairs": p["pairs"],
                "word_f1": overall(p, "word").get("f1"),
                "phrase_f1": overall(p, "phrase").get("f1"),
            }
            for p in result.get("pairwise", [])
        ],
        "edit_rates": agreement.get("edit_rates", {}),
    }
