"""Reads behind the agreement dashboard: what a report is computed from, the latest stored
report of a project, and whether it is stale.

What counts (the spec is silent; chosen here): an annotator's *final* annotation is the current
Annotation of a SUBMITTED assignment that was not withdrawn; trial pairs are left out unless
``include_trial``. On a pair, annotators are ordered by ``Assignment.slot`` (1, 2, then none)
and then by assignment id, so the first two — a report's A and B — never depend on query order.
The seed of a pair is the one its annotators started from (``Assignment.seed`` of the first
assignment that has one), else the pair's latest seed.

The fingerprint hashes what identifies the inputs without reading links or tokens: pair ids,
assignment ids, annotators, annotation ids with their versions (a version increases on every
save, so (id, version) names the links), seed ids (seeds are never edited) and the report's
parameters. Checking a stored report for staleness is therefore one light query per table.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import F, Max, QuerySet

from annotator.links import to_alignment
from annotator.models import (
    AgreementReport,
    AnnotationRevision,
    Assignment,
    Project,
    SeedAlignment,
    SentencePair,
)

if TYPE_CHECKING:  # the report module loads numba; a web process imports this module idle
    from alignment_core.agreement.report import PairAnnotations

NO_SUBCORPUS = ""


@dataclass(frozen=True)
class InputRow:
    """One final annotation as the fingerprint sees it (no links)."""

    pair_id: int
    assignment_id: int
    slot: int | None
    annotator: str
    annotation_id: int
    version: int
    seed_id: int | None


@dataclass
class InputKeys:
    """The identity of a report's inputs: rows per pair in A/B order, the seed of each pair."""

    rows: dict[int, list[InputRow]] = field(default_factory=dict)
    seeds: dict[int, int | None] = field(default_factory=dict)
    latest_revision_at: datetime | None = None

    @property
    def annotations(self) -> int:
        return sum(len(r) for r in self.rows.values())

    @property
    def doubly_annotated(self) -> int:
        return sum(1 for r in self.rows.values() if len(r) >= 2)


def final_assignments(*, project: Project, include_trial: bool = False) -> QuerySet[Assignment]:
    """Submitted, not withdrawn assignments of the project that hold an annotation."""
    qs = Assignment.objects.filter(
        pair__project=project,
        status=Assignment.Status.SUBMITTED,
        withdrawn_at__isnull=True,
        annotation__isnull=False,
    )
    return qs if include_trial else qs.filter(pair__is_trial=False)


def ab_order(qs: QuerySet[Assignment]) -> QuerySet[Assignment]:
    """Assignments in A/B order: per pair, slot 1, slot 2, then no slot, then by id."""
    return qs.order_by("pair_id", F("slot").asc(nulls_last=True), "id")


def input_keys(*, project: Project, include_trial: bool = False) -> InputKeys:
    """The light identity of the inputs (three queries, no links, no tokens)."""
    keys = InputKeys()
    qs = ab_order(final_assignments(project=project, include_trial=include_trial))
    for values in qs.values_list(
        "pair_id",
        "id",
        "slot",
        "annotator__username",
        "annotation__id",
        "annotation__version",
        "seed_id",
    ):
        row = InputRow(*values)
        keys.rows.setdefault(row.pair_id, []).append(row)
    for pair_id, rows in keys.rows.items():
        keys.seeds[pair_id] = next((r.seed_id for r in rows if r.seed_id is not None), None)
    unseeded = [pid for pid, seed in keys.seeds.items() if seed is None]
    if unseeded:
        latest = (
            SeedAlignment.objects.filter(pair_id__in=unseeded)
            .order_by("pair_id", "-created_at", "-id")
            .values_list("pair_id", "id")
        )
        for pair_id, seed_id in latest:
            if keys.seeds[pair_id] is None:
                keys.seeds[pair_id] = seed_id
    annotation_ids = [r.annotation_id for rows in keys.rows.values() for r in rows]
    keys.latest_revision_at = AnnotationRevision.objects.filter(
        annotation_id__in=annotation_ids
    ).aggregate(latest=Max("created_at"))["latest"]
    return keys


def fingerprint(*, keys: InputKeys, params: dict[str, Any]) -> str:
    """SHA-256 (hex) of the inputs' identity and the report's parameters."""
    body = {
        "params": params,
        "pairs": [
            [
                pair_id,
                keys.seeds.get(pair_id),
                [[r.assignment_id, r.annotator, r.annotation_id, r.version] for r in rows],
            ]
            for pair_id, rows in sorted(keys.rows.items())
        ],
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def pair_annotations(*, keys: InputKeys) -> list[PairAnnotations]:
    """One PairAnnotations per pair of ``keys`` (in pair id order), annotations in A/B order,
    named by username. Reads tokens, links and seeds in three queries."""
    pair_ids = sorted(keys.rows)
    pairs = {
        p["id"]: p
        for p in SentencePair.objects.filter(pk__in=pair_ids).values(
            "id", "external_id", "subcorpus__name", "source_tokens", "target_tokens"
        )
    }
    wanted = [r.assignment_id for pid in pair_ids for r in keys.rows[pid]]
    links = dict(Assignment.objects.filter(pk__in=wanted).values_list("id", "annotation__links"))
    from alignment_core.agreement.report import PairAnnotations  # numba: when first used

    seed_ids = [s for s in keys.seeds.values() if s is not None]
    seeds = dict(SeedAlignment.objects.filter(pk__in=seed_ids).values_list("id", "links"))
    records = []
    for pid in pair_ids:
        p = pairs[pid]
        seed_id = keys.seeds.get(pid)
        records.append(
            PairAnnotations(
                pair_id=str(pid),
                subcorpus=p["subcorpus__name"] or NO_SUBCORPUS,
                source=p["source_tokens"],
                target=p["target_tokens"],
                seed=None if seed_id is None else to_alignment(seeds[seed_id]),
                annotations={
                    r.annotator: to_alignment(links[r.assignment_id]) for r in keys.rows[pid]
                },
            )
        )
    return records


# -- stored reports ---------------------------------------------------------------------------


def latest_report(*, project: Project) -> AgreementReport | None:
    """The project's newest stored report, or None."""
    return AgreementReport.objects.filter(project=project).order_by("-created_at", "-id").first()


@dataclass(frozen=True)
class Freshness:
    stale: bool
    reasons: list[str]


def report_freshness(*, report: AgreementReport) -> Freshness:
    """Whether ``report`` still describes the project's data, and if not, why (in words)."""
    params = report.params or {}
    keys = input_keys(project=report.project, include_trial=bool(params.get("include_trial")))
    if fingerprint(keys=keys, params=params) == report.fingerprint:
        return Freshness(False, [])
    inputs = (report.result or {}).get("inputs", {})
    reasons = []
    then, now = inputs.get("annotations"), keys.annotations
    if then is not None and then != now:
        reasons.append(f"{now} submitted annotations now, {then} when it was computed")
    latest = keys.latest_revision_at
    if latest is not None and (
        report.latest_revision_at is None or latest > report.latest_revision_at
    ):
        reasons.append(f"annotations saved since (latest {latest:%Y-%m-%d %H:%M:%S} UTC)")
    if not reasons:
        reasons.append("assignments or seeds changed since it was computed")
    return Freshness(True, reasons)
