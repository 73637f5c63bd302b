"""The annotation grid in a real Chromium: mouse, keyboard, undo/redo, autosave and reload,
a conflict between two tabs, saves made while the server is unreachable, Enter → next pair,
flags, skip, trial feedback, hover, shapes, reset/clear, the unsaved-changes prompt, 80 × 80
and 150 × 150 pairs. Screenshots go to var/test-artifacts/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.models import (
    AlignerRun,
    Annotation,
    AnnotationRevision,
    Assignment,
    GoldAlignment,
    Membership,
    Project,
    SeedAlignment,
    SentencePair,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "var" / "test-artifacts"
PASSWORD = "grid-e2e-password-1"
SOURCE = ["the", "two", "sides", "reached", "an", "agreement", "today"]  # 7 rows
TARGET = ["both", "parties", "arrived", "at", "a", "deal", "this", "morning"]  # 8 columns
SEED = [[0, 0, "P"], [1, 0, "S"], [2, 1, "S"], [5, 5, "S"]]


@pytest.fixture(autouse=True, scope="module")
def _urls_imported():
    """Import every view before the browser's first request: the API imports the agreement
    module, whose numba kernels compile on first import (cached afterwards); compiling inside
    the live server's first request can outlast the browser's timeout on a busy machine."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - the import is the point


def posteriors(rows: int, cols: int) -> bytes:
    """A diagonal-ish matrix: high near i == j, faint elsewhere."""
    return bytes(max(0, 230 - 70 * abs(i - j)) for i in range(rows) for j in range(cols))


def build(django_user_model, specs, username="ann"):
    """A project, one annotator and one assignment per spec (in queue order)."""
    project = Project.objects.create(
        name=f"Grid e2e {username}", guidelines="Align *content* words."
    )
    user = django_user_model.objects.create_user(username, password=PASSWORD)
    Membership.objects.create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    run = AlignerRun.objects.create(project=project)
    assignments = []
    for n, spec in enumerate(specs):
        source, target = spec.get("source", SOURCE), spec.get("target", TARGET)
        pair = SentencePair.objects.create(
            project=project, external_id=f"p{n}", position=n, source_tokens=source,
            target_tokens=target, is_trial=spec.get("trial", False),
        )  # fmt: skip
        seed = SeedAlignment.objects.create(
            pair=pair, aligner_run=run, links=spec.get("seed", SEED),
            posteriors=posteriors(len(source), len(target)),
        )  # fmt: skip
        if "gold" in spec:
            GoldAlignment.objects.create(pair=pair, origin="imported", links=spec["gold"])
        assignments.append(Assignment.objects.create(pair=pair, annotator=user, seed=seed))
    return user, assignments


def login(page, base, username="ann"):
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def open_pair(page, base, assignment):
    page.goto(f"{base}/annotate/{assignment.pk}/")
    page.wait_for_selector("#annotate[data-ready='1']")


def cell(page, i, j):
    return page.locator(f"[role=grid] td[data-i='{i}'][data-j='{j}']")


def states(page) -> dict[tuple[int, int], str]:
    """Every linked cell's data-state as the page shows it."""
    found = page.eval_on_selector_all(
        "[data-field=grid] [role=gridcell]:not([data-state=none])",
        "els => els.map(e => [+e.dataset.i, +e.dataset.j, e.dataset.state])",
    )
    return {(i, j): s for i, j, s in found}


def as_states(links) -> dict[tuple[int, int], str]:
    return {(i, j): {"S": "sure", "P": "possible"}[k] for i, j, k in links}


def saved(page, timeout=15_000):
    from playwright.sync_api import expect

    expect(page.locator("[data-save-state]")).to_have_attribute(
        "data-save-state", "saved", timeout=timeout
    )


def shot(page, name, locator=None):
    SHOTS.mkdir(parents=True, exist_ok=True)
    (locator or page).screenshot(path=str(SHOTS / f"{name}.png"))


def test_edit_by_mouse_and_keyboard_then_reload(live_server, page, django_user_model):
    from playwright.sync_api import expect

    _, (a, _) = build(django_user_model, [{}, {}])
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    grid = page.locator("[role=grid]")
    expect(grid.locator("[role=gridcell]")).to_have_count(len(SOURCE) * len(TARGET))
    first = cell(page, 1, 0)
    assert first.get_attribute("aria-label").startswith("two – both: sure link")
    assert first.get_attribute("data-seed") == "1", "an untouched seed link is marked as seed"
    assert states(page) == as_states(SEED)
    shot(page, "grid-normal")

    # a click cycles none → sure → possible
    cell(page, 3, 2).click()
    expect(cell(page, 3, 2)).to_have_attribute("data-state", "sure")
    cell(page, 3, 2).click()
    expect(cell(page, 3, 2)).to_have_attribute("data-state", "possible")
    # a click on a seed link touches it: it is no longer shown as seed
    cell(page, 1, 0).click()
    expect(cell(page, 1, 0)).to_have_attribute("data-state", "possible")
    assert cell(page, 1, 0).get_attribute("data-seed") is None

    # drag a 2 × 3 block with the "possible" tool
    page.click("[data-tool=possible]")
    start = cell(page, 4, 4).bounding_box()
    end = cell(page, 5, 6).bounding_box()
    page.mouse.move(start["x"] + 5, start["y"] + 5)
    page.mouse.down()
    page.mouse.move(end["x"] + 5, end["y"] + 5, steps=4)
    page.mouse.up()
    for i in (4, 5):
        for j in (4, 5, 6):
            expect(cell(page, i, j)).to_have_attribute("data-state", "possible")

    # keyboard: the cursor is at the drag's end (5,6); move, set, select a block, undo, redo
    page.keyboard.press("ArrowDown")  # (6,6)
    page.keyboard.press("s")
    expect(cell(page, 6, 6)).to_have_attribute("data-state", "sure")
    page.keyboard.press("ArrowLeft")  # (6,5)
    page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("Shift+ArrowLeft")  # block (6,3)–(6,5)
    page.keyboard.press("s")
    for j in (3, 4, 5):
        expect(cell(page, 6, j)).to_have_attribute("data-state", "sure")
    before_undo = states(page)
    page.keyboard.press("z")  # the whole block back in one step
    for j in (3, 4, 5):
        expect(cell(page, 6, j)).to_have_attribute("data-state", "none")
    expect(cell(page, 6, 6)).to_have_attribute("data-state", "sure")
    page.keyboard.press("Control+z")  # and the single cell
    expect(cell(page, 6, 6)).to_have_attribute("data-state", "none")
    page.keyboard.press("Control+Shift+Z")
    page.keyboard.press("Control+y")
    expect(cell(page, 6, 3)).to_have_attribute("data-state", "sure")
    page.keyboard.press("ArrowUp")  # a plain move drops the block; x clears one cell
    page.keyboard.press("x")
    expect(cell(page, 5, 3)).to_have_attribute("data-state", "none")
    assert states(page) == before_undo

    saved(page)
    shown = states(page)
    annotation = Annotation.objects.get(assignment=a)
    assert as_states(annotation.links) == shown
    revisions = AnnotationRevision.objects.filter(annotation=annotation)
    assert revisions.count() >= 1
    assert set(revisions.values_list("kind", flat=True)) == {"autosave"}
    assert as_states(revisions.order_by("-version").first().links) == shown

    page.reload()
    page.wait_for_selector("#annotate[data-ready='1']")
    assert states(page) == shown
    expect(page.locator("[data-save-state]")).to_have_attribute("data-save-state", "saved")
    assert Assignment.objects.get(pk=a.pk).status == "in_progress"


def two_tabs(chromium_browser, base, assignment):
    """Two browser contexts (two devices, say) logged in as the annotator, on one pair."""
    tabs = []
    for _ in range(2):
        context = chromium_browser.new_context()
        tab = context.new_page()
        tab.set_default_timeout(10_000)
        login(tab, base)
        open_pair(tab, base, assignment)
        tabs.append(tab)
    return tabs


def test_conflict_between_two_tabs_is_shown_and_nothing_is_overwritten(
    live_server, chromium_browser, django_user_model
):
    """Edits of the SAME cell on both tabs: a real overlap asks, names the cell, overwrites
    nothing until the person chooses."""
    from playwright.sync_api import expect

    _, (a,) = build(django_user_model, [{}])
    base = live_server.url
    first, second = tabs = two_tabs(chromium_browser, base, a)
    try:
        cell(first, 0, 7).click()
        cell(first, 0, 7).click()  # none → sure → possible
        saved(first)
        theirs = Annotation.objects.get(assignment=a)
        assert [0, 7, "P"] in theirs.links

        cell(second, 0, 7).click()  # sure, based on version 0: stale, and the same cell
        indicator = second.locator("[data-save-state]")
        expect(indicator).to_have_attribute("data-save-state", "conflict")
        expect(second.locator("[data-field=conflict]")).to_be_visible()
        text = second.locator("[data-field=conflict-text]")
        expect(text).to_contain_text("Nothing has been overwritten")
        expect(text).to_contain_text(
            "“the” × “morning” (row 1, column 8): yours sure, theirs possible"
        )
        shot(second, "grid-conflict")
        assert Annotation.objects.get(assignment=a).links == theirs.links, "nothing overwritten"
        assert Annotation.objects.get(assignment=a).version == theirs.version

        # "keep mine" is an explicit choice: only then does the second tab's cell win
        second.click("[data-action=keep-mine]")
        saved(second)
        mine = Annotation.objects.get(assignment=a)
        assert mine.version == theirs.version + 1
        assert [0, 7, "S"] in mine.links and [0, 7, "P"] not in mine.links
        assert as_states(mine.links) == states(second)

        # now the first tab is stale and changes that cell again (possible → none): it asks;
        # "take theirs" shows the second's links and saves nothing
        cell(first, 0, 7).click()
        expect(first.locator("[data-save-state]")).to_have_attribute("data-save-state", "conflict")
        first.click("[data-action=reload-theirs]")
        saved(first)
        assert states(first) == as_states(mine.links)
        assert Annotation.objects.get(assignment=a).version == mine.version, (
            "reloading saves nothing"
        )
    finally:
        for tab in tabs:
            tab.context.close()


def test_edits_of_different_cells_in_two_tabs_merge_and_both_land(
    live_server, chromium_browser, django_user_model
):
    """Issue 31: two contexts edit different cells of the same version; the stale one merges
    (three-way, in the browser) instead of asking, and the server ends with both edits."""
    from playwright.sync_api import expect

    _, (a,) = build(django_user_model, [{}])
    base = live_server.url
    first, second = tabs = two_tabs(chromium_browser, base, a)
    try:
        cell(first, 0, 7).click()  # sure
        saved(first)
        assert Annotation.objects.get(assignment=a).version == 1

        cell(second, 6, 0).click()  # sure, based on version 0: stale, another cell
        saved(second)
        expect(second.locator("[data-field=message]")).to_contain_text(
            "Merged with a change made elsewhere"
        )
        expect(second.locator("[data-field=conflict]")).to_be_hidden()
        merged = Annotation.objects.get(assignment=a)
        assert merged.version == 2, "the merge was saved against the current version"
        assert [0, 7, "S"] in merged.links and [6, 0, "S"] in merged.links
        assert as_states(merged.links) == as_states(SEED + [[0, 7, "S"], [6, 0, "S"]])
        assert states(second) == as_states(merged.links), "the grid shows the merge"
        shot(second, "grid-merged")

        # the first tab is stale now; its change of a seed link merges the other way
        cell(first, 5, 5).click()  # sure → possible
        saved(first)
        final = Annotation.objects.get(assignment=a)
        assert final.version == 3
        assert as_states(final.links) == as_states(
            [[0, 0, "P"], [1, 0, "S"], [2, 1, "S"], [5, 5, "P"], [0, 7, "S"], [6, 0, "S"]]
        )
        assert states(first) == as_states(final.links)
        kinds = set(
            AnnotationRevision.objects.filter(annotation=final).values_list("kind", flat=True)
        )
        assert kinds == {"autosave"}
    finally:
        for tab in tabs:
            tab.context.close()


def test_saves_made_while_the_server_is_unreachable_land_later(
    live_server, page, django_user_model
):
    from playwright.sync_api import expect

    _, (a,) = build(django_user_model, [{}])
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    page.on("dialog", lambda dialog: dialog.accept())  # the "unsaved changes" prompt on reload

    def abort(route):
        route.abort("internetdisconnected")

    page.route("**/api/**", abort)
    cell(page, 2, 2).click()
    indicator = page.locator("[data-save-state]")
    expect(indicator).to_have_attribute("data-save-state", "offline")
    stored = page.evaluate(
        "Object.keys(localStorage).filter(k => k.startsWith('gridalign:pending:'))"
        ".map(k => JSON.parse(localStorage[k]))"
    )
    assert [2, 2, "S"] in stored[0]["links"]
    assert not Annotation.objects.filter(assignment=a).exists()
    shot(page, "grid-offline")

    # the server comes back: the retry lands without a reload
    page.unroute("**/api/**", abort)
    saved(page)
    assert [2, 2, "S"] in Annotation.objects.get(assignment=a).links

    # offline again, edit, then reload the page once the server answers: the stored edit lands
    page.route("**/api/**", abort)
    cell(page, 4, 1).click()
    expect(indicator).to_have_attribute("data-save-state", "offline")
    page.unroute("**/api/**", abort)
    page.route("**/annotation/", abort)  # saves still fail while the page reloads...
    page.reload()
    page.wait_for_selector("#annotate[data-ready='1']")
    expect(cell(page, 4, 1)).to_have_attribute("data-state", "sure")  # restored from the browser
    page.unroute("**/annotation/", abort)  # ...until the server is back
    saved(page)
    links = Annotation.objects.get(assignment=a).links
    assert [4, 1, "S"] in links and [2, 2, "S"] in links
    assert (
        page.evaluate(
            "Object.keys(localStorage).filter(k => k.startsWith('gridalign:pending:')).length"
        )
        == 0
    )


def test_enter_submits_and_opens_the_next_pair(live_server, page, django_user_model):
    _, (a, b) = build(django_user_model, [{}, {}])
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/annotate/{b.pk}/")
    page.wait_for_selector("#annotate[data-ready='1']")
    a.refresh_from_db()
    assert a.status == "submitted"
    revision = AnnotationRevision.objects.get(annotation__assignment=a)
    assert revision.kind == "submit"
    assert as_states(revision.links) == as_states(SEED), "the seed, submitted as it stood"
    assert page.locator("[data-field=progress]").inner_text().startswith("2 of 2")


def test_enter_moves_to_the_next_pair_in_place_and_back_returns(
    live_server, page, django_user_model
):
    """Enter submits and shows the next pair without loading a page: the address becomes the
    next pair's, its grid, words and saves are its own; Back shows the submitted pair again,
    with what was submitted."""
    from playwright.sync_api import expect

    other = {"source": ["cats", "sleep", "a", "lot"], "target": ["many", "cats", "nap"]}
    _, (a, b, c) = build(django_user_model, [{}, {**other, "seed": [[0, 1, "S"]]}, {}])
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    cell(page, 3, 2).click()
    expect(cell(page, 3, 2)).to_have_attribute("data-state", "sure")
    saved(page)
    page.evaluate("window.gaSamePage = true")  # gone if a page were loaded
    page.locator("[role=grid]").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/annotate/{b.pk}/")
    page.wait_for_selector("#annotate[data-ready='1']")
    assert page.evaluate("window.gaSamePage === true"), "the next pair opened in place"
    expect(page.locator("[data-field=title]")).to_have_text("Pair p1")
    assert page.title().startswith("Pair p1 ·")
    expect(page.locator("[role=gridcell]")).to_have_count(4 * 3)
    expect(page.locator("[data-field=sentences]")).to_contain_text("cats sleep a lot")
    expect(page.locator("[data-field=progress]")).to_have_text("2 of 3 · 1 submitted")
    assert states(page) == {(0, 1): "sure"}, "the next pair's seed"
    a.refresh_from_db()
    assert a.status == "submitted" and a.submitted_at is not None
    submitted = AnnotationRevision.objects.get(annotation__assignment=a, kind="submit")
    assert as_states(submitted.links) == {**as_states(SEED), (3, 2): "sure"}
    b.refresh_from_db()
    assert b.started_at is not None and b.last_activity_at >= a.submitted_at, "opening recorded"

    # the next pair's edits are saved as its own
    cell(page, 2, 2).click()
    saved(page)
    assert [2, 2, "S"] in Annotation.objects.get(assignment=b).links
    assert Annotation.objects.get(assignment=a).version == submitted.version
    shot(page, "grid-next-in-place")

    page.go_back()
    page.wait_for_url(f"**/annotate/{a.pk}/")
    page.wait_for_selector("#annotate[data-ready='1']")
    expect(page.locator("[data-field=title]")).to_have_text("Pair p0")
    expect(page.locator("[data-field=status]")).to_have_text("submitted")
    assert states(page) == {**as_states(SEED), (3, 2): "sure"}, "what was submitted"
    page.go_forward()
    page.wait_for_url(f"**/annotate/{b.pk}/")
    page.wait_for_selector("#annotate[data-ready='1']")
    assert states(page) == {(0, 1): "sure", (2, 2): "sure"}


def test_accept_seed_and_submit_and_flag(live_server, page, django_user_model):
    from playwright.sync_api import expect

    _, (a, b) = build(django_user_model, [{}, {}])
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    page.select_option("select[name=reason]", "bad_tokenisation")
    page.fill("textarea[name=note]", "'agreement today' is one token in the source")
    page.click(".flag-form button[type=submit]")
    expect(page.locator("[data-field=flag-current]")).to_contain_text("Bad tokenisation")
    a.refresh_from_db()
    assert (a.flag, a.flag_note) == (
        "bad_tokenisation",
        "'agreement today' is one token in the source",
    )

    cell(page, 3, 3).click()  # an edit, then "accept seed": confirm, and the seed is submitted
    saved(page)
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("[role=grid]").focus()
    page.keyboard.press("a")
    page.wait_for_url(f"**/annotate/{b.pk}/")
    a.refresh_from_db()
    assert a.status == "submitted"
    assert as_states(Annotation.objects.get(assignment=a).links) == as_states(SEED)


def test_trial_pair_feedback_overlays_the_reference(live_server, page, django_user_model):
    from playwright.sync_api import expect

    reference = [[1, 0, "S"], [2, 1, "S"], [3, 2, "S"], [3, 3, "P"]]
    _, (trial, real) = build(django_user_model, [{"trial": True, "gold": reference}, {}])
    base = live_server.url
    login(page, base)
    open_pair(page, base, trial)
    page.click("[data-tool=sure]")
    cell(page, 3, 2).click()  # now: seed + (3,2) sure
    page.click("[data-action=submit]")
    feedback = page.locator("[data-field=feedback]")
    expect(feedback).to_be_visible()
    expect(feedback.locator("[data-field=feedback-score]")).to_contain_text("Word F1")
    marks = feedback.locator("td[data-overlay]").evaluate_all(
        "els => els.map(e => [+e.dataset.i, +e.dataset.j, e.dataset.overlay])"
    )
    overlay = {(i, j): kind for i, j, kind in marks}
    assert overlay[(1, 0)] == "both-sure" and overlay[(3, 2)] == "both-sure"
    assert overlay[(3, 3)] == "only-b", "a reference link the annotator missed"
    assert overlay[(0, 0)] == "only-a" and overlay[(5, 5)] == "only-a"
    # the overlay alone: no frames of an edited alignment on top of its marks
    frames = feedback.locator("td[data-overlay]").evaluate_all(
        "els => els.map(e => getComputedStyle(e).boxShadow + ' ' + getComputedStyle(e).outlineStyle)"
    )
    assert set(frames) == {"none none"}, frames
    shot(page, "grid-trial-feedback")
    page.keyboard.press("Enter")  # continue
    page.wait_for_url(f"**/annotate/{real.pk}/")


def test_posterior_shading_and_a_pair_of_80_by_80(live_server, page, django_user_model):
    from playwright.sync_api import expect

    words = [f"w{n}" for n in range(80)]
    _, (big,) = build(
        django_user_model,
        [{"source": words, "target": words, "seed": [[k, k, "S"] for k in range(0, 80, 3)]}],
    )
    base = live_server.url
    page.set_viewport_size({"width": 1400, "height": 1000})
    login(page, base)
    open_pair(page, base, big)
    expect(page.locator("[role=gridcell]")).to_have_count(6400)
    # every cell is named, those of the first screenful (drawn first) as well as the others
    expect(cell(page, 0, 1)).to_have_attribute("aria-label", "w0 – w1: no link")
    expect(cell(page, 78, 78)).to_have_attribute("aria-label", "w78 – w78: sure link (seed)")
    expect(cell(page, 0, 79)).to_have_attribute("aria-label", "w0 – w79: no link")
    truncated = page.eval_on_selector_all(
        ".ga-rowword", "els => els.filter(e => e.scrollWidth > e.clientWidth).length"
    )
    assert truncated == 0, "every row word fits its column"
    toggle = page.locator("[data-action=posteriors]")
    if toggle.is_checked():
        page.keyboard.press("h")
    expect(page.locator("[role=grid]")).not_to_have_class("ga-show-post")
    shot(page, "grid-80x80")
    page.keyboard.press("h")
    expect(page.locator("[role=grid].ga-show-post")).to_have_count(1)
    shot(page, "grid-80x80-posteriors")
    # far corner by keyboard: the cursor scrolls into view and the cell is editable
    page.locator("[role=grid]").focus()
    for _ in range(79):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("p")
    expect(cell(page, 79, 0)).to_have_attribute("data-state", "possible")
    assert cell(page, 79, 0).is_visible()
    saved(page)
    assert [79, 0, "P"] in Annotation.objects.get(assignment=big).links
    assert (
        json.loads(page.evaluate("JSON.stringify(document.activeElement.getAttribute('role'))"))
        == "grid"
    )


def test_hover_shading_shapes_legend_reset_and_clear(live_server, page, django_user_model):
    from playwright.sync_api import expect

    _, (a,) = build(django_user_model, [{}])
    base = live_server.url
    page.set_viewport_size({"width": 1280, "height": 800})
    login(page, base)
    open_pair(page, base, a)
    grid = page.locator("[data-field=grid] [role=grid]")
    # shading is on by default: a likely cell is tinted, an unlikely one is not
    expect(page.locator("[data-action=posteriors]")).to_be_checked()
    expect(grid).to_have_class("ga-grid ga-show-post")

    def background(i, j):
        return cell(page, i, j).evaluate("e => getComputedStyle(e).backgroundColor")

    assert background(3, 3) not in ("rgba(0, 0, 0, 0)", "transparent")
    assert background(0, 6) == "rgba(0, 0, 0, 0)", "posterior 0: no tint"
    page.keyboard.press("h")
    expect(page.locator("[data-action=posteriors]")).not_to_be_checked()
    assert background(3, 3) == "rgba(0, 0, 0, 0)"
    page.keyboard.press("h")

    # sure and possible differ by shape, not only colour: a filled square against a ring
    cell(page, 3, 3).click()
    cell(page, 4, 4).click()
    cell(page, 4, 4).click()

    def mark(i, j):
        return cell(page, i, j).evaluate("e => getComputedStyle(e).backgroundImage")

    sure, possible, untouched_seed = mark(3, 3), mark(4, 4), mark(1, 0)
    assert "linear-gradient" in sure and "radial-gradient" not in sure, "sure: a filled square"
    assert "radial-gradient" in possible, "possible: a ring"
    assert mark(0, 6) == "none"
    assert "linear-gradient" in untouched_seed
    seed_frame = cell(page, 1, 0).evaluate("e => getComputedStyle(e).outlineStyle")
    assert seed_frame == "dotted", "an untouched seed link has a dotted frame"
    assert cell(page, 3, 3).evaluate("e => getComputedStyle(e).outlineStyle") == "none"

    # hover: the row, the column and both words, in the grid and in the lines above it
    cell(page, 2, 1).hover()
    expect(page.locator("tr[data-i='2']")).to_have_class("ga-hover")
    expect(page.locator(".ga-rowword[data-i='2']")).to_have_class("ga-rowword ga-hover")
    # the row words shown are one column (aria-hidden); each row keeps its own row header
    rowheader = page.locator("tr[data-i='2'] th[role=rowheader]")
    assert rowheader.text_content() == page.locator(".ga-rowword[data-i='2']").text_content()
    assert page.locator(".ga-rowwords").get_attribute("aria-hidden") == "true"
    expect(page.locator("th.ga-colhead[data-j='1']")).to_have_class("ga-colhead ga-hover")
    expect(page.locator(".ga-word[data-side=source][data-k='2']")).to_have_class("ga-word ga-hover")
    expect(page.locator(".ga-word[data-side=target][data-k='1']")).to_have_class("ga-word ga-hover")
    # hovering a word in the text lines marks the words it is linked to (seed: two – both)
    page.locator(".ga-word[data-side=source][data-k='1']").hover()
    linked = page.locator(".ga-sentence .ga-linked")
    expect(linked).to_have_count(1)
    expect(linked).to_have_text("both")
    page.locator(".ga-word[data-side=target][data-k='5']").hover()  # deal ← agreement
    expect(linked).to_have_text("agreement")
    shot(page, "grid-small-posteriors")

    # the legends: cell marks above the grid, every key beside it
    expect(page.locator("[data-field=grid] .ga-legend li")).to_have_count(3)
    keys = page.locator(".keys")
    expect(keys).to_be_visible()
    for text in ("Shift", "Ctrl", "Enter", "undo", "redo", "accept the seed"):
        expect(keys).to_contain_text(text)

    # clear, then reset to seed (seed links shown as seed again), each one undo step
    page.click("[data-action=clear]")
    assert states(page) == {}
    page.click("[data-action=reset]")
    assert states(page) == as_states(SEED)
    assert cell(page, 1, 0).get_attribute("data-seed") == "1"
    page.click("[data-action=undo]")
    assert states(page) == {}
    page.click("[data-action=redo]")
    assert states(page) == as_states(SEED)
    saved(page)
    assert as_states(Annotation.objects.get(assignment=a).links) == as_states(SEED)


def test_a_flagged_pair_can_be_skipped_and_unsaved_changes_warn(
    live_server, page, django_user_model
):
    from playwright.sync_api import expect

    _, (a, b) = build(django_user_model, [{}, {}])
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    page.select_option("select[name=reason]", "not_paraphrase")
    page.click(".flag-form button[type=submit]")
    expect(page.locator("[data-field=flag-current]")).to_contain_text("Not a paraphrase")
    page.click("[data-action=skip]")
    page.wait_for_url(f"**/annotate/{b.pk}/")
    a.refresh_from_db()
    assert (a.flag, a.status) == ("not_paraphrase", "assigned"), "skipped: flagged, not submitted"

    # an edit that cannot be saved: leaving asks first (beforeunload), staying keeps it
    page.wait_for_selector("#annotate[data-ready='1']")
    page.route("**/annotation/", lambda route: route.abort("internetdisconnected"))
    cell(page, 2, 2).click()
    expect(page.locator("[data-save-state]")).to_have_attribute("data-save-state", "offline")
    asked = []

    def on_dialog(dialog):
        asked.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.close(run_before_unload=True)
    page.wait_for_timeout(500)
    assert asked == ["beforeunload"]
    assert not page.is_closed(), "dismissing the prompt keeps the page and the edit"
    expect(cell(page, 2, 2)).to_have_attribute("data-state", "sure")


def test_a_pair_of_150_by_150_with_sticky_rotated_headers(live_server, page, django_user_model):
    from playwright.sync_api import expect

    # hyphenated: a line may not break inside a token (it would read as two tokens)
    words = [f"word-{n}" for n in range(150)]
    _, (big,) = build(
        django_user_model,
        [{"source": words, "target": words, "seed": [[k, k, "S"] for k in range(0, 150, 4)]}],
    )
    base = live_server.url
    page.set_viewport_size({"width": 1400, "height": 1000})
    login(page, base)
    open_pair(page, base, big)
    expect(page.locator("[role=gridcell]")).to_have_count(150 * 150)
    head = page.locator("th.ga-colhead[data-j='0'] span")
    assert head.evaluate("e => getComputedStyle(e).writingMode") == "sideways-lr"
    box = head.bounding_box()
    assert box["height"] > box["width"], "column words are written upwards"

    # scrolled to the far corner, both header bands stay on screen at the scroller's edges
    scroller = page.locator(".ga-scroll")
    scroller.evaluate("e => { e.scrollTop = e.scrollHeight; e.scrollLeft = e.scrollWidth; }")
    frame = scroller.bounding_box()
    col = page.locator("th.ga-colhead[data-j='149']").bounding_box()
    row = page.locator(".ga-rowword[data-i='149']").bounding_box()
    assert abs(col["y"] - frame["y"]) <= 2, (col, frame)
    assert abs(row["x"] - frame["x"]) <= 2, (row, frame)
    # the long sentence lines scroll within themselves to show the hovered cell's words
    corner = cell(page, 149, 149)
    corner.hover()
    for side in ("source", "target"):
        word = page.locator(f".ga-word[data-side={side}][data-k='149']")
        line = page.locator(f".ga-sentence[data-side={side}]").bounding_box()
        shown = word.bounding_box()
        assert (
            line["y"] - 1 <= shown["y"]
            and shown["y"] + shown["height"] <= line["y"] + line["height"] + 1
        )
    assert page.locator(".ga-sentence[data-side=source]").bounding_box()["height"] < 120
    # hanging indent: a wrapped line starts under the first word, not under the label
    starts = page.evaluate(
        """() => {
          const words = [...document.querySelectorAll('.ga-word[data-side=source]')];
          const top = words[0].offsetTop;
          const next = words.find((w) => w.offsetTop > top);
          return [words[0].offsetLeft, next.offsetLeft];
        }"""
    )
    assert abs(starts[0] - starts[1]) <= 1, starts
    split = page.evaluate(
        "() => [...document.querySelectorAll('.ga-word')]"
        ".filter((w) => w.getClientRects().length > 1).map((w) => w.textContent)"
    )
    assert split == [], f"tokens broken across two lines: {split}"
    corner.click()
    expect(corner).to_have_attribute("data-state", "sure")
    saved(page)
    assert [149, 149, "S"] in Annotation.objects.get(assignment=big).links
    shot(page, "grid-150x150-scrolled")


def test_the_page_at_200_percent_zoom_by_keyboard_alone(
    chromium_browser, live_server, django_user_model
):
    from playwright.sync_api import expect

    _, (a, b) = build(django_user_model, [{}, {}])
    base = live_server.url
    # 200 % zoom of a 1280 × 800 window: half the CSS pixels, each drawn twice as large
    context = chromium_browser.new_context(
        viewport={"width": 640, "height": 400}, device_scale_factor=2
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        login(page, base)
        open_pair(page, base, a)
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1] + 1, f"the page scrolls sideways at 200 %: {width}"
        shot(page, "grid-zoom-200")
        # at no scroll position does the save indicator cover the Submit button (the head
        # wraps at 200 %; a sticky indicator slid over the buttons' line)
        covered = page.evaluate(
            """() => {
                const save = document.querySelector("[data-field=save]");
                const submit = document.querySelector("[data-action=submit]");
                const bottom = submit.getBoundingClientRect().bottom + window.scrollY;
                const hits = [];
                for (let y = 0; y <= bottom; y += 2) {
                    window.scrollTo(0, y);
                    const a = save.getBoundingClientRect(), b = submit.getBoundingClientRect();
                    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
                        hits.push(y);
                }
                window.scrollTo(0, 0);
                return hits;
            }"""
        )
        assert covered == [], f"the save indicator covers Submit when scrolled to {covered}"
        # by keyboard alone: the grid has the focus on opening; edit, then submit with Enter
        assert page.evaluate("document.activeElement.getAttribute('role')") == "grid"
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("p")
        expect(cell(page, 0, 2)).to_have_attribute("data-state", "possible")
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/annotate/{b.pk}/")
        assert [0, 2, "P"] in Annotation.objects.get(assignment=a).links
    finally:
        context.close()
