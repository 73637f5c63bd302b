"""The annotator's queue: their non-withdrawn assignments in a project, in the order they
should do them, with counts, next / previous and where to resume.

The order is decided in ONE place, :func:`order_queue`; everything else (the queue page, the
API's list, next / previous, resume) goes through it, so a new ordering (e.g. the aligner's
uncertainty first, ``Project.uncertainty_first``) is added there and nowhere else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
    Window,
)
from django.db.models.functions import RowNumber

from annotator.grid.selectors.assignments import own_assignments
from annotator.models import Assignment, Project, QueueTally, SentencePair
from annotator.seeding.selectors import uncertainty_order

STATUSES = tuple(Assignment.Status.values)


def _queue_terms(
    assignments: QuerySet[Assignment],
    *,
    uncertainty_first: bool | None = None,
    one_queue: tuple[int, int] | None = None,
) -> tuple[QuerySet[Assignment], list[Any]]:
    """``assignments`` annotated with the queue's ranks, and the terms of the queue order
    (``uncertainty_first``: the project's flag, when all rows are of one known project;
    ``one_queue``: (annotator, project) when all rows are of that one queue, whose pending
    trial pairs are then looked for once, not per row)."""
    annotator, project = one_queue or (OuterRef("annotator_id"), OuterRef("pair__project_id"))
    trials_pending = Assignment.objects.filter(
        annotator_id=annotator,
        pair__project_id=project,
        pair__is_trial=True,
        withdrawn_at__isnull=True,
    ).exclude(status=Assignment.Status.SUBMITTED)
    ranked = assignments.annotate(
        queue_rank=Case(
            When(Q(pair__is_trial=True) & Exists(trials_pending), then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        )
    )
    # Project.uncertainty_first (issue 11)
    ranked, uncertain = uncertainty_order(ranked, uncertainty_first=uncertainty_first)
    return ranked, ["pair__project_id", "queue_rank", *uncertain, "pair__position", "pair_id"]


def order_queue(assignments: QuerySet[Assignment]) -> QuerySet[Assignment]:
    """``assignments`` in queue order: per project, trial pairs first while the annotator still
    has unsubmitted trial pairs there (the trial set trains them before real work), then by the
    pair's import position. Works on any annotator's / project's rows."""
    ranked, terms = _queue_terms(assignments)
    return ranked.order_by(*terms)


def project_queue(
    *, user: Any, project: Project, status: str | None = None
) -> QuerySet[Assignment]:
    """``user``'s queue in ``project`` (optionally only one status), in queue order."""
    assignments = own_assignments(user=user).filter(pair__project=project)
    if status:
        assignments = assignments.filter(status=status)
    if _in_import_order(user=user, project=project):
        # the same order with every rank equal, in terms the pairs' (project, position, id)
        # index answers: a page is read from the index, not sorted out of the whole queue
        ordered = assignments.order_by("pair__position", "pair_id")
    else:
        ordered = order_queue(assignments)
    return ordered.select_related("pair", "pair__subcorpus")


class QueueRuns:
    """An import-order queue as its two runs, for a paginator: the pending trial pairs, then
    the others, each sliced in the pairs' (position, id) order, so a page reads its own rows
    from the pairs' order index (the trial run from its partial index) and sorts nothing."""

    def __init__(self, trials: QuerySet[Assignment], others: QuerySet[Assignment]) -> None:
        self.trials, self.others = trials, others
        self._trials_count: int | None = None

    def trials_count(self) -> int:
        if self._trials_count is None:
            self._trials_count = self.trials.count()
        return self._trials_count

    def count(self) -> int:
        return self.trials_count() + self.others.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, part: slice) -> list[Assignment]:
        if not isinstance(part, slice) or part.step is not None:
            raise TypeError("a queue is read a page (a slice) at a time")
        start, stop = part.start or 0, part.stop
        head = self.trials_count()
        rows = list(self.trials[start:stop]) if start < head else []
        rest_start = max(start - head, 0)
        rest_stop = None if stop is None else max(stop - head, 0)
        if rest_stop is None or rest_stop > rest_start:
            rows += list(self.others[rest_start:rest_stop])
        return rows


def queue_page_rows(
    *, user: Any, project: Project, status: str | None = None
) -> QueueRuns | QuerySet[Assignment]:
    """What the queue page pages through: :func:`project_queue`'s rows in its order, as the
    two runs of :class:`QueueRuns` when the queue is in import order with trial pairs pending
    (a query set otherwise)."""
    if project.uncertainty_first or not getattr(user, "is_authenticated", False):
        return project_queue(user=user, project=project, status=status)
    (pending,) = _run_keyset(_PENDING_STATEMENT, P=project.pk, U=user.pk)
    if not pending:
        return project_queue(user=user, project=project, status=status)
    rows = own_assignments(user=user).filter(pair__project=project)
    if status:
        rows = rows.filter(status=status)
    rows = rows.select_related("pair", "pair__subcorpus").order_by("pair__position", "pair_id")
    return QueueRuns(rows.filter(pair__is_trial=True), rows.filter(pair__is_trial=False))


class KnownCount:
    """Rows for a paginator whose number is already known (a QueueTally's row): the
    paginator takes it from :meth:`count` instead of counting the rows again."""

    def __init__(self, rows: QueueRuns | QuerySet[Assignment], count: int) -> None:
        self.rows, self._count = rows, count

    def count(self) -> int:
        return self._count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, part: slice) -> Any:
        return self.rows[part]


def counted_queue_rows(
    *, user: Any, project: Project, status: str | None = None
) -> QueueRuns | QuerySet[Assignment] | KnownCount:
    """:func:`queue_page_rows` for a paginator, with their count: on PostgreSQL the
    QueueTally's (no count of the queue's rows), elsewhere counted as the rows are."""
    rows = queue_page_rows(user=user, project=project, status=status)
    if connection.vendor != "postgresql":
        return rows
    counts = queue_counts(user=user, project=project)
    return KnownCount(rows, getattr(counts, status) if status else counts.total)


def _in_import_order(*, user: Any, project: Project) -> bool:
    """Whether ``user``'s queue in ``project`` is simply in the pairs' import order: the
    project does not serve uncertain seeds first and no trial pair of theirs is pending."""
    if project.uncertainty_first or not getattr(user, "is_authenticated", False):
        return False
    (pending,) = _run_keyset(_PENDING_STATEMENT, P=project.pk, U=user.pk)
    return not pending


@dataclass(frozen=True)
class QueueCounts:
    total: int
    assigned: int
    in_progress: int
    submitted: int

    @property
    def percent_submitted(self) -> float:
        return 100.0 * self.submitted / self.total if self.total else 0.0

    @property
    def summary(self) -> str:
        return f"{self.submitted} of {self.total} submitted"


def queue_counts(*, user: Any, project: Project) -> QueueCounts:
    """``user``'s queue counts in ``project``: on PostgreSQL the row of the QueueTally its
    triggers keep (one row, whatever the queue's size), elsewhere counted."""
    if connection.vendor == "postgresql":
        row = QueueTally.objects.filter(annotator_id=user.pk, project_id=project.pk).first()
        assigned, in_progress, submitted = (
            (row.assigned, row.in_progress, row.submitted) if row else (0, 0, 0)
        )
        return QueueCounts(
            total=assigned + in_progress + submitted,
            assigned=assigned,
            in_progress=in_progress,
            submitted=submitted,
        )
    by_status = {
        status: Count("id", filter=Q(status=status)) for status in Assignment.Status.values
    }
    row = (
        own_assignments(user=user)
        .filter(pair__project=project)
        .aggregate(total=Count("id"), **by_status)
    )
    return QueueCounts(
        total=row["total"],
        assigned=row["assigned"],
        in_progress=row["in_progress"],
        submitted=row["submitted"],
    )


@dataclass(frozen=True)
class QueuePlace:
    """Where an assignment sits in its annotator's queue (``position`` is 1-based)."""

    position: int
    total: int
    submitted: int
    next: int | None
    previous: int | None
    next_unsubmitted: int | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "total": self.total,
            "submitted": self.submitted,
            "next": self.next,
            "previous": self.previous,
        }


# One row about one assignment out of its whole queue, computed by the database: the queue is
# numbered in queue order (a window), then the assignment's row is found and the counts, its
# neighbours and the next pairs still to do are gathered in ONE pass over the numbered queue
# (before: one pass each). Reading the whole queue into Python instead cost most of an opening's
# time on a 1,000-pair queue (issue 32). Plain SQL that PostgreSQL and SQLite both run.
_PLACE_SQL = """
WITH q AS ({queue}),
me AS (SELECT q.rn, q.trial FROM q WHERE q.id = %s),
a AS (
    SELECT COUNT(*) AS total,
           SUM(CASE WHEN q.status = %s THEN 1 ELSE 0 END) AS submitted,
           MAX(CASE WHEN q.rn = me.rn + 1 THEN q.id END) AS following,
           MAX(CASE WHEN q.rn = me.rn - 1 THEN q.id END) AS previous,
           MIN(CASE WHEN q.status <> %s AND q.rn > me.rn THEN q.rn END) AS todo_after,
           MIN(CASE WHEN q.status <> %s AND q.rn <> me.rn THEN q.rn END) AS todo_any,
           MAX(CASE WHEN q.trial AND q.status <> %s THEN 1 ELSE 0 END) AS trials_todo
    FROM q CROSS JOIN me
)
SELECT me.rn, a.total, a.submitted, a.following, a.previous,
       (SELECT q.id FROM q WHERE q.rn = a.todo_after),
       (SELECT q.id FROM q WHERE q.rn = a.todo_any),
       me.trial, a.trials_todo
FROM me CROSS JOIN a
"""


# Building that statement through the ORM cost more than running it, so it is built once per
# kind of queue (and database) with stand-ins for the annotator and the project, which are then
# swapped for the real ones among its parameters. The stand-ins are ids no row can have.
_ANNOTATOR, _PROJECT, _ME = -732_000_001, -732_000_002, -732_000_003
_PLACE_STATEMENTS: dict[tuple[str, bool | None], tuple[str, tuple[Any, ...]]] = {}


def _place_statement(uncertainty_first: bool | None) -> tuple[str, tuple[Any, ...]]:
    """The queue place's SQL and its parameters but the assignment's id, with the stand-ins."""
    key = (connection.vendor, uncertainty_first)
    if key not in _PLACE_STATEMENTS:
        # The same rows as own_assignments(user=annotator), by id: the user row is not needed.
        ranked, terms = _queue_terms(
            Assignment.objects.filter(
                annotator_id=_ANNOTATOR, withdrawn_at__isnull=True, pair__project_id=_PROJECT
            ),
            uncertainty_first=uncertainty_first,
            one_queue=(_ANNOTATOR, _PROJECT),
        )
        numbered = ranked.annotate(
            trial=F("pair__is_trial"), rn=Window(RowNumber(), order_by=terms)
        ).values_list("id", "status", "trial", "rn")
        queue_sql, queue_params = numbered.query.sql_with_params()
        submitted = Assignment.Status.SUBMITTED
        _PLACE_STATEMENTS[key] = (
            _PLACE_SQL.format(queue=queue_sql),
            (*queue_params, _ME, submitted, submitted, submitted, submitted),
        )
    return _PLACE_STATEMENTS[key]


# The same place without numbering the queue, when the queue is in import order (the project
# does not serve the most uncertain seed first): the queue is then two runs of rows, each in
# the pair's (position, id) order: the pending trial pairs (while the annotator has an
# unsubmitted trial pair), then all the others. Each neighbour is the first row of a run past
# this one: a keyset read on the pairs' (project, position, id) index (or the trial pairs'
# partial index) joined to the assignment by its (pair, annotator) key, which stops at the
# first row. The position counts the rows before this one (or, past the middle of the project,
# those after it, from the total), and the counts (the page's "N of M, S submitted") are the
# QueueTally's row on PostgreSQL: no statement reads the queue's rows in order.
_QUEUE_ROWS = (
    f'FROM "{SentencePair._meta.db_table}" p JOIN "{Assignment._meta.db_table}" a'
    " ON a.pair_id = p.id WHERE p.project_id = @P@ AND a.annotator_id = @U@"
    " AND a.withdrawn_at IS NULL"
)
_TRIALS_FIRST = "p.is_trial AND (SELECT pending FROM tp) = 1"
_RUNS = {0: _TRIALS_FIRST, 1: f"NOT ({_TRIALS_FIRST})"}
# whether the trial pairs stand first (1): the annotator has an unsubmitted trial pair here
_TRIALS_PENDING = f"""
tp AS (
    SELECT CASE WHEN EXISTS (SELECT 1 {_QUEUE_ROWS} AND p.is_trial AND a.status <> @S@)
           THEN 1 ELSE 0 END AS pending
)"""
# A queue much sparser than its project (a sample of a big corpus: fewer rows than one pair in
# SPARSE_FACTOR) would have each walk step over the pairs between its rows, and the position
# count walk half the project (0.29 s at the 200th of 400 rows in a million pairs): there the
# annotator's own rows (``mine``, read once, O(queue)) answer every term instead. The CASE
# runs one branch; the CTE is computed only if read.
SPARSE_FACTOR = 20
_KEYSET_SQL = f"""
WITH {_TRIALS_PENDING},
me AS (
    SELECT p.position AS pos, p.id AS pid, p.is_trial AS trial,
           CASE WHEN {_TRIALS_FIRST} THEN 0 ELSE 1 END AS r
    {_QUEUE_ROWS} AND a.id = @ME@
),
n AS ({{counts}}),
sp AS (
    SELECT CASE WHEN n.total * @D@ < COALESCE(({{last_position}}), 0) THEN 1 ELSE 0 END
           AS sparse FROM n
),
mine AS MATERIALIZED (
    SELECT a.id AS id, a.status AS status, p.position AS position, p.id AS pid,
           CASE WHEN {_TRIALS_FIRST} THEN 0 ELSE 1 END AS r
    {_QUEUE_ROWS}
)
SELECT CASE WHEN me.r = 0 THEN ({{count0_before}}) + 1
            WHEN me.pos * 2 <= ({{last_position}}) THEN ({{count0}}) + ({{count1_before}}) + 1
            ELSE n.total - ({{count1_after}}) END,
       n.total, n.submitted,
       CASE WHEN me.r = 0 THEN COALESCE(({{after0}}), ({{first1}})) ELSE ({{after1}}) END,
       CASE WHEN me.r = 0 THEN ({{before0}}) ELSE COALESCE(({{before1}}), ({{last0}})) END,
       CASE WHEN me.r = 0 THEN COALESCE(({{todo_after0}}), ({{todo_first1}}))
            ELSE ({{todo_after1}}) END,
       COALESCE(({{todo_first0}}), ({{todo_first1}})),
       me.trial, (SELECT pending FROM tp)
FROM me CROSS JOIN n
"""
_PAST = {">": "(p.position, p.id) > (me.pos, me.pid)", "<": "(p.position, p.id) < (me.pos, me.pid)"}
_TODO = "a.status <> @S@"


def _one_of_run(run: int, *terms: str, last: bool = False) -> str:
    """The first (``last``: the last) assignment of a run of the queue with ``terms``."""
    way = " DESC" if last else ""
    where = "".join(f" AND {term}" for term in (_RUNS[run], *terms))
    return f"SELECT a.id {_QUEUE_ROWS}{where} ORDER BY p.position{way}, p.id{way} LIMIT 1"


def _on_mine(term: str) -> str:
    """A term on the queue's rows (``p`` the pair, ``a`` the assignment) said of ``mine``."""
    for name, own in (("p.position", "m.position"), ("p.id", "m.pid"), ("a.status", "m.status"),
                      ("a.id", "m.id")):  # fmt: skip
        term = term.replace(name, own)
    return term


def _either(run: int, *terms: str, last: bool = False, count: bool = False) -> str:
    """``_one_of_run`` (``count``: ``_count_of_run``) of a dense queue, or the same read from
    the annotator's own rows (``mine``) when the queue is sparse in its project."""
    walk = _count_of_run(run, *terms) if count else _one_of_run(run, *terms, last=last)
    where = "".join(f" AND {_on_mine(term)}" for term in terms)
    way = " DESC" if last else ""
    own = (
        f"SELECT COUNT(*) FROM mine m WHERE m.r = {run}{where}"
        if count
        else f"SELECT m.id FROM mine m WHERE m.r = {run}{where}"
        f" ORDER BY m.position{way}, m.pid{way} LIMIT 1"
    )
    return f"CASE WHEN (SELECT sparse FROM sp) = 1 THEN ({own}) ELSE ({walk}) END"


def _count_of_run(run: int, *terms: str) -> str:
    """The rows of a run with ``terms``, counted by walking the pairs' order index and probing
    each pair's assignment (a scalar subquery, which the planner cannot turn into a hash of
    the annotator's whole queue): proportional to the pairs walked, not to the queue."""
    where = "".join(f" AND {term}" for term in (_RUNS[run], *terms))
    mine = (
        f'SELECT a.id FROM "{Assignment._meta.db_table}" a WHERE a.pair_id = p.id'
        " AND a.annotator_id = @U@ AND a.withdrawn_at IS NULL"
    )
    return (
        f'SELECT COUNT(({mine})) FROM "{SentencePair._meta.db_table}" p'
        f" WHERE p.project_id = @P@{where}"
    )


# The queue's counts: counted, or (PostgreSQL) the QueueTally's row (none: an empty queue)
_COUNTED = (
    f"SELECT COUNT(*) AS total, SUM(CASE WHEN a.status = @S@ THEN 1 ELSE 0 END) AS submitted"
    f" {_QUEUE_ROWS}"
)
_TALLY_ROW = (
    f'FROM "{QueueTally._meta.db_table}" t WHERE t.annotator_id = @U@ AND t.project_id = @P@'
)
_TALLIED = (
    f"SELECT COALESCE((SELECT t.assigned + t.in_progress + t.submitted {_TALLY_ROW}), 0)"
    f" AS total, COALESCE((SELECT t.submitted {_TALLY_ROW}), 0) AS submitted"
)


def _keyset_statement(vendor: str) -> tuple[str, tuple[str, ...]]:
    """The keyset place's SQL with ``%s`` placeholders, and the name of each one's value."""
    sql = _KEYSET_SQL.format(
        counts=_TALLIED if vendor == "postgresql" else _COUNTED,
        count0_before=_either(0, _PAST["<"], count=True),
        count0=_either(0, count=True),
        count1_before=_either(1, _PAST["<"], count=True),
        # past the middle of the project the rows after it are fewer to count
        count1_after=_either(1, _PAST[">"], count=True),
        last_position=(
            f'SELECT MAX(p.position) FROM "{SentencePair._meta.db_table}" p'
            " WHERE p.project_id = @P@"
        ),
        after0=_either(0, _PAST[">"]),
        after1=_either(1, _PAST[">"]),
        first1=_either(1),
        before0=_either(0, _PAST["<"], last=True),
        before1=_either(1, _PAST["<"], last=True),
        last0=_either(0, last=True),
        todo_after0=_either(0, _PAST[">"], _TODO),
        todo_after1=_either(1, _PAST[">"], _TODO),
        todo_first0=_either(0, _TODO, "a.id <> @ME@"),
        todo_first1=_either(1, _TODO, "a.id <> @ME@"),
    )
    return _positional(sql)


def _positional(sql: str) -> tuple[str, tuple[str, ...]]:
    """``sql`` with its ``@NAME@`` values as ``%s``, and the name of each in turn."""
    names = tuple(re.findall(r"@(\w+)@", sql))
    return re.sub(r"@\w+@", "%s", sql), names


_KEYSET_STATEMENTS = {vendor: _keyset_statement(vendor) for vendor in ("postgresql", "other")}
# The first assignment still to do in an import-order queue (where the queue page resumes).
_RESUME_STATEMENT = _positional(
    f"WITH {_TRIALS_PENDING} SELECT COALESCE(({_one_of_run(0, _TODO)}), ({_one_of_run(1, _TODO)}))"
)
# Whether the trial pairs stand first in an import-order queue.
_PENDING_STATEMENT = _positional(f"WITH {_TRIALS_PENDING} SELECT pending FROM tp")


def _run_keyset(statement: tuple[str, tuple[str, ...]], **named: Any) -> tuple[Any, ...]:
    """The one row of a keyset statement, its values by name (the submitted status added)."""
    sql, names = statement
    values = {**named, "S": Assignment.Status.SUBMITTED}
    with connection.cursor() as cursor:
        cursor.execute(sql, [values[name] for name in names])
        return cursor.fetchone()


def queue_place(*, assignment: Assignment) -> QueuePlace:
    """Position, neighbours and the next pair still to do (after this one, wrapping round to
    the start of the queue), in one query over the annotator's queue in this project that
    answers one row."""
    sql, params = place_query(assignment=assignment)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return place_from_row(cursor.fetchone())


def place_query(*, assignment: Assignment) -> tuple[str, list[Any]]:
    """The SQL of :func:`queue_place` (``WITH q AS (...) SELECT ...``: one row) and its
    parameters, for a caller that sends it along with a write (the grid page's opening)."""
    # The project's flag when it was read with the pair (else the order asks the database)
    pair = assignment.pair
    uncertainty_first = (
        pair.project.uncertainty_first if type(pair).project.is_cached(pair) else None
    )
    if uncertainty_first is False:
        vendor = "postgresql" if connection.vendor == "postgresql" else "other"
        sql, names = _KEYSET_STATEMENTS[vendor]
        named = {"P": pair.project_id, "U": assignment.annotator_id, "ME": assignment.pk}
        named.update(S=Assignment.Status.SUBMITTED, D=SPARSE_FACTOR)
        return sql, [named[name] for name in names]
    sql, params = _place_statement(uncertainty_first)
    values = {_ANNOTATOR: assignment.annotator_id, _PROJECT: pair.project_id, _ME: assignment.pk}
    return sql, [values.get(p, p) if type(p) is int else p for p in params]


def planned_per_call(sql: str) -> bool:
    """Whether a statement holding the place's ``sql`` should be planned for its values, not
    prepared once: the keyset place's position count walks the pairs' order index from the
    pair's own position, which a prepared statement's generic plan (not knowing the position)
    trades for a scan of all the project's pairs (0.35 s at 1 M pairs against 35 ms)."""
    return any(sql == keyset for keyset, _ in _KEYSET_STATEMENTS.values())


def place_from_row(row: tuple[Any, ...]) -> QueuePlace:
    """The :class:`QueuePlace` of the one row :func:`place_query` answers."""
    rn, total, done, following, previous, todo_after, todo_any, trial, trials_todo = row
    # After a trial pair once the trial set is done (this submit may just have finished it),
    # the trial block stood before all other work: what follows it is the first pair still to
    # do in the order the queue page now lists, not the pair after the trial pair's own import
    # position (issue 31, defect 5).
    after = todo_any if trial and not trials_todo else (todo_after or todo_any)
    return QueuePlace(
        position=rn,
        total=total,
        submitted=done,
        next=following,
        previous=previous,
        next_unsubmitted=after,
    )


def resume_assignment(*, user: Any, project: Project) -> Assignment | None:
    """Where to resume: the first unsubmitted assignment in queue order, or None when done."""
    if not project.uncertainty_first and getattr(user, "is_authenticated", False):
        (first,) = _run_keyset(_RESUME_STATEMENT, P=project.pk, U=user.pk)
        found = own_assignments(user=user).select_related("pair").filter(pk=first)
        return found.first() if first is not None else None
    return (
        project_queue(user=user, project=project)
        .exclude(status=Assignment.Status.SUBMITTED)
        .first()
    )
