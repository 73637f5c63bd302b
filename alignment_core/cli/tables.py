"""The plain-text figures the agreement commands (score, agree, fleiss) print."""

from __future__ import annotations


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
