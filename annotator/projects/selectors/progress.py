"""How far the annotation is (issue 8 §3): per annotator and per subcorpus — assigned, in
progress, submitted, flagged, time spent (the revisions' ``elapsed_seconds``), and each
annotator's edit rate against the seed (|A_P Δ seed| of the final revision over N·M).

Counts cover active assignments (not withdrawn); time spent covers every revision, withdrawn
work included, because that time was spent. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import (
    Case,
    Count,
    F,
    FloatField,
    Func,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Sum,
    When,
)
from django.db.models.functions import Cast

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
    edit_sum: float = 0.0  # of the edit rates of submitted pairs
    edit_count: int = 0

    @property
    def total(self) -> int:
        return self.assigned + self.in_progress + self.submitted

    @property
    def edit_rate(self) -> float | None:
        """Mean over submitted pairs of edits / (N·M); None before the first submission."""
        return self.edit_sum / self.edit_count if self.edit_count else None

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


class JSONLength(Func):
    """The number of items of a JSON array column (PostgreSQL's jsonb, SQLite's JSON text)."""

    function = "json_array_length"
    output_field = IntegerField()

    def as_postgresql(self, compiler, connection, **extra):
        return super().as_sql(compiler, connection, function="jsonb_array_length", **extra)


# Flagged pairs listed on the page at most (newest flags first past that).
FLAGGED_SHOWN = 500
# Submitted assignments whose final revision has no stored edit count (older saves, some
# imports) are counted from their links, this many read at a time.
RECOUNT_CHUNK = 500


def project_progress(*, project: Project) -> ProjectProgress:
    """The counts, time and edit rates per annotator, per subcorpus and in all, as a few
    grouped queries: the rows read grow with the annotators and subcorpora, never with the
    pairs or assignments (a million-pair project reads no more than a small one)."""
    people: dict[str, ProgressRow] = {}
    subs: dict[str, ProgressRow] = {}
    total = ProgressRow(name="All")

    def targets(person: str, trial: bool, sub: str | None) -> tuple[ProgressRow, ...]:
        name = TRIAL if trial else (sub or NO_SUBCORPUS)
        return (people.setdefault(person, ProgressRow(person)),
                subs.setdefault(name, ProgressRow(name)), total)  # fmt: skip

    for g in _status_groups(project):
        for row in targets(g["annotator__username"], g["pair__is_trial"],
                           g["pair__subcorpus__name"]):  # fmt: skip
            if g["withdrawn"]:
                continue
            setattr(row, g["status"], getattr(row, g["status"]) + g["n"])
            row.flagged += g["flagged"]
            row.edit_sum += g["rate_sum"] or 0.0
            row.edit_count += g["rates"]
    for g in _seconds_groups(project):
        for row in targets(g["annotation__assignment__annotator__username"],
                           g["annotation__assignment__pair__is_trial"],
                           g["annotation__assignment__pair__subcorpus__name"]):  # fmt: skip
            # whole seconds per group before any sum: the rows shown (each in whole seconds)
            # then add up to the "All" row, instead of 6 s + 3 s showing "All 10 s"
            row.seconds += round(g["s"] or 0.0)
    for r in _recounted(project):
        for row in targets(r["annotator__username"], False, r["pair__subcorpus__name"]):
            row.edit_sum += r["rate"]
            row.edit_count += 1
    ordered_subs = sorted(subs.values(), key=lambda s: (s.name == TRIAL, s.name))
    ordered_people = sorted(people.values(), key=lambda p: p.name)
    return ProjectProgress(ordered_people, ordered_subs, total, _flagged(project))


def _final_edits() -> Subquery:
    return Subquery(
        AnnotationRevision.objects.filter(annotation=OuterRef("annotation__pk"))
        .exclude(kind=AnnotationRevision.Kind.REOPEN)
        .order_by("-version")
        .values("edits_from_seed")[:1]
    )


def _rated() -> Q:
    """The assignments an edit rate is taken of: submitted, not trial, with a seed."""
    return Q(status=Assignment.Status.SUBMITTED, pair__is_trial=False, seed__isnull=False)


def _status_groups(project: Project) -> list[dict[str, Any]]:
    cells = JSONLength("pair__source_tokens") * JSONLength("pair__target_tokens")
    rate = Case(
        When(_rated() & Q(final_edits__isnull=False),
             then=Cast("final_edits", FloatField()) / Cast(cells, FloatField())),
        output_field=FloatField(),
    )  # fmt: skip
    return list(
        Assignment.objects.filter(pair__project=project)
        .annotate(final_edits=_final_edits(), withdrawn=Q(withdrawn_at__isnull=False))
        .values(
            "annotator__username", "pair__is_trial", "pair__subcorpus__name", "status", "withdrawn"
        )  # fmt: skip
        .annotate(
            n=Count("id"),
            flagged=Count("id", filter=~Q(flag="")),
            rate_sum=Sum(rate),
            rates=Count(rate),
        )
        .order_by()
    )


def _seconds_groups(project: Project) -> list[dict[str, Any]]:
    """Time spent, withdrawn work included (that time was spent)."""
    where = "annotation__assignment__"
    return list(
        AnnotationRevision.objects.filter(**{f"{where}pair__project": project})
        .values(
            f"{where}annotator__username", f"{where}pair__is_trial", f"{where}pair__subcorpus__name"
        )  # fmt: skip
        .annotate(s=Sum("elapsed_seconds"))
        .order_by()
    )


def _recounted(project: Project):
    """Edit rates of rated assignments whose final revision stored no edit count: counted
    from the annotation and its seed, RECOUNT_CHUNK rows a query."""
    rows = (
        Assignment.objects.filter(_rated(), pair__project=project, withdrawn_at__isnull=True)
        .annotate(final_edits=_final_edits())
        .filter(final_edits__isnull=True, annotation__isnull=False)
        .values(
            "annotator__username",
            "pair__subcorpus__name",
            "pair__source_tokens",
            "pair__target_tokens",
            "annotation__links",
            "seed__links",
        )  # fmt: skip
        .order_by("pk")
    )
    for r in rows.iterator(chunk_size=RECOUNT_CHUNK):
        rate = _edit_rate({**r, "final_edits": None})
        if rate is not None:
            yield {**r, "rate": rate}


def _flagged(project: Project) -> list[FlaggedPair]:
    labels = dict(Assignment.Flag.choices)
    rows = (
        Assignment.objects.filter(pair__project=project, withdrawn_at__isnull=True)
        .exclude(flag="")
        .values("id", "status", "flag", "flag_note", "flagged_at", "annotator__username",
                "pair_id", "pair__external_id", "pair__is_trial", "pair__subcorpus__name")
        .order_by(F("flagged_at").desc(nulls_last=True), "-id")[:FLAGGED_SHOWN]
    )  # fmt: skip
    # the pair's own subcorpus (a trial pair is marked, not filed under "trial")
    flagged = [_flagged_pair(r, r["pair__subcorpus__name"] or NO_SUBCORPUS, labels) for r in rows]
    flagged.sort(key=lambda f: (f.flagged_at is None, f.flagged_at))
    return flagged


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
