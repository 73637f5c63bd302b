"""Writes of the grid: opening an assigned pair, saving (autosave / submit) an annotation, and
flagging a pair.

Every save appends an AnnotationRevision (who, when, kind, links, cells changed against the
seed, time spent), so nothing an annotator saved is ever lost. Saves use optimistic
concurrency: a save names the version it edited, and the assignment row is locked while the
version is checked and bumped, so of two saves based on the same version exactly one wins and
the other gets :class:`StaleVersion` with the state that won.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Max, OuterRef, QuerySet, Subquery
from django.utils import timezone

from annotator.common.compiled import CompiledQuery, run_prepared, statement_name
from annotator.discussions.services import post_message
from annotator.gold.services.gold import gold_from_single_submission
from annotator.grid.save_writes import write_save
from annotator.grid.selectors.assignments import (
    AnnotationState,
    annotation_state,
    current_annotation,
    starting_seed,
    starting_seed_id,
)
from annotator.grid.selectors.queue import (
    QueuePlace,
    place_from_row,
    place_query,
    planned_per_call,
    queue_place,
)
from annotator.links import parse_links, to_alignment
from annotator.models import Annotation, AnnotationRevision, Assignment

FLAG_NOTE_MAX = 500
# Lock only the assignment's row, not the rows joined in with it (PostgreSQL needs "OF" to
# lock a row next to the nullable side of an outer join).
_LOCK_OF = ("self",)


class AnnotationError(Exception):
    """A save or flag that cannot be done; the message says why."""


class StaleVersion(AnnotationError):
    """The save was based on an older version than the stored one. ``current`` is what is
    stored now, so the annotator can reload it or keep their own on top of it."""

    def __init__(self, *, based_on: int, current: AnnotationState) -> None:
        super().__init__(
            f"This pair was saved elsewhere (version {current.version}) since the version "
            f"{based_on} your edit is based on."
        )
        self.current = current


class InvalidLinks(AnnotationError):
    """The posted links do not fit the pair; ``problems`` name each offending link."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("The links do not fit this pair: " + "; ".join(problems))
        self.problems = problems


class AlreadySubmitted(AnnotationError):
    def __init__(self) -> None:
        super().__init__("This pair was submitted; a lead can reopen it.")


class NotYourAssignment(AnnotationError):
    def __init__(self) -> None:
        super().__init__("Only the assignment's own annotator may change it.")


@dataclass(frozen=True)
class SaveResult:
    annotation: Annotation
    revision: AnnotationRevision
    assignment: Assignment

    @property
    def state(self) -> AnnotationState:
        return AnnotationState(
            self.annotation.version, self.annotation.links, self.annotation.updated_at
        )


def _check_owner(assignment: Assignment, user: Any) -> None:
    if assignment.annotator_id != getattr(user, "pk", None) or assignment.withdrawn_at:
        raise NotYourAssignment()


def open_assignment(*, assignment: Assignment, user: Any, now: datetime | None = None) -> None:
    """The annotator opened the pair: remember when (time spent is measured from here) and,
    the first time, that they started and from which seed."""
    changes = _opening(assignment, user, now)
    Assignment.objects.filter(pk=assignment.pk).update(**changes)
    for field, value in changes.items():
        setattr(assignment, field, value)


def open_assignment_with_place(
    *, assignment: Assignment, user: Any, now: datetime | None = None
) -> QueuePlace:
    """:func:`open_assignment`, answering the assignment's queue place (what the grid page
    shows): on PostgreSQL ONE statement, the opening's UPDATE a data-modifying CTE beside the
    place's query (which reads only the queue's order and statuses, which the opening does not
    change): a round trip and a commit fewer per page (issue 32). Elsewhere the two in turn."""
    if connection.vendor != "postgresql":
        open_assignment(assignment=assignment, user=user, now=now)
        return queue_place(assignment=assignment)
    changes = _opening(assignment, user, now)
    place_sql, place_params = place_query(assignment=assignment)
    # a statement of its own (autocommit): its commit need not wait for the disk (see _OPENED)
    opened_sql = _OPENED_ASYNC if connection.get_autocommit() else _OPENED
    sql = opened_sql + ", " + place_sql.strip().removeprefix("WITH")
    with connection.cursor() as cursor:
        opened = [changes.get(f) for f in ("last_activity_at", "started_at", "seed_id")]
        params = [*opened, assignment.pk, *place_params]
        if planned_per_call(place_sql):
            cursor.execute(sql, params)
        else:
            run_prepared(cursor, statement_name("grid_open", sql), sql, params)
        row = cursor.fetchone()
    for field, value in changes.items():
        setattr(assignment, field, value)
    return place_from_row(row)


# The opening's update in one shape whatever it changes (one prepared statement): a value left
# NULL (None) keeps the column's own.
_OPENED = (
    f'WITH opened AS (UPDATE "{Assignment._meta.db_table}" SET last_activity_at = %s,'
    " started_at = COALESCE(%s, started_at), seed_id = COALESCE(%s, seed_id) WHERE id = %s)"
)
# When the opening is a transaction of its own, it is committed asynchronously (PostgreSQL's
# synchronous_commit off for this transaction only, set by the update's RETURNING, which a
# data-modifying CTE always computes): the commit does not wait for the WAL to reach the disk,
# the wait that made the page's slowest openings (p95 of the commit alone 3–5 ms, 0.4–1.8 ms
# without it). What a crash of the database server can lose is the last fraction of a second
# (wal_writer_delay) of OPENINGS: when a pair was opened, and the seed recorded on its first
# opening, which the next opening or save records again. Never a save: saves commit
# synchronously, in their own transactions. Inside a caller's transaction, the plain form.
_OPENED_ASYNC = (
    _OPENED.removesuffix(")") + " RETURNING set_config('synchronous_commit', 'off', true))"
)


def _opening(assignment: Assignment, user: Any, now: datetime | None) -> dict[str, Any]:
    """What opening ``assignment`` changes on it (NotYourAssignment if it is not ``user``'s)."""
    _check_owner(assignment, user)
    now = now or timezone.now()
    changes: dict[str, Any] = {"last_activity_at": now}
    if assignment.started_at is None:
        changes["started_at"] = now
    if assignment.seed_id is None and assignment.status == Assignment.Status.ASSIGNED:
        seed_id = starting_seed_id(assignment=assignment)
        if seed_id is not None:
            changes["seed_id"] = seed_id
    return changes


def edits_from_seed(links: list[list[Any]], seed_links: list[list[Any]]) -> int:
    """|A_P Δ seed| (SPEC §1): cells aligned in one and not the other, ignoring S/P."""
    return len(to_alignment(links).all_links ^ to_alignment(seed_links).all_links)


def _elapsed_seconds(last_activity: datetime | None, now: datetime) -> float:
    """Seconds since this annotator's previous save or opening of a pair (any pair: two tabs
    do not count twice; ``last_activity``, read with the locked row), capped at
    ANNOTATION_IDLE_CAP so an idle tab does not count hours."""
    if last_activity is None:
        return 0.0
    gap = (now - last_activity).total_seconds()
    return float(min(max(gap, 0.0), settings.ANNOTATION_IDLE_CAP))


def save_annotation(
    *,
    assignment: Assignment,
    user: Any,
    links: Any,
    base_version: int,
    kind: str = AnnotationRevision.Kind.AUTOSAVE,
    now: datetime | None = None,
) -> SaveResult:
    """Save ``links`` as the annotator's alignment of the pair, based on ``base_version``
    (0 if never saved). Raises InvalidLinks, StaleVersion, AlreadySubmitted or
    NotYourAssignment, having written nothing. ``kind`` is ``autosave`` or ``submit``; a
    submit also marks the assignment submitted. ``assignment`` is brought up to date."""
    _check_owner(assignment, user)
    result = save_own_annotation(
        assignment_id=assignment.pk,
        user=user,
        links=links,
        base_version=base_version,
        kind=kind,
        now=now,
    )
    for field in ("last_activity_at", "started_at", "status", "submitted_at", "seed_id"):
        setattr(assignment, field, getattr(result.assignment, field))
    return SaveResult(annotation=result.annotation, revision=result.revision, assignment=assignment)


def save_own_annotation(
    *,
    assignment_id: int,
    user: Any,
    links: Any,
    base_version: int,
    kind: str = AnnotationRevision.Kind.AUTOSAVE,
    now: datetime | None = None,
) -> SaveResult:
    """:func:`save_annotation` of ``user``'s own assignment ``assignment_id`` (NotYourAssignment
    when it is not theirs or was withdrawn): the API's save, which reads the assignment only
    once, locked, with everything the save needs (issue 32)."""
    if kind not in (AnnotationRevision.Kind.AUTOSAVE, AnnotationRevision.Kind.SUBMIT):
        raise ValueError(f"an annotator's save is an autosave or a submit, not {kind!r}")
    try:
        return _save_locked(assignment_id, user, links, base_version, kind, now)
    except IntegrityError:
        # Without row locks (SQLite) a concurrent save can reach the unique (annotation,
        # version) constraint first; that is the same conflict as a stale version.
        assignment = Assignment.objects.select_related("seed").get(pk=assignment_id)
        raise StaleVersion(
            based_on=base_version, current=annotation_state(assignment=assignment)
        ) from None


def _save_locked(
    assignment_id: int,
    user: Any,
    links: Any,
    base_version: int,
    kind: str,
    now: datetime | None,
) -> SaveResult:
    with transaction.atomic():
        # The row lock serialises saves of one assignment: a second save based on the same
        # version waits here, then sees the new version and is refused.
        locked, annotation, stored_links = _lock_for_save(assignment_id, user, links, base_version)
        now = now or timezone.now()
        elapsed = _elapsed_seconds(locked.user_last_activity, now)
        if locked.seed_id is None and annotation is None:
            seed = starting_seed(assignment=locked)
            locked.seed = seed
        seed_links = locked.seed.links if locked.seed_id else []

        if annotation is None:
            annotation = Annotation(assignment=locked, links=stored_links, version=1)
        else:
            annotation.links, annotation.version = stored_links, annotation.version + 1
        revision = AnnotationRevision(
            annotation=annotation,
            version=annotation.version,
            kind=kind,
            links=stored_links,
            edits_from_seed=edits_from_seed(stored_links, seed_links),
            author=user,
            elapsed_seconds=elapsed,
        )
        _mark_activity(locked, kind=kind, now=now)
        # the annotation, its revision and the activity: one round trip on PostgreSQL
        write_save(locked, annotation, revision)
        locked.annotation = annotation  # what a read after the save (trial feedback) sees
        if kind == AnnotationRevision.Kind.SUBMIT:
            _after_submit(locked)
    return SaveResult(annotation=annotation, revision=revision, assignment=locked)


def _locked_for_save(assignment: int, annotator: int) -> QuerySet[Assignment]:
    latest = (
        Assignment.objects.filter(annotator_id=OuterRef("annotator_id"))
        .values("annotator_id")
        .annotate(latest=Max("last_activity_at"))
        .values("latest")
    )
    return (
        Assignment.objects.select_for_update(of=_LOCK_OF)
        .select_related("pair", "annotation", "seed")
        .defer("seed__posteriors")
        .annotate(user_last_activity=Subquery(latest))
        .filter(pk=assignment, annotator_id=annotator, withdrawn_at=None)
        .order_by("pk")[:1]
    )


# Every save reads this (issue 32): compiled once, a prepared statement on PostgreSQL.
_LOCKED_FOR_SAVE = CompiledQuery(
    "save_lock", _locked_for_save, {"assignment": -732_200_001, "annotator": -732_200_002}
)


def _lock_for_save(
    assignment_id: int, user: Any, links: Any, base_version: int
) -> tuple[Assignment, Annotation | None, list[list[Any]]]:
    """Lock the assignment's row and check a save may go on: the user's own and not withdrawn,
    links that fit the pair, not submitted, and based on the current version (else the
    matching AnnotationError). Answers the locked row, its annotation and the links to store.

    One query reads the row with its pair (the shape), its annotation, its seed's links and
    the annotator's latest activity on any pair (time spent); only the assignment's row is
    locked."""
    found = _LOCKED_FOR_SAVE.fetch(assignment=assignment_id, annotator=getattr(user, "pk", None))
    if not found:
        raise NotYourAssignment()
    locked = found[0]
    try:
        stored_links = parse_links(links, *locked.pair.shape).to_links()
    except ValidationError as exc:
        raise InvalidLinks(exc.messages) from None
    if locked.status == Assignment.Status.SUBMITTED:
        raise AlreadySubmitted()
    annotation = current_annotation(assignment=locked)
    current = annotation.version if annotation else 0
    if base_version != current:
        raise StaleVersion(based_on=base_version, current=annotation_state(assignment=locked))
    return locked, annotation, stored_links


def _mark_activity(locked: Assignment, *, kind: str, now: datetime) -> None:
    """The assignment after a save: last activity now, started, in progress or submitted (in
    memory: :func:`write_save` writes it with the annotation and revision)."""
    locked.last_activity_at = now
    locked.started_at = locked.started_at or now
    if kind == AnnotationRevision.Kind.SUBMIT:
        locked.status, locked.submitted_at = Assignment.Status.SUBMITTED, now
    elif locked.status == Assignment.Status.ASSIGNED:
        locked.status = Assignment.Status.IN_PROGRESS


def submit_annotation(
    *,
    assignment: Assignment,
    user: Any,
    links: Any,
    base_version: int,
    now: datetime | None = None,
) -> SaveResult:
    """Save ``links`` as a ``submit`` revision and mark the pair submitted (same checks as
    :func:`save_annotation`)."""
    return save_annotation(
        assignment=assignment,
        user=user,
        links=links,
        base_version=base_version,
        kind=AnnotationRevision.Kind.SUBMIT,
        now=now,
    )


def _after_submit(assignment: Assignment) -> None:
    """Called inside the submit's transaction, once the assignment is marked submitted.

    The single hook for what a submission sets off: a submitted single-annotated non-trial
    pair becomes gold as it stands (SPEC §8; the lead's gold service decides and writes)."""
    gold_from_single_submission(assignment=assignment)


def flag_assignment(
    *, assignment: Assignment, user: Any, reason: str, note: str = "", now: datetime | None = None
) -> Assignment:
    """Flag the pair for the lead (``reason`` from Assignment.Flag), or clear the flag
    (``reason`` ""). A flagged pair can still be saved, submitted or skipped."""
    _check_owner(assignment, user)
    if reason not in Assignment.Flag.values:
        choices = ", ".join(repr(v) for v in Assignment.Flag.values)
        raise AnnotationError(f"reason must be one of {choices}, got {reason!r}")
    note = (note or "").strip()
    if len(note) > FLAG_NOTE_MAX:
        raise AnnotationError(f"note is {len(note)} characters long; at most {FLAG_NOTE_MAX}")
    if reason == Assignment.Flag.NONE:
        changes = {"flag": "", "flag_note": "", "flagged_at": None}
    else:
        changes = {"flag": reason, "flag_note": note, "flagged_at": now or timezone.now()}
    Assignment.objects.filter(pk=assignment.pk).update(**changes)
    for field, value in changes.items():
        setattr(assignment, field, value)
    if reason != Assignment.Flag.NONE:  # a flag opens (or adds to) the pair's discussion
        label = Assignment.Flag(reason).label
        post_message(pair=assignment.pair, annotator=user, author=user,
                     body=f"Flagged: {label}." + (f" {note}" if note else ""))  # fmt: skip
    return assignment


def clear_flag(*, assignment: Assignment, user: Any) -> Assignment:
    return flag_assignment(assignment=assignment, user=user, reason=Assignment.Flag.NONE)
