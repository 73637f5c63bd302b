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

from django.contrib.auth import get_user_model
from django.db.models import (
    Count,
    F,
    FloatField,
    Q,
    Sum,
)
from django.db.models.functions import Cast

from annotator.links import to_alignment
from annotator.models import Annotation, Assignment, Project

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
    # each annotator's assignments, withdrawn ones too: (id, username, count), username order
    # (the work list's counts: ``assignments_of(..., counts=...)`` then reads no more)
    work_counts: list[tuple[int, str, int]] = field(default_factory=list)


# Flagged pairs listed on the page at most (newest flags first past that).
FLAGGED_SHOWN = 500
# Submitted assignments whose final revision has no stored edit count (older saves, some
# imports) are counted from their links, this many read at a time.
RECOUNT_CHUNK = 500


def project_progress(*, project: Project) -> ProjectProgress:
    """The counts, time and edit rates per annotator, per subcorpus and in all, from one
    grouped query over the assignments and the figures kept for their annotations
    (``AnnotationFigures``): the rows read grow with the assignments, never with the
    revisions, and no token list is read (a pair's ``cells`` is a column)."""
    people: dict[str, ProgressRow] = {}
    subs: dict[str, ProgressRow] = {}
    total = ProgressRow(name="All")

    def targets(person: str, trial: bool, sub: str | None) -> tuple[ProgressRow, ...]:
        name = TRIAL if trial else (sub or NO_SUBCORPUS)
        return (people.setdefault(person, ProgressRow(person)),
                subs.setdefault(name, ProgressRow(name)), total)  # fmt: skip

    groups = _groups(project)
    users = get_user_model().objects.filter(pk__in={g["annotator_id"] for g in groups})
    usernames = dict(users.values_list("pk", "username"))
    sub_names = dict(project.subcorpora.values_list("pk", "name"))
    seconds: dict[tuple[str, bool, str | None], float] = {}
    work: dict[int, int] = {}
    to_recount = 0
    for g in groups:
        work[g["annotator_id"]] = work.get(g["annotator_id"], 0) + g["n"]
        key = (usernames[g["annotator_id"]], g["pair__is_trial"],
               sub_names.get(g["pair__subcorpus_id"]))  # fmt: skip
        if g["timed"]:  # time spent counts withdrawn work too: that time was spent
            seconds[key] = seconds.get(key, 0.0) + (g["seconds"] or 0.0)
        if g["withdrawn"]:
            continue
        for row in targets(*key):
            setattr(row, g["status"], getattr(row, g["status"]) + g["n"])
            row.flagged += g["flagged"]
            row.edit_sum += g["rate_sum"] or 0.0
            row.edit_count += g["rates"]
        to_recount += g["to_recount"]
    for key, spent in seconds.items():
        for row in targets(*key):
            # whole seconds per group before any sum: the rows shown (each in whole seconds)
            # then add up to the "All" row, instead of 6 s + 3 s showing "All 10 s"
            row.seconds += round(spent)
    for r in _recounted(project) if to_recount else ():
        for row in targets(r["annotator__username"], False, r["pair__subcorpus__name"]):
            row.edit_sum += r["rate"]
            row.edit_count += 1
    ordered_subs = sorted(subs.values(), key=lambda s: (s.name == TRIAL, s.name))
    ordered_people = sorted(people.values(), key=lambda p: p.name)
    counts = sorted(((pk, usernames[pk], n) for pk, n in work.items()), key=lambda c: c[1])
    return ProjectProgress(ordered_people, ordered_subs, total, _flagged(project), counts)


FINAL_EDITS = "annotation__figures__final_edits"


def _rated() -> Q:
    """The assignments an edit rate is taken of: submitted, not trial, with a seed."""
    return Q(status=Assignment.Status.SUBMITTED, pair__is_trial=False, seed__isnull=False)


def _groups(project: Project) -> list[dict[str, Any]]:
    """Per annotator, trial or not, subcorpus, status and withdrawn: the assignments, the
    flagged ones, the edit rates kept (their sum and number), those to recount (rated, an
    annotation, no edit count kept), and the time spent on their annotations."""
    kept = _rated() & Q(**{f"{FINAL_EDITS}__isnull": False})
    rate = Cast(FINAL_EDITS, FloatField()) / Cast("pair__cells", FloatField())
    unkept = _rated() & Q(withdrawn_at__isnull=True, annotation__isnull=False,
                          **{f"{FINAL_EDITS}__isnull": True})  # fmt: skip
    return list(
        Assignment.objects.filter(pair__project=project)
        .annotate(withdrawn=Q(withdrawn_at__isnull=False))
        .values("annotator_id", "pair__is_trial", "pair__subcorpus_id", "status", "withdrawn")
        .annotate(
            n=Count("id"),
            flagged=Count("id", filter=~Q(flag="")),
            rate_sum=Sum(rate, filter=kept),
            rates=Count("id", filter=kept),
            to_recount=Count("id", filter=unkept),
            seconds=Sum("annotation__figures__seconds"),
            timed=Count("annotation__figures"),
        )
        .order_by()
    )


def _recounted(project: Project):
    """Edit rates of rated assignments whose final revision stored no edit count (older
    saves, imports): counted from the annotation and its seed, RECOUNT_CHUNK rows a query."""
    rows = (
        Assignment.objects.filter(_rated(), pair__project=project, withdrawn_at__isnull=True)
        .filter(annotation__isnull=False, **{f"{FINAL_EDITS}__isnull": True})
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


def assignments_of(
    *,
    project: Project,
    annotator_username: str | None = None,
    counts: list[tuple[int, str, int]] | None = None,
) -> WorkList:
    """Assignments (withdrawn ones too) for the lead's work list: by annotator (username
    order), then in the pairs' order. Each annotator's assignments are counted first (one
    grouped query, or ``counts`` as ``project_progress`` gives them), so a page reads only
    its own rows, a stretch of one or two annotators' lists, instead of sorting the project's
    whole work."""
    if counts is None:
        counts = list(
            Assignment.objects.filter(pair__project=project)
            .values_list("annotator_id", "annotator__username")
            .annotate(n=Count("id"))
            .order_by("annotator__username")
        )
    if annotator_username:
        counts = [c for c in counts if c[1] == annotator_username]
    return WorkList(project, [(pk, n) for pk, _name, n in counts])


class WorkList:
    """The work list as Django's ``Paginator`` reads it (``count()`` and slices): each
    annotator's stretch, in the pairs' order, read where the slice falls."""

    def __init__(self, project: Project, counts: list[tuple[int, int]]):
        self.project, self.counts = project, counts

    def count(self) -> int:
        return sum(n for _pk, n in self.counts)

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window: slice) -> list[Assignment]:
        start, stop, _ = window.indices(self.count())
        rows: list[Assignment] = []
        before = 0
        for annotator_id, n in self.counts:
            lo, hi = max(start - before, 0), min(stop - before, n)
            if lo < hi:
                rows += list(self._of(annotator_id)[lo:hi])
            before += n
        return rows

    def _of(self, annotator_id: int):
        return (
            Assignment.objects.filter(pair__project=self.project, annotator_id=annotator_id)
            .select_related("pair", "pair__subcorpus", "annotator")
            .order_by("pair__position", "pair_id", "pk")
        )


def annotation_of(*, assignment: Assignment) -> Annotation | None:
    return Annotation.objects.filter(assignment=assignment).first()
