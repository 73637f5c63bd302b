"""Adjudication (issue 8 §6) and the lead's permissions (§7): the overlay's classes and starting
points, the gold API (save, conflict, bad links), and every lead page and endpoint refused to
annotators, outsiders and anonymous visitors — without a byte of data."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from annotator.gold.selectors import combine
from annotator.models import Assignment, GoldAlignment, GoldRevision
from tests.app.lead_helpers import save_work

pytestmark = pytest.mark.django_db

A = [[0, 0, "S"], [1, 1, "S"], [2, 2, "P"], [0, 3, "S"]]
B = [[0, 0, "S"], [1, 1, "P"], [2, 2, "P"], [2, 3, "P"]]


def test_overlay_classes_and_starting_points():
    c = combine(A, B)
    assert c["counts"] == {"both_sure": 1, "both_possible": 1, "mismatch": 1, "only_a": 1,
                           "only_b": 1}  # fmt: skip
    assert c["intersection"] == [[0, 0, "S"], [1, 1, "P"], [2, 2, "P"]]
    assert c["union"] == [[0, 0, "S"], [0, 3, "S"], [1, 1, "S"], [2, 2, "P"], [2, 3, "P"]]
    assert c["a"] == sorted(A) and c["b"] == sorted(B)
    assert combine(None, None)["intersection"] == []


@pytest.fixture
def double(pair, annotator, make_user):
    other = make_user("second_annotator")
    pair.project.memberships.create(user=other, role="annotator")
    first = Assignment.objects.create(pair=pair, annotator=annotator, slot=1)
    second = Assignment.objects.create(pair=pair, annotator=other, slot=2)
    save_work(first, A[:3], submit=True)
    save_work(second, B, submit=True)
    return pair


def gold_url(pair) -> str:
    return f"/api/projects/{pair.project_id}/pairs/{pair.pk}/gold/"


def page_url(pair) -> str:
    return f"/projects/{pair.project_id}/adjudicate/{pair.pk}/"


def put(client, url, body):
    return client.put(url, data=json.dumps(body), content_type="application/json")


def test_the_page_embeds_both_sides_by_slot(client_for, lead, double):
    response = client_for(lead).get(page_url(double))
    assert response.status_code == 200
    html = response.content.decode()
    data = json.loads(html.split('id="adjudication-data" type="application/json">')[1]
                      .split("</script>")[0])  # fmt: skip
    assert data["a"]["annotator"] == "annotator_user" and data["a"]["links"] == A[:3]
    assert data["b"]["annotator"] == "second_annotator" and data["b"]["links"] == B
    assert data["combined"]["intersection"] == [[0, 0, "S"], [1, 1, "P"], [2, 2, "P"]]
    assert "gridalign/adjudicate.js" in html


def test_lead_saves_gold_with_a_note_then_a_stale_save_conflicts(client_for, lead, double):
    client = client_for(lead)
    ok = put(client, gold_url(double), {"version": 0, "links": [[1, 1, "S"]], "note": "B too shy"})
    assert ok.status_code == 200, ok.content
    assert ok.json()["version"] == 1 and ok.json()["adjudicator"] == "lead_user"
    rev = GoldRevision.objects.get()
    assert (rev.origin, rev.author, rev.note, rev.links) == (
        "adjudicated", lead, "B too shy", [[1, 1, "S"]],
    )  # fmt: skip
    stale = put(client, gold_url(double), {"version": 0, "links": [], "note": ""})
    assert stale.status_code == 409 and stale.json()["current"]["version"] == 1
    assert GoldRevision.objects.count() == 1
    history = client.get(gold_url(double)).json()["history"]
    assert [h["version"] for h in history] == [1] and history[0]["note"] == "B too shy"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"version": 0, "links": [[0, 9, "S"]]}, "target index 9"),
        ({"version": 0, "links": "all"}, "must be a list"),
        ({"links": []}, "version"),
        ({"version": -1, "links": []}, "version"),
    ],
)
def test_bad_input_is_a_400_naming_it_and_writes_nothing(client_for, lead, double, body, says):
    response = put(client_for(lead), gold_url(double), body)
    assert response.status_code == 400
    assert says in json.dumps(response.json())
    assert not GoldAlignment.objects.exists()


def test_a_pair_of_another_project_is_404(client_for, lead, double, make_user):
    from annotator.models import Project, SentencePair

    elsewhere = Project.objects.create(name="elsewhere")
    alien = SentencePair.objects.create(project=elsewhere, external_id="z", source_tokens=["a"],
                                        target_tokens=["b"])  # fmt: skip
    url = f"/api/projects/{double.project_id}/pairs/{alien.pk}/gold/"
    assert put(client_for(lead), url, {"version": 0, "links": []}).status_code == 404
    assert (
        client_for(lead).get(f"/projects/{double.project_id}/adjudicate/{alien.pk}/").status_code
        == 404
    )


# --- permissions: every lead page and endpoint --------------------------------------------


def lead_urls(project, pair, assignment):
    p = project.pk
    return [
        ("get", f"/projects/{p}/members/"),
        ("post", f"/projects/{p}/members/"),
        ("get", f"/projects/{p}/assign/"),
        ("get", f"/projects/{p}/assign/?preview=1&annotators=1&share=0.5&random_seed=1"),
        ("post", f"/projects/{p}/assign/"),
        ("get", f"/projects/{p}/progress/"),
        ("post", f"/projects/{p}/assignments/{assignment.pk}/withdraw/"),
        ("post", f"/projects/{p}/assignments/{assignment.pk}/reopen/"),
        ("post", f"/projects/{p}/assignments/{assignment.pk}/restore/"),
        ("post", f"/projects/{p}/assignments/{assignment.pk}/reassign/"),
        ("get", f"/projects/{p}/adjudicate/"),
        ("get", f"/projects/{p}/adjudicate/{pair.pk}/"),
        ("get", f"/api/projects/{p}/pairs/{pair.pk}/gold/"),
        ("put", f"/api/projects/{p}/pairs/{pair.pk}/gold/"),
    ]


@pytest.mark.parametrize("who", ["annotator", "outsider", "anonymous"])
def test_nobody_but_a_lead_reaches_the_lead_pages(client, request, double, lead, who):
    assignment = Assignment.objects.filter(pair=double).first()
    GoldAlignment.objects.create(pair=double, origin="single", links=[[0, 0, "S"]], note="SECRET")
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    for method, url in lead_urls(double.project, double, assignment):
        if method == "put":
            response = put(client, url, {"version": 1, "links": [], "note": "x"})
        else:
            response = getattr(client, method)(url, {})
        text = response.content.decode()
        if who == "anonymous":
            expected = (302, 401, 403)
        elif who == "annotator":
            expected = (403,)
        else:
            expected = (404,)
        assert response.status_code in expected, (who, method, url, response.status_code)
        if response.status_code == 302:
            assert response.url.startswith("/accounts/login/"), url
        # The page's own content (the header may name the logged-in user, as on every page).
        body = text.split("<main", 1)[-1]
        assert "SECRET" not in body and "annotator_user" not in body, url
    # nothing changed
    assignment.refresh_from_db()
    assert assignment.withdrawn_at is None and assignment.status == "submitted"
    assert GoldAlignment.objects.get(pair=double).version == 1


def test_staff_who_are_not_members_may_adjudicate(client_for, make_user, double):
    staff = make_user("boss", is_staff=True)
    client = client_for(staff)
    assert client.get(page_url(double)).status_code == 200
    assert put(client, gold_url(double), {"version": 0, "links": []}).status_code == 200


def test_lead_pages_render_for_a_lead(client_for, lead, double):
    client = client_for(lead)
    p = double.project_id
    for url in [f"/projects/{p}/members/", f"/projects/{p}/assign/", f"/projects/{p}/progress/",
                f"/projects/{p}/adjudicate/"]:  # fmt: skip
        assert client.get(url).status_code == 200, url
    listing = client.get(f"/projects/{p}/adjudicate/").content.decode()
    assert page_url(double) in listing and "2 of 2" in listing


def payload(client, pair) -> dict:
    html = client.get(page_url(pair)).content.decode()
    return json.loads(html.split('id="adjudication-data" type="application/json">')[1]
                      .split("</script>")[0])  # fmt: skip


def test_the_page_names_who_has_not_submitted_and_flags_in_words(
    client_for, lead, pair, annotator, make_user
):
    """What the page asks before saving gold rests on: the active assignments not yet
    submitted (a withdrawn one is not waited for), and a flag as its label, not its code."""
    others = [make_user(name) for name in ("second_annotator", "withdrawn_one")]
    for user in others:
        pair.project.memberships.create(user=user, role="annotator")
    first = Assignment.objects.create(pair=pair, annotator=annotator, slot=1)
    save_work(first, A[:1], submit=True)
    Assignment.objects.filter(pk=first.pk).update(flag="not_paraphrase")
    second = Assignment.objects.create(pair=pair, annotator=others[0], slot=2)
    save_work(second, B)  # saved, not submitted
    Assignment.objects.create(pair=pair, annotator=others[1], withdrawn_at=timezone.now())
    data = payload(client_for(lead), pair)
    assert data["not_submitted"] == [{"annotator": "second_annotator", "status": "In progress"}]
    assert data["a"]["flag"] == "Not a paraphrase" and data["a"]["status_label"] == "Submitted"
    save_work(second, B, submit=True)
    assert payload(client_for(lead), pair)["not_submitted"] == []


def test_an_imports_annotators_open_as_the_reports_a_and_b(client_for, lead, pair, make_user):
    """Three annotators loaded by an import (no slots): the overlay shows the first two by
    assignment order, the same A and B as Table 3 and the disagreement browser; the list of
    pairs to adjudicate has the pair with its three annotators."""
    from annotator.projects.services.agreement_scores import refresh_scores
    from annotator.reports.selectors.disagreements import disagreements

    people = [make_user(name) for name in ("zed", "amy", "bob")]
    for user, links in zip(people, (A, B, A[:1]), strict=True):
        pair.project.memberships.create(user=user, role="annotator")
        save_work(Assignment.objects.create(pair=pair, annotator=user), links, submit=True)
    client = client_for(lead)
    data = payload(client, pair)
    assert (data["a"]["annotator"], data["b"]["annotator"]) == ("zed", "amy")
    assert data["a"]["links"] == A and data["b"]["links"] == B
    refresh_scores(project=pair.project)  # as the disagreement browser does before it reads
    row = disagreements(project=pair.project).rows[0]
    assert (row.first, row.second) == ("zed", "amy")
    listing = client.get(f"/projects/{pair.project_id}/adjudicate/").content.decode()
    assert page_url(pair) in listing and "3 of 3" in listing


def test_slots_come_before_assignment_order_and_withdrawn_work_is_left_out(
    client_for, lead, double, make_user
):
    late = make_user("early_id_no_slot")
    double.project.memberships.create(user=late, role="annotator")
    save_work(Assignment.objects.create(pair=double, annotator=late), B, submit=True)
    data = payload(client_for(lead), double)
    assert (data["a"]["annotator"], data["b"]["annotator"]) == ("annotator_user",
                                                                "second_annotator")  # fmt: skip
    Assignment.objects.filter(pair=double, slot=1).update(withdrawn_at="2026-01-01T00:00:00Z")
    data = payload(client_for(lead), double)
    assert (data["a"]["annotator"], data["b"]["annotator"]) == ("second_annotator",
                                                                "early_id_no_slot")  # fmt: skip
