"""The grid's seed and posteriors come from the seed endpoint (GET /api/assignments/<id>/seed/),
not from the page (issue 32): the page carries only what changes per request, the browser keeps
the seed's answer and revalidates it on the next opening (ETag → 304, no body sent again), a new
aligner run's seed reaches the grid, and a seed that cannot be had leaves the annotation
editable with a clear message. Screenshots go to var/test-artifacts/."""

from __future__ import annotations

import json

import pytest

from annotator.models import AlignerRun, Annotation, SeedAlignment
from tests.e2e.test_grid import (
    as_states,
    build,
    cell,
    login,
    open_pair,
    saved,
    shot,
    states,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# 40 × 40: the seed's answer (about 2.2 kB of base64 posteriors) is much larger than the
# headers of a 304, so what crossed the network tells a revalidation from a full answer
WORDS = [f"w{n}" for n in range(40)]
SEED = [[k, k, "S"] for k in range(0, 40, 4)] + [[1, 2, "P"]]


def seed_url(assignment) -> str:
    return f"/api/assignments/{assignment.pk}/seed/"


def seed_fetch(page, assignment) -> dict:
    """The browser's own record of the grid's seed request (Resource Timing): the bytes that
    crossed the network (headers included, 0 for a pure cache hit) and the body's size."""
    entries = page.evaluate(
        """url => performance.getEntriesByType("resource")
              .filter(e => new URL(e.name).pathname === url)
              .map(e => ({transfer: e.transferSize, body: e.encodedBodySize}))""",
        seed_url(assignment),
    )
    assert len(entries) == 1, entries
    return entries[0]


def watch_seed_requests(page, assignment) -> list[tuple[str | None, str | None]]:
    """Each seed request as the browser's network layer saw it: the ``If-None-Match`` it sent
    (None on a first fetch) and the ``ETag`` of the answer."""
    seen: list[tuple[str | None, str | None]] = []

    def record(response):
        if response.url.endswith(seed_url(assignment)):
            sent = response.request.all_headers().get("if-none-match")
            seen.append((sent, response.all_headers().get("etag")))

    page.on("response", record)
    return seen


def wait_for_requests(page, seen: list, count: int) -> list:
    """``seen`` once it holds ``count`` requests: Playwright hands the response events to the
    listener only while the test waits on the page, so they may trail the page's own state."""
    for _ in range(100):
        if len(seen) >= count:
            break
        page.wait_for_timeout(50)
    return seen


def seed_cells_shown(page) -> set[tuple[int, int]]:
    found = page.eval_on_selector_all(
        "[data-field=grid] [role=gridcell][data-seed='1']",
        "els => els.map(e => [+e.dataset.i, +e.dataset.j])",
    )
    return {(i, j) for i, j in found}


def test_the_grid_takes_its_seed_from_the_endpoint_and_revalidates_it(
    live_server, page, django_user_model
):
    from playwright.sync_api import expect

    _, (a,) = build(django_user_model, [{"source": WORDS, "target": WORDS, "seed": SEED}])
    base = live_server.url
    page.set_viewport_size({"width": 1400, "height": 1000})
    login(page, base)
    sent = watch_seed_requests(page, a)
    open_pair(page, base, a)
    # the page itself carries no seed and no posteriors: they came from the endpoint
    embedded = json.loads(page.locator("#grid-data").text_content())
    assert "seed" not in embedded and "posteriors" not in embedded
    assert embedded["urls"]["seed"] == seed_url(a)
    assert states(page) == as_states(SEED)
    assert seed_cells_shown(page) == {(i, j) for i, j, _ in SEED}
    assert "ga-p" in cell(page, 5, 5).get_attribute("class")  # the posterior shading's class
    first = seed_fetch(page, a)
    assert first["body"] > 2000 and first["transfer"] > first["body"], first
    assert (
        len(wait_for_requests(page, sent, 1)) == 1
        and sent[0][0] is None
        and sent[0][1].startswith('"seed-')
    )

    # a second opening of the same pair: the browser revalidates, the server answers 304 with
    # no body, and the grid shows the same seed from the browser's copy
    cell(page, 3, 3).click()
    saved(page)
    open_pair(page, base, a)
    again = seed_fetch(page, a)
    assert again["body"] == first["body"] and again["transfer"] < again["body"], again
    assert wait_for_requests(page, sent, 2)[1] == (
        sent[0][1],
        sent[0][1],
    )  # revalidated with the ETag, which held
    expect(cell(page, 3, 3)).to_have_attribute("data-state", "sure")
    assert seed_cells_shown(page) == {(i, j) for i, j, _ in SEED}
    assert "ga-p" in cell(page, 5, 5).get_attribute("class")
    shot(page, "grid-seed-revalidated")

    # Reset to seed uses the endpoint's seed
    page.locator("[data-action=reset]").click()
    assert states(page) == as_states(SEED)


def test_a_new_aligner_run_reaches_the_grid(live_server, page, django_user_model):
    _, (a,) = build(django_user_model, [{"source": WORDS, "target": WORDS, "seed": SEED}])
    base = live_server.url
    login(page, base)
    sent = watch_seed_requests(page, a)
    open_pair(page, base, a)
    assert seed_cells_shown(page) == {(i, j) for i, j, _ in SEED}

    # a reseeding writes a new seed under a new run and gives it to the pair not started yet
    run = AlignerRun.objects.create(project=a.pair.project)
    new = [[0, 39, "S"], [39, 0, "P"]]
    seed = SeedAlignment.objects.create(
        pair=a.pair, aligner_run=run, links=new, posteriors=bytes(len(WORDS) ** 2)
    )
    a.seed = seed
    a.save(update_fields=["seed"])
    open_pair(page, base, a)
    old_etag = wait_for_requests(page, sent, 2)[0][1]
    assert sent[1][0] == old_etag and sent[1][1] != old_etag  # it no longer holds: sent anew
    fresh = seed_fetch(page, a)
    assert fresh["transfer"] > fresh["body"], fresh
    assert states(page) == as_states(new)
    assert seed_cells_shown(page) == {(0, 39), (39, 0)}
    assert "ga-p" not in (cell(page, 5, 5).get_attribute("class") or "")  # all-zero posteriors


def test_without_its_seed_the_pair_stays_editable_and_says_why(
    live_server, page, django_user_model
):
    from playwright.sync_api import expect

    _, (a, b) = build(django_user_model, [{}, {"seed": [[0, 0, "S"]]}])
    Annotation.objects.create(assignment=b, links=[[2, 2, "P"]], version=1)
    base = live_server.url
    login(page, base)

    def fail(route):
        route.fulfill(status=503, body="down")

    page.route("**/seed/", fail)
    for assignment, shown in ((a, {}), (b, {(2, 2): "possible"})):
        open_pair(page, base, assignment)
        message = page.locator("[data-field=seed-error]")
        expect(message).to_contain_text("The aligner's seed could not be loaded (")
        expect(message).to_contain_text("503")
        assert states(page) == shown and seed_cells_shown(page) == set()
        expect(page.locator("[data-action=reset]")).to_be_disabled()
        expect(page.locator("[data-action=accept-seed]")).to_be_disabled()
        expect(page.locator("[data-action=posteriors]")).to_be_disabled()
        legend = page.locator("[data-field=grid] .ga-legend")
        expect(legend).to_contain_text("possible")
        expect(legend).not_to_contain_text("seed link")  # no seed marks to explain
        cell(page, 4, 4).click()  # still editable, and the edit is saved
        expect(cell(page, 4, 4)).to_have_attribute("data-state", "sure")
        saved(page)
        assert [4, 4, "S"] in Annotation.objects.get(assignment=assignment).links
        expect(message).to_be_visible()  # the save's own messages do not replace it
    shot(page, "grid-seed-unavailable")
    page.unroute("**/seed/", fail)
    open_pair(page, base, b)  # the seed is back: it shows again under the saved alignment
    assert states(page) == {(2, 2): "possible", (4, 4): "sure"}
    expect(page.locator("[data-action=reset]")).to_be_enabled()
    expect(page.locator("[data-field=seed-error]")).to_be_hidden()
    expect(page.locator("[data-field=grid] .ga-legend")).to_contain_text("seed link")
