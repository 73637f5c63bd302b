"""Every lead and annotator page fits the window it is read in, in a real Chromium at 1400 × 900
and 1024 × 700, on the demo with doubly annotated pairs submitted and an agreement report: no
element sticks out of the page or of its container unless that container scrolls on its own;
at 1400 px the agreement and disagreement tables are shown whole (the page uses the width the
screen has); where a table must scroll sideways, its first column stays in view. Screenshots
go to var/test-artifacts/ to be looked at."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from annotator.models import Assignment
from annotator.reports.services import compute_report
from tests.browser import log_in
from tests.e2e.test_tables_fit_their_cards import ARTIFACTS, SIZES, _log_in, demo  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LEAD_PAGES = [
    "project-detail", "project-pairs", "project-assign", "project-progress", "project-agreement",
    "project-disagreements", "project-adjudication-list", "project-review-queue",
    "project-discussions", "project-settings", "project-members", "project-import",
    "project-documents", "project-export",
]  # fmt: skip
WIDE_TABLE_PAGES = ["project-agreement", "project-disagreements"]

# Elements of the page's main column whose box leaves the box they must stay in: the nearest
# ancestor that clips (overflow other than visible), else the page's column itself; inside an
# ancestor that scrolls (auto, scroll) an element may be wider, the reader scrolls to it.
STICKING_OUT = """() => {
  const column = document.querySelector('main, .page');
  const bounds = column.getBoundingClientRect();
  const out = [];
  for (const el of column.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).position === 'fixed') continue;
    let box = bounds, scrolls = false;
    for (let p = el.parentElement; p && p !== column; p = p.parentElement) {
      const overflow = getComputedStyle(p).overflowX;
      if (overflow !== 'visible') {
        box = p.getBoundingClientRect();
        scrolls = overflow === 'auto' || overflow === 'scroll';
        break;
      }
    }
    if (!scrolls && (r.left < box.left - 1 || r.right > box.right + 1)) {
      out.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}"`);
    }
  }
  if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1)
    out.push('the page scrolls sideways');
  return out;
}"""

# Each sideways-scrolling table: does it scroll, and is its first column still in view once
# it is scrolled to the far end?
SCROLLERS = """() => [...document.querySelectorAll('.table-scroll')].map((s) => {
  const scrolls = s.scrollWidth > s.clientWidth + 1;
  s.scrollLeft = s.scrollWidth;
  const box = s.getBoundingClientRect();
  const first = s.querySelector('tbody tr > :first-child, thead tr > :first-child');
  const r = first ? first.getBoundingClientRect() : box;
  const inView = r.left >= box.left - 1 && r.right <= box.right + 1;
  s.scrollLeft = 0;
  return {id: s.id || s.className, scrolls, firstInView: inView};
})"""


@pytest.fixture
def demo_with_report(demo):  # noqa: F811
    # annotators named as imported corpora name them (MSR's are longer than the demo's): the
    # tables of pairs of annotators grow as wide as they do on a real project
    for user in get_user_model().objects.filter(username__in=["annotator1", "annotator2"]):
        user.username = f"{user.username}.edinburgh-plus-plus"
        user.save()
    compute_report(project=demo, params={"samples": 50})
    return demo


@pytest.mark.parametrize("width,height", SIZES)
def test_every_lead_and_annotator_page_fits_its_window(
    live_server, chromium_browser, demo_with_report, width, height
):
    project = demo_with_report
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    double = Assignment.objects.filter(pair__project=project, slot=2).first()
    urls = [reverse(name, args=[project.pk]) for name in LEAD_PAGES]
    urls.append(reverse("project-adjudicate", args=[project.pk, double.pair_id]))
    urls.append(reverse("project-pair", args=[project.pk, double.pair_id]))
    context, page = _log_in(chromium_browser, live_server.url, width, height)
    problems = {}
    for url in urls:
        page.goto(live_server.url + url)
        name = url.strip("/").replace("/", "-")
        page.screenshot(path=str(ARTIFACTS / f"fit-{name}-{width}x{height}.png"), full_page=True)
        if found := page.evaluate(STICKING_OUT):
            problems[url] = found[:5]
        for table in page.evaluate(SCROLLERS):
            wide = any(reverse(n, args=[project.pk]) == url for n in WIDE_TABLE_PAGES)
            if wide and width >= 1400 and table["scrolls"]:
                problems.setdefault(url, []).append(f"{table['id']} scrolls at {width} px")
            if table["scrolls"] and not table["firstInView"]:
                problems.setdefault(url, []).append(f"{table['id']}: first column scrolled away")
    context.close()
    assert problems == {}, "\n".join(f"{k}: {v}" for k, v in problems.items())


def test_a_19_by_6_pair_is_adjudicated_on_a_whole_grid_at_1024x700(
    live_server, chromium_browser, django_user_model
):
    """The grid box is as tall as the window allows: the last row (with its gold link) is not
    cut at the box's edge when the grid is smaller than the window."""
    from annotator.models import Annotation, Membership, Project, SentencePair

    project = Project.objects.create(name="Tall pair")
    lead = django_user_model.objects.create_user("lead", password="tall-pair-lead-1")
    Membership.objects.create(project=project, user=lead, role="lead")
    pair = SentencePair.objects.create(
        project=project, external_id="tall", position=1,
        source_tokens=[f"row{k}" for k in range(19)], target_tokens=[f"considerations{k}" for k in range(6)],
    )  # fmt: skip
    for slot in (1, 2):
        user = django_user_model.objects.create_user(f"ann{slot}", password="tall-pair-ann-1")
        a = Assignment.objects.create(
            pair=pair, annotator=user, slot=slot, status="submitted", submitted_at=timezone.now()
        )
        Annotation.objects.create(assignment=a, links=[[18, 5, "S"], [0, 0, "S"]], version=1)
    page = log_in(chromium_browser, live_server.url, "lead", "tall-pair-lead-1", 1024, 700)
    page.goto(f"{live_server.url}/projects/{project.pk}/adjudicate/{pair.pk}/")
    last = page.locator("[role=grid] td[data-i='18'][data-j='5']")
    last.scroll_into_view_if_needed()
    box = page.locator(".ga-scroll").evaluate(
        "s => ({inner: s.scrollHeight - s.clientHeight, bottom: s.getBoundingClientRect().bottom})"
    )
    page.screenshot(path=str(ARTIFACTS / "fit-adjudicate-19x6-1024x700.png"))
    assert box["inner"] <= 1, "the grid scrolls inside its box though the window could hold it"
    cell = last.bounding_box()
    assert cell["y"] + cell["height"] <= box["bottom"] + 0.5
    page.context.close()
