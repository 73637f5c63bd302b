"""What a seed job says of its model (the run's config and the job's result): the outside
resources it read, the built-in English model's part, and its cross-validated figures. Shared
by seeding in one task (``services``) and in chunks (``chunked_steps``)."""

from __future__ import annotations

from typing import Any


def model_evidence(model: Any, not_english: str | None) -> dict[str, Any]:
    """What a seed model reads (each outside resource's name, "off" or missing) and what the
    job says of the built-in English model (its version and weight, or why it was not used):
    the run's config and the job's result hold them."""
    from alignment_core.aligner.seed_resources import EVIDENCE_KEYS

    evidence = {key: model.info.get(key) for key in EVIDENCE_KEYS}
    evidence.update(_builtin_notes(model, not_english))
    return evidence


def _builtin_notes(model: Any, not_english: str | None) -> dict[str, Any]:
    """What the job result says of the built-in model: its version and weight when it seeded
    or pooled, else why it was not used."""
    if model.info.get("builtin_version"):
        notes = {
            "builtin_version": model.info["builtin_version"],
            "builtin_weight": model.info.get("builtin_weight"),
        }
        if model.info.get("builtin_weight_rule"):  # pooled: how its weight was chosen
            notes["builtin_weight_rule"] = model.info["builtin_weight_rule"]
        return notes
    why = not_english or model.info.get("builtin_not_used")
    return {"builtin_not_used": why} if why else {}


def model_figures(model: Any) -> dict[str, Any]:
    """A seed model's figures for the job's result (JSON-able)."""
    return {
        # cross-validated on the project's gold: the supervised model and, on the same pairs,
        # the HMM's intersection (edits/pair = |seed Δ gold| over sure+possible links)
        "cv": _json_figures(model.info.get("cv")),
        "cv_hmm": _json_figures(model.info.get("cv_hmm")),
        "threshold": model.info.get("threshold"),
        # the pairs the model did not learn from (no gold, or trial) whose first-round links
        # then counted as gold for the gold HMM and the gold's word-pair rates, and how many
        # links that was
        "pseudo_gold_pairs": model.info.get("pseudo_gold_pairs"),
        "pseudo_gold_links": model.info.get("pseudo_gold_links"),
    }


def _json_figures(figures: dict[str, Any] | None) -> dict[str, float | None] | None:
    if figures is None:
        return None
    return {k: None if v is None else round(float(v), 4) for k, v in figures.items()}
