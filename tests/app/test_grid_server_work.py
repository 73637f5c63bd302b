"""The server's work for the grid (issue 32), counted in SQL queries: opening the grid page, the
grid's data request, a save, and the seed endpoint whose ETag lets a browser revalidate a
pair's seed and posteriors with a 304 after one query. Every count includes the two queries
every logged-in request pays (the session and the user)."""

# ruff: noqa: F811 (the ``grid`` fixture is imported and used as an argument)

from __future__ import annotations

import json
from datetime import datetime

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils.http import http_date

from annotator.models import AlignerRun, Annotation, AnnotationRevision, SeedAlignment
from tests.app.grid_fixtures import SEED_LINKS, SOURCE, TARGET, grid  # noqa: F401 (fixture)
from tests.captured import statements

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def put(client, assignment, version, links):
    return client.put(
        f"/api/assignments/{assignment.pk}/annotation/",
        data=json.dumps({"version": version, "links": links}),
        content_type="application/json",
    )


def warm(client, assignment) -> None:
    """One opening and two saves (the annotation's insert, then an update) of another pair, so
    that this test's connection has prepared the grid's statements (once per connection; see
    test_compiled_queries.py) and what is counted is every later request."""
    assert client.get(f"/annotate/{assignment.pk}/").status_code == 200
    assert client.get(f"/api/assignments/{assignment.pk}/").status_code == 200
    for version in (0, 1):
        assert put(client, assignment, version, [[0, 0, "S"]]).status_code == 200


def test_the_grid_page_costs_four_queries(grid, django_assert_num_queries):
    """Session, user, the assignment with its pair, project, subcorpus and annotation (no seed
    row: the script fetches it from the seed endpoint), then the opening's update and the queue
    place: ONE statement on PostgreSQL (two on SQLite)."""
    client = logged_in(grid.annotator)
    warm(client, grid.mine["a"])
    assignment = grid.mine["b"]
    put(client, assignment, 0, [[0, 0, "S"]])  # with an annotation to read
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"/annotate/{assignment.pk}/")
    assert response.status_code == 200
    assert len(ctx.captured_queries) == (4 if connection.vendor == "postgresql" else 5)
    assert not any("annotator_seedalignment" in s for s in statements(ctx))
    assert not any('"guidelines"' in s for s in statements(ctx))  # the project's long texts
    page = response.content.decode()
    assert '"version": 1' in page and '"posteriors":' not in page


def test_the_opening_with_the_place_records_what_the_opening_does(grid):
    """The page's one statement records the opening as open_assignment does (started, last
    activity, the seed started from) and answers the same queue place as the API."""
    client = logged_in(grid.annotator)
    assignment = grid.mine["c"]
    seed = assignment.seed
    assignment.seed = None
    assignment.save(update_fields=["seed"])
    response = client.get(f"/annotate/{assignment.pk}/")
    assert response.status_code == 200
    assignment.refresh_from_db()
    assert assignment.started_at is not None and assignment.last_activity_at is not None
    assert assignment.seed_id == seed.pk  # the pair's latest seed, recorded at the opening
    first = assignment.started_at
    client.get(f"/annotate/{assignment.pk}/")
    assignment.refresh_from_db()
    assert assignment.started_at == first < assignment.last_activity_at
    page = response.content.decode()
    api = client.get(f"/api/assignments/{assignment.pk}/").json()
    assert json.dumps(api["queue"]) in page
    assert api["queue"] == {"position": 4, "total": 4, "submitted": 0, "next": None,
                            "previous": grid.mine["b"].pk}  # fmt: skip
    assert logged_in(grid.other).get(f"/annotate/{assignment.pk}/").status_code == 404


def test_the_grid_data_costs_four_queries(grid, django_assert_num_queries):
    client = logged_in(grid.annotator)
    warm(client, grid.mine["a"])
    assignment = grid.mine["c"]
    with django_assert_num_queries(4):
        data = client.get(f"/api/assignments/{assignment.pk}/").json()
    assert data["seed"]["links"] == SEED_LINKS and data["posteriors"]["rows"] == len(SOURCE)
    assert data["queue"] == {"position": 4, "total": 4, "submitted": 0, "next": None,
                             "previous": grid.mine["b"].pk}  # fmt: skip


def test_a_save_is_one_locked_read_and_one_write(grid, django_assert_num_queries):
    """Session, user, the transaction (a savepoint inside the test's own), ONE locked read of
    the row with everything the save checks, then the annotation, its revision and the
    assignment's activity: ONE statement on PostgreSQL (three on SQLite); no re-read of the
    assignment, no separate read of the annotator's activity."""
    client = logged_in(grid.annotator)
    warm(client, grid.mine["a"])
    assignment = grid.mine["b"]
    one_write = connection.vendor == "postgresql"
    for version in (0, 1):  # the first save inserts the annotation, the next updates it
        with CaptureQueriesContext(connection) as ctx:
            response = put(client, assignment, version, [[version, 0, "S"]])
        assert response.status_code == 200, response.content
        assert response.json()["version"] == version + 1
        sql = statements(ctx)
        assert len(sql) == (6 if one_write else 8), sql
        reads = [s for s in sql if s.startswith("SELECT") and "annotator_assignment" in s]
        assert len(reads) == 1, reads
        if one_write:  # SQLite has no row locks (see services.py) nor writable CTEs
            assert "FOR UPDATE" in reads[0], reads
            write = sql[-2]  # before the savepoint's release
            for table in ("annotation", "annotationrevision", "assignment"):
                assert f'"annotator_{table}"' in write, write
    revisions = AnnotationRevision.objects.filter(annotation__assignment=assignment)
    assert list(revisions.values_list("version", flat=True)) == [1, 2]
    assert revisions.last().elapsed_seconds >= 0


def close(a: datetime, b: datetime) -> bool:
    """The same moment of a save (the ORM's auto_now fields read the clock each on its own)."""
    return abs((a - b).total_seconds()) < 5


def test_the_one_write_stores_what_the_save_answers(grid):
    """The annotation, the revision and the assignment as the save's answer and the history
    describe them, read back from the database: the first save (insert) and the next
    (update), then a submit."""
    client = logged_in(grid.annotator)
    assignment = grid.mine["b"]
    first = put(client, assignment, 0, [[0, 0, "S"], [1, 1, "P"]]).json()
    second = put(client, assignment, 1, [[2, 0, "S"]]).json()
    stored = Annotation.objects.get(assignment=assignment)
    assert (stored.version, stored.links) == (2, [[2, 0, "S"]])
    assert stored.updated_at.isoformat() == second["updated_at"] != first["updated_at"]
    assert close(stored.created_at, datetime.fromisoformat(first["updated_at"]))
    history = list(AnnotationRevision.objects.filter(annotation=stored).order_by("version"))
    assert [(r.version, r.kind, r.links, r.author_id) for r in history] == [
        (1, "autosave", [[0, 0, "S"], [1, 1, "P"]], grid.annotator.pk),
        (2, "autosave", [[2, 0, "S"]], grid.annotator.pk),
    ]
    assert close(history[1].created_at, stored.updated_at)
    assert history[0].edits_from_seed == len({(i, j) for i, j, _ in SEED_LINKS} ^ {(0, 0), (1, 1)})
    assignment.refresh_from_db()
    assert assignment.status == "in_progress"
    assert close(assignment.last_activity_at, stored.updated_at)
    assert assignment.started_at is not None and assignment.submitted_at is None
    done = client.post(
        f"/api/assignments/{assignment.pk}/submit/",
        data=json.dumps({"version": 2, "links": [[2, 0, "S"]]}),
        content_type="application/json",
    )
    assert done.status_code == 200 and done.json()["status"] == "submitted"
    assignment.refresh_from_db()
    assert assignment.status == "submitted" and assignment.submitted_at is not None
    assert AnnotationRevision.objects.filter(annotation=stored).last().kind == "submit"


def test_a_save_still_refuses_what_it_must_after_one_read(grid):
    """The one locked read keeps every guarantee: a stale version is a 409 naming the stored
    state, another annotator's assignment a 404, bad links a 400; nothing written by any."""
    client = logged_in(grid.annotator)
    assignment = grid.mine["b"]
    assert put(client, assignment, 0, [[0, 0, "S"]]).status_code == 200
    stale = put(client, assignment, 0, [[1, 1, "S"]])
    assert stale.status_code == 409 and stale.json()["current"]["version"] == 1
    theirs = put(logged_in(grid.other), assignment, 1, [])
    assert theirs.status_code == 404
    bad = put(client, assignment, 1, [[0, 99, "S"]])
    assert bad.status_code == 400 and "0-99" in bad.json()["links"][0]
    assert Annotation.objects.get(assignment=assignment).links == [[0, 0, "S"]]
    assert AnnotationRevision.objects.filter(annotation__assignment=assignment).count() == 1


def seed_url(assignment) -> str:
    return f"/api/assignments/{assignment.pk}/seed/"


def test_the_seed_revalidates_with_304_after_one_query(grid, django_assert_num_queries):
    client = logged_in(grid.annotator)
    assignment = grid.mine["a"]
    first = client.get(seed_url(assignment))
    assert first.status_code == 200
    assert first.json()["seed"] == {"links": SEED_LINKS, "aligner_run": grid.run.pk}
    assert first.json()["posteriors"]["rows"] == len(SOURCE)
    assert first.json()["posteriors"]["cols"] == len(TARGET)
    assert first["Cache-Control"] == "private, no-cache"
    etag, modified = first["ETag"], first["Last-Modified"]
    assert etag.startswith('"seed-') and modified == http_date(
        int(assignment.seed.created_at.timestamp())
    )
    with django_assert_num_queries(3):  # session, user, the validator
        again = client.get(seed_url(assignment), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == etag
    with django_assert_num_queries(3):
        since = client.get(seed_url(assignment), HTTP_IF_MODIFIED_SINCE=modified)
    assert since.status_code == 304
    other = client.get(seed_url(grid.mine["b"]), HTTP_IF_NONE_MATCH=etag)
    assert other.status_code == 200 and other["ETag"] != etag  # another pair's own seed


def test_a_new_aligner_run_changes_the_validator(grid):
    """A reseeding writes a new seed under a new aligner run: the old ETag no longer holds,
    and the answer is the new seed's."""
    client = logged_in(grid.annotator)
    assignment = grid.mine["a"]
    old = client.get(seed_url(assignment))["ETag"]
    run = AlignerRun.objects.create(project=grid.project)
    new_links = [[0, 1, "S"]]
    seed = SeedAlignment.objects.create(
        pair=assignment.pair,
        aligner_run=run,
        links=new_links,
        posteriors=bytes(len(SOURCE) * len(TARGET)),
    )
    assignment.seed = seed  # what seeding does to an assignment not started yet
    assignment.save(update_fields=["seed"])
    fresh = client.get(seed_url(assignment), HTTP_IF_NONE_MATCH=old)
    assert fresh.status_code == 200 and fresh["ETag"] != old
    assert fresh.json()["seed"] == {"links": new_links, "aligner_run": run.pk}
    # an assignment with no seed recorded starts from its pair's latest seed: the same one
    assignment.seed = None
    assignment.save(update_fields=["seed"])
    latest = client.get(seed_url(assignment), HTTP_IF_NONE_MATCH=fresh["ETag"])
    assert latest.status_code == 304


def test_the_seed_endpoint_is_the_annotators_own(grid):
    """The blind rule as everywhere: another annotator, an outsider and an anonymous request
    reach no assignment of someone else's, whatever validator they send."""
    assignment = grid.mine["a"]
    etag = logged_in(grid.annotator).get(seed_url(assignment))["ETag"]
    for user in (grid.other, grid.outsider, grid.lead):
        response = logged_in(user).get(seed_url(assignment), HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 404, user
    assert Client().get(seed_url(assignment)).status_code in (401, 403)
    assert logged_in(grid.annotator).get("/api/assignments/x/seed/").status_code == 404


def test_a_pair_without_seed_has_a_validator_too(grid):
    assignment = grid.mine["c"]
    assignment.seed = None
    assignment.save(update_fields=["seed"])
    assignment.pair.seeds.all().delete()
    client = logged_in(grid.annotator)
    first = client.get(seed_url(assignment))
    assert first.json() == {"seed": None, "posteriors": None}
    assert client.get(seed_url(assignment), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


@pytest.mark.integration  # PostgreSQL's commit setting: not in CI's SQLite pass
@pytest.mark.django_db(transaction=True)
def test_the_opening_alone_commits_asynchronously_and_saves_do_not(grid):
    """The opening's own statement turns synchronous_commit off for its transaction only (its
    RETURNING is computed although nothing reads it); the connection's next transactions, a
    save among them, commit synchronously. Inside a caller's transaction the opening leaves the
    setting alone."""
    from django.db import transaction

    from annotator.grid import services
    from tests.conftest import need

    need(connection.vendor == "postgresql", "PostgreSQL")

    def setting() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            return cursor.fetchone()[0]

    assignment = grid.mine["b"]
    with transaction.atomic(), connection.cursor() as cursor:  # what the statement does inside
        cursor.execute(services._OPENED_ASYNC + " SELECT 1", [None, None, None, assignment.pk])
        assert setting() == "off"
    assert setting() == "on"
    client = logged_in(grid.annotator)
    assert client.get(f"/annotate/{assignment.pk}/").status_code == 200  # autocommit: async
    assert setting() == "on"
    assert put(client, assignment, 0, [[0, 0, "S"]]).status_code == 200
    assert setting() == "on"
    with transaction.atomic():
        services.open_assignment_with_place(assignment=assignment, user=grid.annotator)
        assert setting() == "on"
