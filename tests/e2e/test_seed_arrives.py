"""A pair opened while the project's seed job is still running (the demo right after ``make
run``): when the job succeeds, the grid on screen takes the seed in place if the annotator has
not touched the pair, and keeps the annotator's links if they have, saying which, without a
reload. In a real Chromium against a live server; the job's work is run by the test itself
(as the worker's task would run it)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotator.jobs.runner import run_job
from annotator.management.commands.setup_demo import DEMO_USERS, setup_demo
from annotator.models import Assignment, Job, SeedAlignment
from tests.browser import log_in
from tests.e2e.test_grid import as_states, cell, saved, shot, states

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True, databases="__all__"),
]  # "jobs" too

PASSWORDS = {username: password for username, password, _role in DEMO_USERS}


def first_pair_of(username: str) -> Assignment:
    mine = Assignment.objects.filter(annotator__username=username, pair__is_trial=False)
    return mine.order_by("pair__position", "id").first()


def open_as(browser, base: str, username: str, assignment: Assignment):
    page = log_in(browser, base, username, PASSWORDS[username])
    page.set_default_timeout(20_000)
    page.goto(f"{base}/annotate/{assignment.pk}/")
    page.wait_for_selector("#annotate[data-ready='1']")
    return page


def test_the_seed_reaches_an_untouched_pair_and_a_started_one_keeps_its_work(
    live_server, chromium_browser
):
    project = setup_demo(seed_in_worker=True)["project"]
    job = Job.objects.get(project=project, kind="seed", status="queued")
    untouched, started = first_pair_of("annotator1"), first_pair_of("annotator2")
    base = live_server.url
    waiting = open_as(chromium_browser, base, "annotator1", untouched)
    working = open_as(chromium_browser, base, "annotator2", started)
    for page in (waiting, working):
        expect(page.locator(".seed-pending .note")).to_contain_text("still computing")
        assert states(page) == {}  # no seed yet: nothing drawn
    cell(working, 0, 0).click()  # the second annotator starts on their own
    saved(working)

    run_job(job.pk)  # what the worker does with the queued job
    assert Job.objects.get(pk=job.pk).status == "succeeded"
    seed = SeedAlignment.objects.get(pair=untouched.pair, aligner_run__job=job)
    assert seed.links  # the demo's pairs all have some

    note = waiting.locator(".seed-pending .note")
    expect(note).to_contain_text("now starts from its links")
    assert states(waiting) == as_states(seed.links)  # the seed, in place, without a reload
    assert waiting.locator("[role=gridcell][data-seed='1']").count() == len(seed.links)
    assert waiting.locator(f"#job-{job.pk}").is_hidden()  # done: only the line stays
    shot(waiting, "seed-arrived")

    expect(working.locator(".seed-pending .note")).to_contain_text("keeps the links you marked")
    assert states(working) == {(0, 0): "sure"}  # their work, untouched by the seed
    working.reload()
    working.wait_for_selector("#annotate[data-ready='1']")
    assert states(working) == {(0, 0): "sure"}  # and so the server has it
    for page in (waiting, working):
        page.context.close()
