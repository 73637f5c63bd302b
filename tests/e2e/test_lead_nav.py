"""Issue 31: the lead's tabs keep to ONE line at 1024×700 and 1400×900. The eight pages used most
are tabs; Settings, Members, Import, Documents and Export sit under one "Setup" menu (a
<details>, opened with the keyboard, no script). Every page that used to be a tab is still
reachable from every lead page, and no lead page (a pair's view with its gold history
included) is wider than the window."""

from __future__ import annotations

import pytest

from annotator.gold.services.gold import set_gold
from annotator.models import Membership, Project, SentencePair
from tests.browser import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
PASSWORD = "nav-pass-123"
TABS = ["Pairs", "Assign", "Progress", "Agreement", "Disagreements", "Adjudicate", "Review",
        "Discussions"]  # fmt: skip
SETUP = ["Settings", "Members", "Import", "Documents", "Export"]
PAGES = ["pairs/", "assign/", "progress/", "agreement/", "disagreements/", "adjudicate/",
         "review/", "discussions/", "settings/", "members/", "import/", "documents/",
         "export/"]  # fmt: skip


def one_row(page) -> None:
    nav = page.locator("nav.lead-nav")
    box = nav.bounding_box()
    tab = page.locator("nav.lead-nav > a").first.bounding_box()
    # one row: the nav is no taller than a tab (+ its border), and every tab shares its top
    assert box["height"] <= tab["height"] + 4, (page.url, box, tab)
    tops = {round(b["y"]) for b in (a.bounding_box() for a in nav.locator(":scope > a").all())}
    tops.add(round(page.locator(".lead-setup > summary").bounding_box()["y"]))
    assert max(tops) - min(tops) <= 2, (page.url, tops)
    assert box["x"] + box["width"] <= page.viewport_size["width"], (page.url, box)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], (page.url, width)  # no sideways scrolling


@pytest.mark.parametrize("size", [(1400, 900), (1024, 700)], ids=["1400x900", "1024x700"])
def test_lead_tabs_fit_one_line_and_every_page_stays_reachable(
    live_server, chromium_browser, django_user_model, size
):
    from playwright.sync_api import expect

    project = Project.objects.create(name="A project with a rather long name for the crumbs")
    lead = django_user_model.objects.create_user("navlead", password=PASSWORD)
    Membership.objects.create(project=project, user=lead, role="lead")
    pair = SentencePair.objects.create(
        project=project, external_id="novels-common:1234", source_tokens=["the", "old", "man", "sat"],
        target_tokens=["an", "old", "man", "was", "sitting"],
    )  # fmt: skip
    set_gold(
        pair=pair,
        links=[[0, 0, "S"]],
        origin="imported",
        note="imported from gold.test.sure+poss.json",
    )
    set_gold(pair=pair, links=[[1, 1, "S"]], origin="adjudicated", author=lead, note="fixed")
    base = f"{live_server.url}/projects/{project.pk}/"
    page = log_in(chromium_browser, live_server.url, "navlead", PASSWORD, *size)

    for path in [*PAGES, f"pairs/{pair.pk}/", f"pairs/{pair.pk}/?view=overlay"]:
        page.goto(base + path)
        expect(page.locator("nav.lead-nav")).to_be_visible()
        one_row(page)

    page.goto(base + "progress/")
    nav = page.locator("nav.lead-nav")
    assert [a.inner_text() for a in nav.locator(":scope > a").all()] == TABS
    for name, path in zip(TABS, PAGES[: len(TABS)], strict=True):
        assert nav.get_by_role("link", name=name, exact=True).get_attribute("href") == (
            f"/projects/{project.pk}/{path}"
        )
    # The Setup menu opens with the keyboard and lists the other five; each one opens its page,
    # shown as current in the menu's summary.
    for name, path in zip(SETUP, PAGES[len(TABS) :], strict=True):
        menu = page.locator(".lead-setup-menu")
        expect(menu).to_be_hidden()
        page.locator(".lead-setup > summary").focus()
        page.keyboard.press("Enter")
        expect(menu).to_be_visible()
        assert [a.inner_text() for a in menu.locator("a").all()] == SETUP
        one_row(page)  # the open menu floats over the page; the tabs do not move
        menu.get_by_role("link", name=name, exact=True).focus()
        page.keyboard.press("Enter")
        page.wait_for_url(base + path)
        expect(page.locator(".lead-setup > summary")).to_have_text(f"Setup: {name}")
        expect(page.locator(".lead-setup-menu [aria-current=page]")).to_have_text(name)
    page.context.close()
