"""How far the annotation is (issue 8 §3): per annotator and per subcorpus — assigned, in
progress, submitted, flagged, time spent (the revisions' ``elapsed_seconds``), and each
annotator's edit rate against the seed (|A_P Δ seed| of the final revision over N·M).

Counts cover active assignments (not withdrawn); time spent covers every revision, withdrawn
work included, because that time was spent. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import OuterRef, Subquery, Sum

from annotator.links import to_alignment
from annotator.models import Annotation, AnnotationRevision, Assignment, Project

TRIAL = "trial"  # the row that gathers trial pairs in the per-subcorpus table
NO_SUBCORPUS = "(none)"


@dataclass
class ProgressRow:
    name: str
    assigned: int = 0  # not started
    in_progress: int = 0
    submitted: int = 0
    flagged: int = 0
    seconds: float = 0.0
    edit_rates: list[float] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.assigned + self.in_progress + self.submitted

    @property
    def edit_rate(self) -> float | None:
        """Mean over submitted pairs of edits / (N·M); None before the first submission."""
        return sum(self.edit_rates) / len(self.edit_rates) if self.edit_rates else None

    @property
    def done_percent(self) -> int:
        return round(100 * self.submitted / self.total) if self.total else 0


@dataclass
class FlaggedPair:
    assignment_id: int
    pair_id: int
    external_id: str
    subcorpus: str
    annotator: str
    reason: str
    note: str
    flagged_at: datetime | None
    status: str
    trial: bool = False


@dataclass
class ProjectProgress:
    by_annotator: list[ProgressRow]
    by_subcorpus: list[ProgressRow]
    total: ProgressRow
    flagged: list[FlaggedPair]


def project_progress(*, project: Project) -> ProjectProgress:
    final_edits = (
        AnnotationRevision.objects.filter(annotation=OuterRef("annotation__pk"))
        .exclude(kind=AnnotationRevision.Kind.REOPEN)
        .order_by("-version")
        .values("edits_from_seed")[:1]
    )
    rows = list(
        Assignment.objects.filter(pair__project=project)
        .annotate(final_edits=Subquery(final_edits))
        .values(
            "id", "status", "flag", "flag_note", "flagged_at", "withdrawn_at", "seed_id",
            "annotator__username", "pair_id", "pair__external_id", "pair__is_trial",
            "pair__subcorpus__name", "pair__source_tokens", "pair__target_tokens",
            "annotation__links", "seed__links", "final_edits",
        )
        .order_by("annotator__username", "pair__position", "pair_id")
    )  # fmt: skip
    seconds = dict(
        AnnotationRevision.objects.filter(annotation__assignment__pair__project=project)
        .values("annotation__assignment_id")
        .annotate(s=Sum("elapsed_seconds"))
        .values_list("annotation__assignment_id", "s")
    )
    people: dict[str, ProgressRow] = {}
    subs: dict[str, ProgressRow] = {}
    total = ProgressRow(name="All")
    flagged: list[FlaggedPair] = []
    labels = dict(Assignment.Flag.choices)
    for r in rows:
        sub = TRIAL if r["pair__is_trial"] else (r["pair__subcorpus__name"] or NO_SUBCORPUS)
        person = people.setdefault(r["annotator__username"], ProgressRow(r["annotator__username"]))
        targets = (person, subs.setdefault(sub, ProgressRow(sub)), total)
        spent = seconds.get(r["id"]) or 0.0
        for row in targets:
            row.seconds += spent
        if r["withdrawn_at"] is not None:
            continue
        rate = _edit_rate(r) if r["status"] == Assignment.Status.SUBMITTED else None
        for row in targets:
            setattr(row, r["status"], getattr(row, r["status"]) + 1)
            row.flagged += bool(r["flag"])
            if rate is not None and not r["pair__is_trial"]:
                row.edit_rates.append(rate)
        if r["flag"]:
            # the pair's own subcorpus (a trial pair is marked, not filed under "trial")
            own = r["pair__subcorpus__name"] or NO_SUBCORPUS
            flagged.append(_flagged_pair(r, own, labels))
    flagged.sort(key=lambda f: (f.flagged_at is None, f.flagged_at), reverse=False)
    ordered_subs = sorted(subs.values(), key=lambda s: (s.name == TRIAL, s.name))
    return ProjectProgress(list(people.values()), ordered_subs, total, flagged)


def _flagged_pair(r: dict[str, Any], sub: str, labels: dict[str, str]) -> FlaggedPair:
    return FlaggedPair(
        assignment_id=r["id"],
        pair_id=r["pair_id"],
        external_id=r["pair__external_id"],
        subcorpus=sub,
        annotator=r["annotator__username"],
        reason=labels.get(r["flag"], r["flag"]),
        note=r["flag_note"],
        flagged_at=r["flagged_at"],
        status=r["status"],
        trial=bool(r["pair__is_trial"]),
    )


def _edit_rate(r: dict[str, Any]) -> float | None:
    """|A_P Δ seed| / (N·M) for a submitted assignment: the final revision's stored count, or
    (revisions written without one) counted from the annotation and its seed."""
    cells = len(r["pair__source_tokens"]) * len(r["pair__target_tokens"])
    if not cells or r["seed__links"] is None:
        return None  # no seed to edit: a rate against nothing would mislead
    edits = r["final_edits"]
    if edits is None:
        if r["annotation__links"] is None:
            return None
        mine = {(i, j) for i, j, _ in to_alignment(r["annotation__links"]).to_links()}
        seed = {(i, j) for i, j, _ in to_alignment(r["seed__links"] or []).to_links()}
        edits = len(mine ^ seed)
    return edits / cells


def assignments_of(*, project: Project, annotator_username: str | None = None) -> Any:
    """Assignments (withdrawn ones too) for the lead's work list, newest plan first."""
    qs = Assignment.objects.filter(pair__project=project).select_related(
        "pair", "pair__subcorpus", "annotator"
    )
    if annotator_username:
        qs = qs.filter(annotator__username=annotator_username)
    return qs.order_by("annotator__username", "pair__position", "pair_id")


def annotation_of(*, assignment: Assignment) -> Annotation | None:
    return Annotation.objects.filter(assignment=assignment).first()
