"""The grid's hot reads compiled once and run as prepared statements (annotator/common/compiled.py,
issue 32): they answer what the ORM's queryset answers, field by field and with the same related
objects read along; on PostgreSQL each is PREPAREd once per connection and then run by name
(surviving a rollback, prepared again on a new connection); off by a setting."""

# ruff: noqa: F811 (the ``grid`` fixture is imported and used as an argument)

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.db.models import Max
from django.test.utils import CaptureQueriesContext

from annotator.common.compiled import CompiledQuery, numbered_parameters
from annotator.grid.selectors.assignments import GRID_PAGE_RELATED, GRID_RELATED, get_own_assignment
from annotator.grid.services import _locked_for_save, save_annotation
from annotator.models import Assignment
from tests.app.grid_fixtures import grid  # noqa: F401 (fixture)
from tests.conftest import need

pytestmark = pytest.mark.django_db
# Prepared statements are PostgreSQL's: these tests are integration tests (CI's SQLite pass
# leaves them out; without PostgreSQL they skip, and under CI=true they fail).
POSTGRES = pytest.mark.integration


@pytest.fixture
def postgresql() -> None:
    need(connection.vendor == "postgresql", "PostgreSQL")


def fields(obj) -> dict:
    """Every loaded field of ``obj`` (deferred ones left out, as the ORM leaves them)."""
    loaded = obj.get_deferred_fields()
    return {
        f.attname: getattr(obj, f.attname)
        for f in obj._meta.concrete_fields
        if f.attname not in loaded
    }


def same_graph(mine: Assignment, theirs: Assignment, related: tuple[str, ...]) -> None:
    """``mine`` and ``theirs`` hold the same values and the same related objects, read along
    (touching them costs no query)."""
    assert fields(mine) == fields(theirs)
    assert mine.get_deferred_fields() == theirs.get_deferred_fields()
    with CaptureQueriesContext(connection) as ctx:
        for path in related:
            a, b = mine, theirs
            for step in path.split("__"):
                a, b = getattr(a, step, None), getattr(b, step, None)
            assert (a is None) == (b is None), path
            if a is not None:
                assert type(a) is type(b) and fields(a) == fields(b), path
    assert ctx.captured_queries == []


def orm(assignment_id: int, user, related) -> Assignment:
    return (
        Assignment.objects.filter(annotator=user, withdrawn_at__isnull=True)
        .select_related(*related)
        .defer("pair__project__guidelines", "pair__project__description")
        .get(pk=assignment_id)
    )


@pytest.mark.parametrize("with_seed", [True, False])
@pytest.mark.parametrize("name", ["a", "c"])  # "c": no subcorpus; "a" gets an annotation
def test_the_compiled_read_answers_what_the_orm_does(grid, name, with_seed):
    assignment = grid.mine[name]
    if name == "a":
        save_annotation(
            assignment=assignment, user=grid.annotator, links=[[0, 0, "S"]], base_version=0
        )
    related = GRID_RELATED if with_seed else GRID_PAGE_RELATED
    mine = get_own_assignment(assignment_id=assignment.pk, user=grid.annotator, with_seed=with_seed)
    same_graph(mine, orm(assignment.pk, grid.annotator, related), related)
    assert (mine.pair.subcorpus is None) == (name == "c")
    assert mine.pair.project.get_deferred_fields() == {"guidelines", "description"}


def test_the_compiled_read_finds_only_the_users_own_live_assignment(grid):
    theirs = grid.theirs["a"]
    assert get_own_assignment(assignment_id=theirs.pk, user=grid.annotator) is None
    assert get_own_assignment(assignment_id=10**9, user=grid.annotator) is None
    mine = grid.mine["b"]
    Assignment.objects.filter(pk=mine.pk).update(withdrawn_at="2026-01-01T00:00:00Z")
    assert get_own_assignment(assignment_id=mine.pk, user=grid.annotator) is None


def test_the_save_lock_read_carries_the_annotators_latest_activity(grid):
    """The save's read (row lock, pair, annotation, seed without its matrix, and the
    annotator's latest activity on any pair) as the ORM reads it."""
    for name in ("a", "b"):
        save_annotation(assignment=grid.mine[name], user=grid.annotator, links=[], base_version=0)
    query = CompiledQuery("test_save_lock", _locked_for_save, {"assignment": -1, "annotator": -2})
    with transaction.atomic():
        (mine,) = query.fetch(assignment=grid.mine["c"].pk, annotator=grid.annotator.pk)
        theirs = _locked_for_save(grid.mine["c"].pk, grid.annotator.pk)[0]
    same_graph(mine, theirs, ("pair", "seed"))
    latest = Assignment.objects.filter(annotator=grid.annotator).aggregate(
        m=Max("last_activity_at")
    )
    assert mine.user_last_activity == theirs.user_last_activity == latest["m"]
    assert "posteriors" in mine.seed.get_deferred_fields()


def test_a_stand_in_missing_from_the_sql_is_refused(grid):
    def build(assignment, annotator):
        return Assignment.objects.filter(pk=assignment)  # never uses ``annotator``

    query = CompiledQuery("test_missing", build, {"assignment": -11, "annotator": -12})
    with pytest.raises(ValueError, match="annotator"):
        query.fetch(assignment=1, annotator=2)


def test_placeholders_are_numbered_for_prepare():
    sql = "SELECT %s, x LIKE 'a%%' FROM t WHERE y = %s AND z = '%%s'"
    assert numbered_parameters(sql) == "SELECT $1, x LIKE 'a%' FROM t WHERE y = $2 AND z = '%s'"


def executed(ctx) -> list[str]:
    return [q["sql"].split()[0] for q in ctx.captured_queries]


@POSTGRES
def test_prepared_once_per_connection_then_run_by_name(postgresql, grid):
    query = CompiledQuery("test_once", _own_read, {"assignment": -21, "annotator": -22})
    mine = grid.mine["b"]
    with CaptureQueriesContext(connection) as first:
        query.fetch(assignment=mine.pk, annotator=grid.annotator.pk)
    with CaptureQueriesContext(connection) as second:
        (again,) = query.fetch(assignment=mine.pk, annotator=grid.annotator.pk)
    assert executed(first) == ["PREPARE", "EXECUTE"] and executed(second) == ["EXECUTE"]
    assert again.pk == mine.pk and again.pair.external_id == "pair-b"


@POSTGRES
def test_a_prepared_statement_outlives_a_rollback(postgresql, grid):
    query = CompiledQuery("test_rollback", _own_read, {"assignment": -31, "annotator": -32})
    mine = grid.mine["b"]
    with pytest.raises(RuntimeError), transaction.atomic():
        query.fetch(assignment=mine.pk, annotator=grid.annotator.pk)
        raise RuntimeError("rolled back")
    with CaptureQueriesContext(connection) as ctx:
        (again,) = query.fetch(assignment=mine.pk, annotator=grid.annotator.pk)
    assert executed(ctx) == ["EXECUTE"] and again.pk == mine.pk


@POSTGRES
@pytest.mark.django_db(transaction=True)
def test_a_new_connection_prepares_again(postgresql, grid):
    query = CompiledQuery("test_reconnect", _own_read, {"assignment": -41, "annotator": -42})
    mine = grid.mine["b"]
    query.fetch(assignment=mine.pk, annotator=grid.annotator.pk)
    connection.close()
    with CaptureQueriesContext(connection) as ctx:
        (again,) = query.fetch(assignment=mine.pk, annotator=grid.annotator.pk)
    assert executed(ctx) == ["PREPARE", "EXECUTE"] and again.pk == mine.pk


@POSTGRES
def test_the_setting_turns_prepared_statements_off(postgresql, grid, settings):
    settings.GRIDALIGN_PREPARED_STATEMENTS = False
    query = CompiledQuery("test_off", _own_read, {"assignment": -51, "annotator": -52})
    with CaptureQueriesContext(connection) as ctx:
        (found,) = query.fetch(assignment=grid.mine["b"].pk, annotator=grid.annotator.pk)
    assert executed(ctx) == ["SELECT"] and found.pk == grid.mine["b"].pk


def _own_read(assignment: int, annotator: int):
    return Assignment.objects.filter(pk=assignment, annotator_id=annotator).select_related("pair")


@pytest.mark.parametrize("recorded", [True, False])
def test_a_compiled_values_list_answers_the_orms_tuples(grid, recorded):
    """The seed's validator (a values_list with subqueries) as the ORM answers it, whether the
    assignment records its seed or takes the pair's latest."""
    from annotator.grid.selectors.grid import _seed_validator_of, seed_validator

    assignment = grid.mine["b"]
    if not recorded:
        Assignment.objects.filter(pk=assignment.pk).update(seed=None)
    found = seed_validator(assignment_id=assignment.pk, user=grid.annotator)
    expected = _seed_validator_of(assignment.pk, grid.annotator.pk).get()
    assert (found.seed_id, found.aligner_run_id, found.created_at) == expected
    assert found.seed_id == assignment.seed_id and found.created_at is not None
    assert seed_validator(assignment_id=grid.theirs["a"].pk, user=grid.annotator) is None
