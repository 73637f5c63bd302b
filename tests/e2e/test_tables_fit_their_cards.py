"""Issue 31, defect 9: tables overflowed their cards (the Progress work list's Actions column
and its Reassign button were cut off; the disagreement list clipped the source and had no
target column). In Chromium at 1400×900 and 1024×700, on the demo with a few doubly annotated
pairs submitted by both annotators: every Reassign button and every table lies within its
card (the table wraps, or scrolls inside the card), and the disagreement list shows the
target. Screenshots go to var/test-artifacts/ to be looked at."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from annotator.grid.services import save_annotation
from annotator.management.commands.setup_demo import DEMO_PROJECT, DEMO_USERS, setup_demo
from annotator.models import AnnotationRevision, Assignment, Membership, Project

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "test-artifacts"
PASSWORDS = {username: password for username, password, _role in DEMO_USERS}
SIZES = [(1400, 900), (1024, 700)]


@pytest.fixture
def demo(settings) -> Project:
    setup_demo()
    project = Project.objects.get(name=DEMO_PROJECT)
    # a third annotator with a longer name, as imported projects have: each row's Reassign
    # menu offers them, which widened the Actions column past the card
    extra = get_user_model().objects.create_user("annotator3.msr.corpus", password="x" * 12)
    Membership.objects.create(project=project, user=extra, role=Membership.Role.ANNOTATOR)
    doubles = Assignment.objects.filter(pair__project=project, slot__isnull=False).order_by(
        "pair__position", "slot"
    )
    for n, a in enumerate(doubles[:6]):
        links = [[0, 0, "S"]] if n % 3 else [[0, 0, "S"], [1, 1, "P"]]
        save_annotation(
            assignment=a, user=a.annotator, links=links, base_version=0,
            kind=AnnotationRevision.Kind.SUBMIT,
        )  # fmt: skip
    return project


def _log_in(browser, base: str, width: int, height: int):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", "lead")
    page.fill("input[name=password]", PASSWORDS["lead"])
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return context, page


def _inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
    )


def _visible_boxes(page, selector: str, text: str = "") -> list[dict]:
    """The part of each ``selector`` (containing ``text``) the reader can see: clipped by every
    scrolling ancestor; ``full`` is its whole width."""
    return page.evaluate(
        """([sel, text]) => [...document.querySelectorAll(sel)]
          .filter((el) => el.textContent.includes(text)).map((el) => {
          let r = el.getBoundingClientRect();
          let left = r.left, right = r.right;
          for (let p = el.parentElement; p; p = p.parentElement) {
            const s = getComputedStyle(p);
            if (s.overflowX !== 'visible') {
              const q = p.getBoundingClientRect();
              left = Math.max(left, q.left); right = Math.min(right, q.right);
            }
          }
          return {x: left, width: Math.max(0, right - left), full: r.width};
        })""",
        [selector, text],
    )


@pytest.mark.parametrize("width,height", SIZES)
def test_the_work_lists_reassign_button_and_tables_stay_in_their_cards(
    live_server, chromium_browser, demo, width, height
):
    context, page = _log_in(chromium_browser, live_server.url, width, height)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{live_server.url}/projects/{demo.pk}/progress/")
    page.screenshot(
        path=str(ARTIFACTS / f"tables-fit-progress-{width}x{height}.png"), full_page=True
    )
    page.evaluate("document.getElementById('work').scrollIntoView()")
    page.screenshot(path=str(ARTIFACTS / f"tables-fit-worklist-{width}x{height}.png"))
    card = page.locator("#work").bounding_box()
    buttons = _visible_boxes(page, "#work .work-table td.actions button", "Reassign")
    assert len(buttons) == page.locator("#work .work-table tbody tr").count() >= 20
    for box in buttons:  # every Reassign button wholly within the card, none scrolled away
        assert _inside(box, card) and box["width"] >= box["full"] - 0.5, (box, card)
    for sel in ("#work .work-table", "#by-annotator", "#by-subcorpus"):
        assert _inside(page.locator(sel).bounding_box(), card if sel == "#work .work-table"
                       else page.locator(sel).locator("xpath=ancestor::section").bounding_box())  # fmt: skip
    page.goto(f"{live_server.url}/projects/{demo.pk}/disagreements/")
    page.screenshot(
        path=str(ARTIFACTS / f"tables-fit-disagreements-{width}x{height}.png"), full_page=True
    )
    table = page.locator("table.disagreements")
    section = table.locator("xpath=ancestor::section").bounding_box()
    assert page.locator("table.disagreements th", has_text="Target").count() == 1
    rows = page.locator("table.disagreements tbody tr[data-pair]")
    assert rows.count() >= 1
    for col in ("source", "target"):
        for cell in _visible_boxes(page, f"table.disagreements tbody tr[data-pair] td.{col}"):
            assert _inside(cell, section) and cell["width"] >= cell["full"] - 0.5, (col, cell)
    assert _inside(table.bounding_box(), section)
    context.close()
