"""The three writes of an annotator's save in as few round trips as the database allows: the
annotation (inserted on the first save, else updated), its revision and the assignment's
activity. On PostgreSQL they are ONE statement (data-modifying CTEs: all or nothing, inside the
save's transaction and under its row lock); elsewhere (SQLite) three ORM saves (issue 32).

Nothing listens to these models' save signals, and ``Model.save`` does no validation here (the
links are checked before, by ``parse_links``), so the one statement writes what the three saves
would; tests/app/test_annotations.py and test_grid_server_work.py run on both databases.
"""

from __future__ import annotations

import json

from django.db import DatabaseError, connection

from annotator.common.compiled import run_prepared, statement_name
from annotator.models import Annotation, AnnotationRevision, Assignment

ACTIVITY_FIELDS = ("last_activity_at", "started_at", "status", "submitted_at", "seed")

_ANNOTATION_INSERT = (
    "INSERT INTO {annotation} (assignment_id, links, version, created_at, updated_at)"
    " VALUES (%s, %s::jsonb, %s, %s, %s) RETURNING id"
)
_ANNOTATION_UPDATE = (
    "UPDATE {annotation} SET links = %s::jsonb, version = %s, updated_at = %s"
    " WHERE id = %s RETURNING id"
)
_REVISION_AND_ACTIVITY = """
, rev AS (
    INSERT INTO {revision}
        (annotation_id, version, kind, links, edits_from_seed, author_id, created_at,
         elapsed_seconds)
    SELECT ann.id, %s, %s, %s::jsonb, %s, %s, %s, %s FROM ann RETURNING id, annotation_id
)
UPDATE {assignment}
SET last_activity_at = %s, started_at = %s, status = %s, submitted_at = %s, seed_id = %s
WHERE id = %s
RETURNING (SELECT annotation_id FROM rev), (SELECT id FROM rev)
"""


def write_save(
    assignment: Assignment, annotation: Annotation, revision: AnnotationRevision
) -> None:
    """Write ``annotation`` (new or changed), ``revision`` (new) and ``assignment``'s
    :data:`ACTIVITY_FIELDS`, as prepared in memory; the instances are then as saved."""
    if connection.vendor != "postgresql":
        annotation.save()
        revision.annotation = annotation
        revision.save()
        assignment.save(update_fields=list(ACTIVITY_FIELDS))
        return
    sql, params = _one_statement(assignment, annotation, revision)
    with connection.cursor() as cursor:
        run_prepared(cursor, statement_name("grid_save", sql), sql, params)
        annotation_id, revision_id = cursor.fetchone()
    if revision_id is None:  # the annotation row was not there to update: write nothing
        raise DatabaseError(f"annotation {annotation.pk} of assignment {assignment.pk} is gone")
    annotation.pk, revision.pk = annotation_id, revision_id
    revision.annotation = annotation
    for instance in (annotation, revision):
        instance._state.adding, instance._state.db = False, connection.alias


def _one_statement(
    assignment: Assignment, annotation: Annotation, revision: AnnotationRevision
) -> tuple[str, list]:
    now = assignment.last_activity_at
    links = json.dumps(annotation.links)
    tables = {
        "annotation": connection.ops.quote_name(Annotation._meta.db_table),
        "revision": connection.ops.quote_name(AnnotationRevision._meta.db_table),
        "assignment": connection.ops.quote_name(Assignment._meta.db_table),
    }
    if annotation.pk is None:
        write = _ANNOTATION_INSERT
        params: list = [assignment.pk, links, annotation.version, now, now]
        annotation.created_at = now
    else:
        write = _ANNOTATION_UPDATE
        params = [links, annotation.version, now, annotation.pk]
    annotation.updated_at = revision.created_at = now
    sql = ("WITH ann AS (" + write + ")" + _REVISION_AND_ACTIVITY).format(**tables)
    params += [
        revision.version,
        revision.kind,
        json.dumps(revision.links),
        revision.edits_from_seed,
        revision.author_id,
        now,
        revision.elapsed_seconds,
        now,
        assignment.started_at,
        assignment.status,
        assignment.submitted_at,
        assignment.seed_id,
        assignment.pk,
    ]
    return sql, params
