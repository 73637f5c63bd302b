"""Accessibility, checked by axe-core in a real Chromium (issue 32): the annotator's queue, the
grid (at 1400 × 900 and 1024 × 700, a Latin and an Arabic pair, and after a trial pair's
feedback) and the lead's pages (members, assignment, progress, adjudication list and the
adjudication grid, agreement, disagreements) have no serious or critical violation.

axe-core is the npm package pinned in package.json / package-lock.json, read from
node_modules/ in the repository (``npm ci``) and put into the page by the test: nothing is
fetched from a network. Without it the test skips on a laptop and fails under CI=true.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.models import Assignment, GoldAlignment, Membership
from tests.conftest import REPO_ROOT, need
from tests.e2e.test_grid import PASSWORD, build, login, open_pair
from tests.e2e.test_grid_scripts import FIXTURES
from tests.e2e.test_grid_sizes import SIZES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = REPO_ROOT / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({id: v.id, impact: v.impact, help: v.help,
                  nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " :: " + n.failureSummary)}));
}"""


@pytest.fixture
def axe_page(chromium_browser):
    """A page whose script can be injected past a Content-Security-Policy (the test's own)."""
    need(AXE.exists(), "axe-core in node_modules (npm ci)")
    context = chromium_browser.new_context(bypass_csp=True, viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def serious_violations(page, name):
    page.add_script_tag(content=AXE.read_text("utf-8"))
    found = page.evaluate(RUN_AXE)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"a11y-{name}.png"))
    return found


def test_the_queue_and_the_grid_have_no_serious_violations(
    live_server, axe_page, django_user_model
):
    ar = FIXTURES["ar-en"][0]
    reference = [[0, 0, "S"], [1, 1, "S"], [2, 2, "S"]]
    _, (latin, arabic, trial, _) = build(
        django_user_model,
        [
            {},
            {"source": ar["source"], "target": ar["target"], "seed": ar["links"]},
            {"source": ["a", "b", "c"], "target": ["a", "b", "c"], "seed": reference,
             "trial": True, "gold": reference},
            {},
        ],
    )  # fmt: skip
    page, base = axe_page, live_server.url
    login(page, base)
    failures = {}
    page.goto(f"{base}/projects/{latin.pair.project_id}/queue/")
    failures["queue"] = serious_violations(page, "queue")
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        for name, assignment in (("latin", latin), ("arabic", arabic)):
            open_pair(page, base, assignment)
            failures[f"grid-{name}-{size}"] = serious_violations(page, f"grid-{name}-{size}")
    page.set_viewport_size({"width": 1400, "height": 900})
    open_pair(page, base, trial)
    page.click("[data-action=submit]")
    page.wait_for_selector("[data-field=feedback]:not([hidden])")
    failures["trial-feedback"] = serious_violations(page, "trial-feedback")
    found = {k: v for k, v in failures.items() if v}
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)


def test_the_lead_pages_have_no_serious_violations(live_server, axe_page, django_user_model):
    from tests.app.lead_helpers import save_work

    annotator, (first,) = build(django_user_model, [{}])
    project = first.pair.project
    lead = django_user_model.objects.create_user("lead", password=PASSWORD)
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    second_user = django_user_model.objects.create_user("ann2", password=PASSWORD)
    Membership.objects.create(project=project, user=second_user, role=Membership.Role.ANNOTATOR)
    first.slot = 1
    first.save(update_fields=["slot"])
    second = Assignment.objects.create(
        pair=first.pair, annotator=second_user, seed=first.seed, slot=2
    )
    save_work(first, [[0, 0, "S"], [1, 0, "S"], [2, 1, "P"]], submit=True)
    save_work(second, [[0, 0, "S"], [1, 1, "S"], [2, 1, "S"]], submit=True)
    GoldAlignment.objects.filter(pair=first.pair).delete()
    page, base = axe_page, live_server.url
    login(page, base, username="lead")
    p = project.pk
    pages = {
        "members": f"/projects/{p}/members/",
        "assign": f"/projects/{p}/assign/",
        "progress": f"/projects/{p}/progress/",
        "adjudication-list": f"/projects/{p}/adjudicate/",
        "adjudicate": f"/projects/{p}/adjudicate/{first.pair_id}/",
        "agreement": f"/projects/{p}/agreement/",
        "disagreements": f"/projects/{p}/disagreements/",
        "import": f"/projects/{p}/import/",
    }
    failures = {}
    for name, url in pages.items():
        response = page.goto(base + url)
        assert response.status == 200, (name, response.status)
        if name == "adjudicate":
            page.wait_for_selector("#adj-grid [role=grid]")
        failures[name] = serious_violations(page, f"lead-{name}")
    found = {k: v for k, v in failures.items() if v}
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
