"""The annotator's pages: the queue (progress, order, filter, resume, flags), the grid page
(only the assignment's own annotator; opening is recorded) and the sanitised guidelines —
with the blind rule checked on each."""

# ruff: noqa: F811 (the ``grid`` fixture is imported and used as an argument)

from __future__ import annotations

import json
import re

import pytest
from django.utils import timezone

from annotator.grid.services import flag_assignment, save_annotation, submit_annotation
from annotator.models import Assignment
from tests.app.grid_fixtures import grid, leaked_cells  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def queue_url(grid) -> str:
    return f"/projects/{grid.project.pk}/queue/"


def rows(html: str) -> list[tuple[str, str]]:
    """(pair external id, status) of each queue row, in page order."""
    found = re.findall(r'data-status="(\w+)">.*?>(pair-\w+)</a>', html, re.S)
    return [(name, status) for status, name in found]


def test_queue_shows_progress_order_resume_and_flags(grid, client_for):
    me = grid.annotator
    client = client_for(me)
    html = client.get(queue_url(grid)).content.decode()
    assert "0 of 4 submitted" in html
    assert rows(html) == [
        ("pair-trial", "assigned"),
        ("pair-a", "assigned"),
        ("pair-b", "assigned"),
        ("pair-c", "assigned"),
    ]
    assert f'id="resume" href="/annotate/{grid.mine["trial"].pk}/"' in html  # trial first
    assert f'href="/projects/{grid.project.pk}/guidelines/"' in html

    submit_annotation(assignment=grid.mine["trial"], user=me, links=[], base_version=0)
    submit_annotation(assignment=grid.mine["a"], user=me, links=[], base_version=0)
    save_annotation(assignment=grid.mine["c"], user=me, links=[], base_version=0)
    flag_assignment(assignment=grid.mine["c"], user=me, reason="bad_tokenisation", note="x")
    html = client.get(queue_url(grid)).content.decode()
    assert "2 of 4 submitted" in html and 'aria-valuenow="2"' in html
    assert "(1 not started, 1 in progress)" in html
    assert rows(html) == [
        ("pair-a", "submitted"),
        ("pair-b", "assigned"),
        ("pair-c", "in_progress"),
        ("pair-trial", "submitted"),  # trial set done: back to position order
    ]
    assert f'id="resume" href="/annotate/{grid.mine["b"].pk}/"' in html
    assert "bad tokenisation" in html

    submitted = client.get(queue_url(grid) + "?status=submitted").content.decode()
    assert rows(submitted) == [("pair-a", "submitted"), ("pair-trial", "submitted")]
    everything = client.get(queue_url(grid) + "?status=bogus").content.decode()
    assert len(rows(everything)) == 4  # an unknown filter shows all


def test_queue_when_everything_is_submitted_or_nothing_assigned(grid, client_for):
    for assignment in grid.mine.values():
        submit_annotation(assignment=assignment, user=grid.annotator, links=[], base_version=0)
    html = client_for(grid.annotator).get(queue_url(grid)).content.decode()
    assert "4 of 4 submitted" in html and 'id="resume"' not in html
    assert "All your pairs are submitted" in html
    html = client_for(grid.lead).get(queue_url(grid)).content.decode()
    assert "No pairs are assigned to you" in html and not rows(html)


def test_queue_is_per_user_and_blind(grid, client_for):
    html = client_for(grid.other).get(queue_url(grid)).content.decode()
    assert [name for name, _ in rows(html)] == ["pair-a", "pair-trial"]
    assert "1 of 2 submitted" in html
    mine = client_for(grid.annotator).get(queue_url(grid)).content.decode()
    assert not leaked_cells(mine)
    for assignment in grid.theirs.values():
        assert f"/annotate/{assignment.pk}/" not in mine


def test_queue_needs_membership(grid, client, client_for):
    assert client_for(grid.outsider).get(queue_url(grid)).status_code == 404
    client.logout()
    response = client.get(queue_url(grid))
    assert response.status_code == 302 and "/accounts/login/" in response.url


def test_grid_page_for_the_own_annotator_records_the_opening(grid, client_for):
    assignment = grid.mine["a"]
    response = client_for(grid.annotator).get(f"/annotate/{assignment.pk}/")
    assert response.status_code == 200
    assert response.context["api_url"] == f"/api/assignments/{assignment.pk}/"
    assert response.context["queue_url"] == queue_url(grid)
    assert response.context["guidelines_url"] == f"/projects/{grid.project.pk}/guidelines/"
    assert response.context["assignment"] == assignment
    assert response.context["pair"] == assignment.pair
    assert response.context["project"] == grid.project
    html = response.content.decode()
    assert not leaked_cells(html)  # other's links, gold: not in the page
    # the page carries the API's answer for the assignment but the seed and its posteriors,
    # which the grid fetches from the seed endpoint (cached and revalidated by the browser)
    embedded = re.search(r'<script id="grid-data" type="application/json">(.*?)</script>', html)
    assert embedded, "the grid's data is in the page"
    client = client_for(grid.annotator)
    api_answer = client.get(f"/api/assignments/{assignment.pk}/").json()
    seed = client.get(api_answer["urls"]["seed"]).json()
    assert seed == {"seed": api_answer["seed"], "posteriors": api_answer["posteriors"]}
    assert seed["seed"] is not None and seed["posteriors"] is not None
    page_data = json.loads(embedded.group(1))
    assert {**page_data, **seed} == api_answer
    assert "seed" not in page_data and "posteriors" not in page_data
    assert api_answer["pair"]["source"] == assignment.pair.source_tokens
    assignment.refresh_from_db()
    assert assignment.last_activity_at is not None and assignment.started_at is not None
    assert assignment.status == "assigned"


def test_opening_through_the_api_records_it_as_the_page_does(grid, client_for):
    """POST /api/assignments/<id>/open/ (the grid page moving on to the next pair without a
    reload): the same data as GET, and the opening recorded; CSRF-checked like every write."""
    from django.test import Client

    assignment = grid.mine["b"]
    url = f"/api/assignments/{assignment.pk}/open/"
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(grid.annotator)
    assert strict.post(url).status_code == 403  # no CSRF token: nothing recorded
    assert Assignment.objects.get(pk=assignment.pk).last_activity_at is None
    client = client_for(grid.annotator)
    response = client.post(url)
    assert response.status_code == 200
    assert response.json() == client.get(f"/api/assignments/{assignment.pk}/").json()
    assert response.json()["urls"]["page"] == f"/annotate/{assignment.pk}/"
    assignment.refresh_from_db()
    assert assignment.last_activity_at is not None and assignment.started_at is not None
    assert assignment.status == "assigned"  # opening is not editing


@pytest.mark.parametrize("who", ["other", "lead", "outsider"])
def test_opening_someone_elses_assignment_through_the_api_is_404(grid, client_for, who):
    url = f"/api/assignments/{grid.mine['a'].pk}/open/"
    assert client_for(getattr(grid, who)).post(url).status_code == 404
    assert Assignment.objects.get(pk=grid.mine["a"].pk).last_activity_at is None


@pytest.mark.parametrize("who", ["other", "lead", "outsider"])
def test_grid_page_is_404_for_anyone_else(grid, client_for, who):
    response = client_for(getattr(grid, who)).get(f"/annotate/{grid.mine['a'].pk}/")
    assert response.status_code == 404
    assert Assignment.objects.get(pk=grid.mine["a"].pk).last_activity_at is None


def test_grid_page_is_404_when_withdrawn_and_login_first_when_anonymous(grid, client, client_for):
    Assignment.objects.filter(pk=grid.mine["b"].pk).update(withdrawn_at=timezone.now())
    assert client_for(grid.annotator).get(f"/annotate/{grid.mine['b'].pk}/").status_code == 404
    client.logout()
    response = client.get(f"/annotate/{grid.mine['a'].pk}/")
    assert response.status_code == 302 and "/accounts/login/" in response.url


def test_guidelines_are_markdown_sanitised_for_members_only(grid, client_for):
    grid.project.guidelines = (
        "# Align *content* words\n\n"
        "<script>alert('x')</script>\n\n"
        '<img src="x" onerror="alert(1)">\n\n'
        "[click](javascript:alert(1)) and [the paper](https://example.org/paper)\n"
    )
    grid.project.save()
    url = f"/projects/{grid.project.pk}/guidelines/"
    html = client_for(grid.annotator).get(url).content.decode()
    assert "<h1>Align <em>content</em> words</h1>" in html
    assert '<a href="https://example.org/paper"' in html
    lowered = html.lower()
    assert "<script>alert" not in lowered and "&lt;script&gt;alert" in lowered  # shown as text
    assert not re.search(r"<[^>]*onerror", lowered)  # no live handler in any tag
    assert "javascript:" not in lowered
    assert client_for(grid.lead).get(url).status_code == 200
    assert client_for(grid.outsider).get(url).status_code == 404


def test_project_page_links_annotators_to_their_queue(grid, client_for):
    url = f"/projects/{grid.project.pk}/"
    assert "Your queue" in client_for(grid.annotator).get(url).content.decode()
    assert "Your queue" not in client_for(grid.lead).get(url).content.decode()
