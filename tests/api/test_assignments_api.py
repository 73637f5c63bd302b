"""``/api/assignments/``: the grid's data endpoints, per the grid contract — who may reach
what (only the assignment's own annotator), the blind rule on every endpoint, saves with
versions (409 when stale, nothing written), bad links (400 naming the link), submitted (403),
flags, the queue's order and trial feedback."""

# ruff: noqa: F811 (the ``grid`` fixture is imported from tests/app and used as an argument)

from __future__ import annotations

import base64
import json

import pytest
from django.test import Client

from annotator.models import Annotation, AnnotationRevision, Assignment
from tests.app.conftest import fast_password_hashing, make_user  # noqa: F401 (fixtures)
from tests.app.grid_fixtures import (
    GOLD_LINKS,
    OTHERS_LINKS,
    SEED_LINKS,
    SOURCE,
    TARGET,
    TRIAL_REFERENCE,
    as_text,
    grid,  # noqa: F401 (fixture)
    leaked_cells,
    posterior_bytes,
)

pytestmark = pytest.mark.django_db

MY_LINKS = [[0, 0, "S"], [3, 2, "P"]]


def api(user=None, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    if user is not None:
        client.force_login(user)
    return client


def detail_url(assignment) -> str:
    return f"/api/assignments/{assignment.pk}/"


def put(client, assignment, body, **extra):
    return client.put(
        detail_url(assignment) + "annotation/",
        data=json.dumps(body),
        content_type="application/json",
        **extra,
    )


def post(client, url, body=None, **extra):
    return client.post(url, data=json.dumps(body or {}), content_type="application/json", **extra)


def writes() -> tuple[int, int, list]:
    return (
        Annotation.objects.count(),
        AnnotationRevision.objects.count(),
        list(Assignment.objects.order_by("pk").values_list("status", "last_activity_at")),
    )


# --- who may reach an assignment ------------------------------------------------------------


ENDPOINTS = [
    ("get", ""),
    ("get", "annotation/"),
    ("put", "annotation/"),
    ("post", "submit/"),
    ("post", "flag/"),
    ("delete", "flag/"),
]


@pytest.mark.parametrize("who", ["other", "lead", "outsider"])
@pytest.mark.parametrize(("method", "suffix"), ENDPOINTS)
def test_only_the_assignments_own_annotator_reaches_it(grid, who, method, suffix):
    client = api(getattr(grid, who))
    url = detail_url(grid.mine["a"]) + suffix
    body = {"version": 0, "links": MY_LINKS, "reason": "unsure"}
    before = writes()
    if method in ("get", "delete"):
        response = getattr(client, method)(url)
    else:
        response = getattr(client, method)(url, json.dumps(body), "application/json")
    assert response.status_code == 404
    assert writes() == before
    assert not leaked_cells(as_text(response))


@pytest.mark.parametrize(("method", "suffix"), ENDPOINTS)
def test_anonymous_requests_are_refused(grid, method, suffix):
    response = getattr(api(), method)(detail_url(grid.mine["a"]) + suffix)
    assert response.status_code in (401, 403)
    assert api().get("/api/assignments/").status_code in (401, 403)


def test_withdrawn_assignment_is_gone_from_the_api(grid):
    from django.utils import timezone

    Assignment.objects.filter(pk=grid.mine["b"].pk).update(withdrawn_at=timezone.now())
    client = api(grid.annotator)
    assert client.get(detail_url(grid.mine["b"])).status_code == 404
    assert put(client, grid.mine["b"], {"version": 0, "links": []}).status_code == 404
    ids = [row["id"] for row in client.get("/api/assignments/").json()["results"]]
    assert grid.mine["b"].pk not in ids


def test_writes_need_the_csrf_token_with_a_session(grid):
    client = api(grid.annotator, csrf=True)
    response = put(client, grid.mine["a"], {"version": 0, "links": MY_LINKS})
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]
    assert Annotation.objects.filter(assignment=grid.mine["a"]).count() == 0
    page = client.get(f"/annotate/{grid.mine['a'].pk}/")  # sets the csrftoken cookie
    assert page.status_code == 200
    token = client.cookies["csrftoken"].value
    response = put(
        client, grid.mine["a"], {"version": 0, "links": MY_LINKS}, HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 200


# --- the detail -----------------------------------------------------------------------------


def test_detail_has_pair_seed_posteriors_queue_and_urls(grid):
    data = api(grid.annotator).get(detail_url(grid.mine["b"])).json()
    assert data["id"] == grid.mine["b"].pk and data["project"] == grid.project.pk
    assert data["status"] == "assigned" and data["flag"] is None
    assert data["pair"] == {
        "id": grid.pairs["b"].pk,
        "external_id": "pair-b",
        "subcorpus": "news",
        "is_trial": False,
        "source": SOURCE,
        "target": TARGET,
    }
    assert data["seed"] == {"links": SEED_LINKS, "aligner_run": grid.run.pk}
    post = data["posteriors"]
    assert (post["rows"], post["cols"], post["scale"]) == (len(SOURCE), len(TARGET), 255)
    assert base64.b64decode(post["data"]) == posterior_bytes(len(SOURCE), len(TARGET))
    assert data["annotation"] is None  # never saved: the grid starts from the seed
    assert data["feedback"] is None
    # the trial pair comes first while it is unsubmitted: trial, a, b, c
    assert data["queue"] == {
        "position": 3,
        "total": 4,
        "submitted": 0,
        "next": grid.mine["c"].pk,
        "previous": grid.mine["a"].pk,
    }
    urls = data["urls"]
    assert urls["annotation"] == detail_url(grid.mine["b"]) + "annotation/"
    assert urls["submit"] == detail_url(grid.mine["b"]) + "submit/"
    assert urls["flag"] == detail_url(grid.mine["b"]) + "flag/"
    assert urls["page"] == f"/annotate/{grid.mine['b'].pk}/"
    assert urls["queue"] == f"/projects/{grid.project.pk}/queue/"
    assert urls["guidelines"] == f"/projects/{grid.project.pk}/guidelines/"
    assert urls["next_page"] == f"/annotate/{grid.mine['c'].pk}/"
    assert urls["previous_page"] == f"/annotate/{grid.mine['a'].pk}/"


def test_a_seeds_posteriors_come_with_the_assignment_in_one_query(grid):
    """Issue 32: the API's detail reads the seed, its posterior matrix included, in the
    assignment's own query (no separate read of the matrix, no per-process cache that misses
    on a first opening); the grid page reads no matrix at all (its script fetches it from the
    seed endpoint, which answers the same matrix); a pair's matrix is its own seed's."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.captured import statements

    client = api(grid.annotator)
    assignment = grid.mine["c"]
    with CaptureQueriesContext(connection) as opening:
        page = client.get(f"/annotate/{assignment.pk}/")
    assert page.status_code == 200
    assert not [sql for sql in statements(opening) if "posteriors" in sql.lower()]
    with CaptureQueriesContext(connection) as reading:
        data = client.get(detail_url(assignment)).json()
    reads = [sql for sql in statements(reading) if "posteriors" in sql.lower()]
    assert len(reads) == 1, reads  # the assignment's own query
    assert all('FROM "annotator_assignment"' in sql for sql in reads), reads
    first = data["posteriors"]
    assert base64.b64decode(first["data"]) == posterior_bytes(len(SOURCE), len(TARGET))
    assert first["data"] not in page.content.decode()  # the page carries no matrix...
    seed_answer = client.get(data["urls"]["seed"]).json()  # ...the seed endpoint the same one
    assert seed_answer["posteriors"] == first
    seed = assignment.seed
    seed.posteriors = bytes(len(SOURCE) * len(TARGET))  # a matrix written by hand: no cache
    seed.save(update_fields=["posteriors"])
    zeros = client.get(detail_url(assignment)).json()["posteriors"]
    assert base64.b64decode(zeros["data"]) == bytes(len(SOURCE) * len(TARGET))
    other = client.get(detail_url(grid.mine["a"])).json()
    assert other["posteriors"] == first  # same bytes in the fixture, but from its own seed
    assert other["seed"]["links"] == SEED_LINKS


def test_pair_without_seed_or_subcorpus_gives_nulls(grid):
    assignment = grid.mine["c"]
    Assignment.objects.filter(pk=assignment.pk).update(seed=None)
    assignment.pair.seeds.all().delete()
    data = api(grid.annotator).get(detail_url(assignment)).json()
    assert data["pair"]["subcorpus"] is None
    assert data["seed"] is None and data["posteriors"] is None
    assert api(grid.annotator).get(detail_url(assignment) + "annotation/").json() == {
        "version": 0,
        "links": [],
        "updated_at": None,
    }


def test_blind_rule_on_every_read_of_a_doubly_annotated_pair_with_gold(grid):
    client = api(grid.annotator)
    assignment = grid.mine["a"]
    responses = [
        client.get(detail_url(assignment)),
        client.get(detail_url(assignment) + "annotation/"),
        client.get("/api/assignments/"),
        client.get(f"/api/assignments/?project={grid.project.pk}"),
        put(client, assignment, {"version": 0, "links": MY_LINKS}),
        put(client, assignment, {"version": 0, "links": MY_LINKS}),  # 409 shows own current
        post(client, detail_url(assignment) + "flag/", {"reason": "unsure"}),
        post(client, detail_url(assignment) + "submit/", {"version": 1, "links": MY_LINKS}),
        client.get(detail_url(assignment)),
    ]
    assert [r.status_code for r in responses] == [200, 200, 200, 200, 200, 409, 200, 200, 200]
    for response in responses:
        assert not leaked_cells(as_text(response)), response.content
    # the other annotator's work and the gold are still there: the test could have failed
    assert Annotation.objects.get(assignment=grid.theirs["a"]).links == OTHERS_LINKS
    assert grid.pairs["a"].gold.links == GOLD_LINKS


# --- saving ---------------------------------------------------------------------------------


def test_never_saved_annotation_starts_from_the_seed_and_put_saves_version_1(grid):
    client = api(grid.annotator)
    assignment = grid.mine["b"]
    assert client.get(detail_url(assignment) + "annotation/").json() == {
        "version": 0,
        "links": SEED_LINKS,
        "updated_at": None,
    }
    response = put(client, assignment, {"version": 0, "links": [[3, 2, "P"], [0, 0, "S"]]})
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 1 and body["status"] == "in_progress"
    assert body["links"] == MY_LINKS  # stored sorted
    assert body["updated_at"]
    again = client.get(detail_url(assignment) + "annotation/").json()
    assert again == {k: body[k] for k in ("version", "links", "updated_at")}
    revision = AnnotationRevision.objects.get(annotation__assignment=assignment)
    assert (revision.version, revision.kind, revision.author) == (1, "autosave", grid.annotator)
    # MY_LINKS vs the seed, ignoring S/P: (0,0) both; (3,2) only mine; (1,0), (2,1) only seed
    assert revision.edits_from_seed == 3


def test_a_save_reads_no_posterior_matrix_and_a_bounded_number_of_queries(grid):
    """Issue 32: a save's work is the annotation. The seed's posterior matrix (N×M bytes) is
    the grid's to draw, not the save's: no query of a save selects it, and the count stays
    what the save needs (session, user, the assignment, the lock, the activity, the writes)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.captured import statements

    client = api(grid.annotator)
    assignment = grid.mine["b"]
    client.get("/api/assignments/")  # the session and user are warm
    with CaptureQueriesContext(connection) as saving:
        response = put(client, assignment, {"version": 0, "links": MY_LINKS})
    assert response.status_code == 200 and response.json()["version"] == 1
    sql = [q.lower() for q in statements(saving)]  # a prepared statement's own text
    assert not [q for q in sql if "posteriors" in q], sql
    assert len(sql) <= 12, sql
    # the save still counted its edits against the seed's links
    assert AnnotationRevision.objects.get(annotation__assignment=assignment).edits_from_seed == 3


def test_stale_version_is_409_with_the_current_state_and_nothing_written(grid):
    client = api(grid.annotator)
    assignment = grid.mine["b"]
    first = put(client, assignment, {"version": 0, "links": MY_LINKS}).json()
    before = writes()
    response = put(client, assignment, {"version": 0, "links": [[6, 0, "S"]]})
    assert response.status_code == 409
    body = response.json()
    assert "version 1" in body["error"]
    assert body["current"] == {k: first[k] for k in ("version", "links", "updated_at")}
    assert writes() == before
    ahead = put(client, assignment, {"version": 7, "links": []})
    assert ahead.status_code == 409 and writes() == before


@pytest.mark.parametrize(
    ("links", "names"),
    [
        ([[0, 0, "S"], [5, 9, "S"]], ["5-9", "target index 9"]),
        ([[7, 1, "P"]], ["7-1", "source index 7"]),
        ([[0, 0, "S"], [0, 0, "P"]], ["link #2", "duplicate link 0-0"]),
        ([[0, 0, "X"]], ["link #1", "'X'"]),
        ([[0, "a", "S"]], ["link #1", "integers"]),
        ({"0": 1}, ["must be a list"]),
    ],
)
def test_bad_links_are_400_naming_the_link_and_nothing_written(grid, links, names):
    client = api(grid.annotator)
    before = writes()
    for url_method in ("put", "submit"):
        body = {"version": 0, "links": links}
        if url_method == "put":
            response = put(client, grid.mine["b"], body)
        else:
            response = post(client, detail_url(grid.mine["b"]) + "submit/", body)
        assert response.status_code == 400
        problems = " ".join(response.json()["links"])
        for name in names:
            assert name in problems and name in response.json()["error"]
    assert writes() == before


@pytest.mark.parametrize(
    "body", [{}, {"links": []}, {"version": -1, "links": []}, {"version": "x"}]
)
def test_missing_or_bad_version_is_400(grid, body):
    before = writes()
    response = put(api(grid.annotator), grid.mine["b"], body)
    assert response.status_code == 400 and "version" in response.json()
    assert writes() == before


def test_submit_marks_submitted_then_saves_are_403(grid):
    client = api(grid.annotator)
    assignment = grid.mine["b"]
    put(client, assignment, {"version": 0, "links": MY_LINKS})
    response = post(client, detail_url(assignment) + "submit/", {"version": 1, "links": MY_LINKS})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "submitted" and body["version"] == 2
    assert body["next"] == grid.mine["c"].pk  # the next pair still to do after this one
    assert body["next_page"] == f"/annotate/{grid.mine['c'].pk}/"
    assert body["feedback"] is None  # not a trial pair
    assignment.refresh_from_db()
    assert assignment.status == "submitted" and assignment.submitted_at is not None
    kinds = list(
        AnnotationRevision.objects.filter(annotation__assignment=assignment).values_list(
            "kind", flat=True
        )
    )
    assert kinds == ["autosave", "submit"]
    before = writes()
    for response in (
        put(client, assignment, {"version": 2, "links": []}),
        post(client, detail_url(assignment) + "submit/", {"version": 2, "links": []}),
    ):
        assert response.status_code == 403
        assert response.json()["error"] == "This pair was submitted; a lead can reopen it."
    assert writes() == before
    # a submitted pair can still be read
    assert client.get(detail_url(assignment)).json()["annotation"]["links"] == MY_LINKS


def test_submit_of_the_last_pair_wraps_to_an_earlier_unsubmitted_one_then_none(grid):
    client = api(grid.annotator)
    last = grid.mine["c"]
    body = post(client, detail_url(last) + "submit/", {"version": 0, "links": []}).json()
    assert body["next"] == grid.mine["trial"].pk  # first unsubmitted in queue order
    for name in ("trial", "a", "b"):
        response = post(
            client, detail_url(grid.mine[name]) + "submit/", {"version": 0, "links": []}
        )
        assert response.status_code == 200
    assert response.json()["next"] is None and response.json()["next_page"] is None


# --- flags ----------------------------------------------------------------------------------


def test_flag_set_shown_and_cleared(grid):
    client = api(grid.annotator)
    assignment = grid.mine["b"]
    url = detail_url(assignment) + "flag/"
    response = post(client, url, {"reason": "bad_tokenisation", "note": " 'can't' split "})
    assert response.status_code == 200
    assert response.json() == {"flag": {"reason": "bad_tokenisation", "note": "'can't' split"}}
    assignment.refresh_from_db()
    assert assignment.flag == "bad_tokenisation" and assignment.flagged_at is not None
    assert client.get(detail_url(assignment)).json()["flag"]["reason"] == "bad_tokenisation"
    # still saved and submitted while flagged
    assert put(client, assignment, {"version": 0, "links": []}).status_code == 200
    assert post(client, url, {"reason": ""}).json() == {"flag": None}
    post(client, url, {"reason": "other", "note": "x"})
    assert client.delete(url).json() == {"flag": None}
    assignment.refresh_from_db()
    assert (assignment.flag, assignment.flag_note, assignment.flagged_at) == ("", "", None)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"reason": "boring"}, "reason"),
        ({}, "reason"),
        ({"reason": "other", "note": "n" * 501}, "note"),
    ],
)
def test_bad_flag_is_400_and_nothing_changes(grid, body, field):
    response = post(api(grid.annotator), detail_url(grid.mine["b"]) + "flag/", body)
    assert response.status_code == 400 and field in response.json()
    assert Assignment.objects.get(pk=grid.mine["b"].pk).flag == ""


# --- the queue list -------------------------------------------------------------------------


def test_list_is_the_users_queue_in_order_with_filters(grid):
    client = api(grid.annotator)
    data = client.get(f"/api/assignments/?project={grid.project.pk}").json()
    assert data["count"] == 4 and data["next"] is None
    names = [row["pair"]["external_id"] for row in data["results"]]
    assert names == ["pair-trial", "pair-a", "pair-b", "pair-c"]
    assert all(row["project"] == grid.project.pk for row in data["results"])
    assert data["results"][0]["page"] == f"/annotate/{grid.mine['trial'].pk}/"
    post(client, detail_url(grid.mine["trial"]) + "submit/", {"version": 0, "links": []})
    put(client, grid.mine["c"], {"version": 0, "links": []})
    # trial submitted: back to plain position order
    names = [
        row["pair"]["external_id"]
        for row in client.get(f"/api/assignments/?project={grid.project.pk}").json()["results"]
    ]
    assert names == ["pair-a", "pair-b", "pair-c", "pair-trial"]
    in_progress = client.get("/api/assignments/?status=in_progress").json()
    assert [row["id"] for row in in_progress["results"]] == [grid.mine["c"].pk]
    assert client.get("/api/assignments/?status=nonsense").status_code == 400
    assert client.get("/api/assignments/?project=abc").status_code == 400
    paged = client.get("/api/assignments/?page_size=3").json()
    assert len(paged["results"]) == 3 and paged["next"]


def test_other_annotator_sees_only_their_own(grid):
    data = api(grid.other).get("/api/assignments/").json()
    assert sorted(row["id"] for row in data["results"]) == sorted(
        a.pk for a in grid.theirs.values()
    )
    assert api(grid.lead).get("/api/assignments/").json()["count"] == 0


# --- trial feedback -------------------------------------------------------------------------


def test_trial_reference_shown_only_after_the_annotator_submits(grid):
    client = api(grid.annotator)
    trial = grid.mine["trial"]
    before = client.get(detail_url(trial))
    assert before.json()["feedback"] is None
    assert "[3,3" not in before.content.decode().replace(" ", "")  # the reference's own cell
    mine = [[1, 0, "S"], [2, 1, "P"], [6, 0, "S"]]
    response = post(client, detail_url(trial) + "submit/", {"version": 0, "links": mine})
    feedback = response.json()["feedback"]
    assert feedback["reference"] == TRIAL_REFERENCE
    word = feedback["word_all_links"]
    # by hand, SPEC §3: A_S = {(1,0), (6,0)}, A_P adds (2,1); B_S = B_P = 4 reference links
    assert word["precision_sure"] == pytest.approx(1 / 2)  # (1,0) ∈ B_P
    assert word["recall_sure"] == pytest.approx(2 / 4)  # (1,0), (2,1) ∈ A_P
    assert word["f1"] == pytest.approx(0.5)
    assert set(feedback["word"]) >= {"precision_sure", "recall_sure", "f1", "aer"}
    assert client.get(detail_url(trial)).json()["feedback"] == feedback
    # the other annotator's trial links never appear, even in feedback
    assert not leaked_cells(as_text(response))
    assert not leaked_cells(as_text(client.get(detail_url(trial))))


def test_no_feedback_for_a_trial_pair_without_reference(grid):
    grid.pairs["trial"].gold.delete()
    client = api(grid.annotator)
    response = post(client, detail_url(grid.mine["trial"]) + "submit/", {"version": 0, "links": []})
    assert response.status_code == 200 and response.json()["feedback"] is None
