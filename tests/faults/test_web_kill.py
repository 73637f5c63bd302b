"""The web server killed mid-save (issue 10): the save the browser had sent is never answered;
the grid keeps the edit in the browser (localStorage) and shows "offline", and once the server
is started again on the same port the offline queue delivers it — no reload, nothing lost.

A real gunicorn (master and workers in their own process group) on a temporary SQLite file
serves the pages; Chromium drives the grid. To be sure the kill lands while a save is in
flight, the server is frozen (SIGSTOP) before the edit: the browser's PUT is accepted by the
kernel and waits unanswered; then the whole group is killed with SIGKILL.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.faults.processes import WebServer, app_env, django_script, prepare

pytestmark = [pytest.mark.e2e]

ARTIFACTS = REPO_ROOT / "var" / "test-artifacts"
PASSWORD = "web-kill-password-1"
PENDING = (
    "Object.keys(localStorage).filter(k => k.startsWith('gridalign:pending:'))"
    ".map(k => JSON.parse(localStorage[k]))"
)

SETUP = f"""
import json
from django.contrib.auth import get_user_model
from annotator.models import Assignment, Membership, Project, SentencePair
project = Project.objects.create(name="web kill")
user = get_user_model().objects.create_user("ann", password="{PASSWORD}")
Membership.objects.create(project=project, user=user, role="annotator")
out = []
for n in range(2):
    pair = SentencePair.objects.create(
        project=project, external_id=f"p{{n}}", position=n,
        source_tokens="the two sides reached an agreement".split(),
        target_tokens="both parties arrived at a deal".split(),
    )
    out.append(Assignment.objects.create(pair=pair, annotator=user).pk)
print(json.dumps(out))
"""

STORED = """
import json
from annotator.models import Annotation, AnnotationRevision
a = Annotation.objects.filter(assignment_id={pk}).first()
print(json.dumps(None if a is None else {{
    "version": a.version, "links": a.links,
    "revisions": list(AnnotationRevision.objects.filter(annotation=a).values_list("version", flat=True)),
}}))
"""


def shot(tab, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    """A deployment shared by the tests: one annotator, one pair for each test."""
    folder: Path = tmp_path_factory.mktemp("web-kill")
    env = app_env(database_url=f"sqlite:///{folder}/web-kill.sqlite3", var_dir=folder)
    assignments = prepare(env, SETUP)
    server = WebServer(env, workers=2)
    server.start()
    yield server, env, assignments
    server.stop()


@pytest.fixture
def web_server(deployment):
    server = deployment[0]
    if not server.answers():  # a failed test may have left it down
        server.stop()
        server.start()
    return deployment


def open_grid(tab, server, assignment: int):
    base = server.url
    tab.goto(base + "/accounts/login/")
    tab.fill("input[name=username]", "ann")
    tab.fill("input[name=password]", PASSWORD)
    tab.click("button[type=submit]")
    tab.wait_for_url(lambda url: "/accounts/login/" not in url)
    tab.goto(f"{base}/annotate/{assignment}/")
    try:
        tab.wait_for_selector("#annotate[data-ready='1']", timeout=30_000)
    except Exception:
        shot(tab, "web-kill-not-ready")
        raise AssertionError(f"the grid did not load:\n{server.log}") from None


def test_a_save_in_flight_when_the_server_is_killed_lands_after_the_restart(request, web_server):
    from playwright.sync_api import expect

    tab = request.getfixturevalue("page")  # Chromium (tests/browser.py)
    server, env, (assignment, _) = web_server
    open_grid(tab, server, assignment)
    indicator = tab.locator("[data-save-state]")

    def cell(i: int, j: int):
        return tab.locator(f"[role=grid] td[data-i='{i}'][data-j='{j}']")

    # a first save lands normally
    cell(0, 0).click()
    expect(indicator).to_have_attribute("data-save-state", "saved", timeout=15_000)
    assert django_script(env, STORED.format(pk=assignment))["links"] == [[0, 0, "S"]]

    # freeze the server, edit: the autosave's PUT goes out and waits unanswered...
    os.killpg(server.process.pid, signal.SIGSTOP)
    with tab.expect_request(lambda r: r.method == "PUT" and "/annotation/" in r.url):
        cell(3, 2).click()
    time.sleep(0.3)
    server.kill()  # ...and the server dies under it (SIGKILL to master and workers)
    expect(indicator).to_have_attribute("data-save-state", "offline", timeout=15_000)
    cell(5, 5).click()  # an edit made while the server is down joins the queue
    stored = tab.evaluate(PENDING)
    assert len(stored) == 1 and {(i, j) for i, j, _ in stored[0]["links"]} == {
        (0, 0),
        (3, 2),
        (5, 5),
    }
    assert stored[0]["version"] == 1, "the pending edit is based on the saved version"
    shot(tab, "web-kill-offline")
    assert django_script(env, STORED.format(pk=assignment))["version"] == 1, "nothing landed"

    # the server comes back on the same port: the browser's retry delivers the edit
    server.start()
    expect(indicator).to_have_attribute("data-save-state", "saved", timeout=45_000)
    shot(tab, "web-kill-delivered")
    landed = django_script(env, STORED.format(pk=assignment))
    assert sorted(map(tuple, landed["links"])) == [(0, 0, "S"), (3, 2, "S"), (5, 5, "S")]
    assert landed["version"] == 2 and landed["revisions"] == [1, 2], "delivered exactly once"
    assert tab.evaluate(PENDING) == [], "the browser's copy is cleared once it landed"


def test_a_save_whose_answer_died_with_the_server_is_not_taken_for_a_conflict(request, web_server):
    """The server saved, then died before answering: the browser cannot know it landed. After
    the restart its retry meets a 409 holding exactly what it had sent — its own save — so
    the edit made meanwhile goes on top of it, without asking the annotator to choose between
    two versions of their own work, and without a duplicate revision."""
    from playwright.sync_api import expect

    tab = request.getfixturevalue("page")
    server, env, (_, assignment) = web_server
    open_grid(tab, server, assignment)
    indicator = tab.locator("[data-save-state]")

    def cell(i: int, j: int):
        return tab.locator(f"[role=grid] td[data-i='{i}'][data-j='{j}']")

    answered: list[int] = []

    def save_then_die(route):
        if route.request.method != "PUT" or answered:
            route.continue_()
            return
        answered.append(route.fetch().status)  # the server stores it and answers...
        server.kill()  # ...and dies before the answer reaches the browser
        route.abort("connectionreset")

    tab.route("**/annotation/", save_then_die)
    cell(1, 1).click()
    expect(indicator).to_have_attribute("data-save-state", "offline", timeout=15_000)
    assert answered == [200]
    assert django_script(env, STORED.format(pk=assignment))["links"] == [[1, 1, "S"]]
    cell(2, 3).click()  # an edit on top, while the server is down
    tab.unroute("**/annotation/", save_then_die)

    server.start()
    expect(indicator).to_have_attribute("data-save-state", "saved", timeout=45_000)
    shot(tab, "web-kill-answer-lost")
    expect(tab.locator("[data-field=conflict]")).to_be_hidden()
    landed = django_script(env, STORED.format(pk=assignment))
    assert sorted(map(tuple, landed["links"])) == [(1, 1, "S"), (2, 3, "S")]
    assert landed["revisions"] == [1, 2], "one revision per save, no duplicate"
    assert tab.evaluate(PENDING) == []
