"""Issue 8's "Done when", in a real Chromium against a live server and a real Celery worker:
the demo lead assigns the demo project with double annotation on the assignment page, both demo
annotators submit pairs through the grid, the lead computes the agreement report (a job the
worker runs, followed by the live bar), the dashboard shows tables and plots, a disagreement
is adjudicated into gold through the overlay, and the progress page shows the time spent.

Screenshots of the dashboard, its charts, the disagreement browser, the overlay and the
progress page go to var/test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.management.commands.setup_demo import DEMO_USERS, setup_demo
from annotator.models import (
    AgreementReport,
    AnnotationRevision,
    Assignment,
    AssignmentPlan,
    GoldAlignment,
    GoldRevision,
)
from annotator.templatetags.lead import duration

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "test-artifacts"
PASSWORDS = {username: password for username, password, _role in DEMO_USERS}
SHARED_PAIRS = 3  # doubly annotated pairs both annotators submit


def shot(target, name: str, **options) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(ARTIFACTS / f"{name}.png"), **options)


def log_in(browser, base: str, username: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORDS[username])
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return page


def annotate_and_submit(page, base: str, assignment: Assignment, cells: list[tuple[int, int]]):
    """Open the pair in the grid, click ``cells`` (each click cycles none → sure → possible),
    wait a moment (time spent is measured between opening and saving) and submit."""
    page.goto(f"{base}/annotate/{assignment.pk}/")
    page.wait_for_selector("#annotate[data-ready='1']")
    for i, j in cells:
        page.locator(f"[role=grid] td[data-i='{i}'][data-j='{j}']").click()
    page.wait_for_timeout(1200)
    page.click("[data-action=submit]")
    page.wait_for_url(lambda url: f"/annotate/{assignment.pk}/" not in url)


def test_the_lead_assigns_annotators_submit_and_the_lead_reports_and_adjudicates(
    live_server, chromium_browser, start_worker
):
    from playwright.sync_api import expect

    project = setup_demo()["project"]
    worker = start_worker(pool="prefork")
    base = live_server.url

    # 1. The lead assigns the demo project, a half of it annotated twice, re-dealing the work
    #    setup_demo gave out (nobody has started it).
    lead = log_in(chromium_browser, base, "lead")
    lead.goto(f"{base}/projects/{project.pk}/assign/")
    lead.fill("input[name=share]", "0.5")
    lead.fill("input[name=random_seed]", "8")
    lead.check("input[name=rebalance]")
    lead.click("button[name=preview]")
    preview = lead.locator("#preview")
    expect(preview).to_contain_text("annotated twice")
    for name in ("annotator1", "annotator2"):
        expect(preview.locator(f"tr[data-annotator={name}]")).to_be_visible()
    lead.get_by_role("button", name="Apply this plan").click()
    lead.wait_for_url(f"**/projects/{project.pk}/progress/")
    plan = AssignmentPlan.objects.get(project=project)
    assert plan.params["share"] == 0.5 and plan.params["random_seed"] == 8
    assert plan.created_by.username == "lead"
    doubles = {}
    for a in Assignment.objects.filter(
        plan=plan, withdrawn_at__isnull=True, slot__in=[1, 2], pair__is_trial=False
    ).select_related("annotator", "pair"):
        doubles.setdefault(a.pair_id, {})[a.annotator.username] = a
    assert doubles and all(len(both) == 2 for both in doubles.values())
    assert all({a.slot for a in both.values()} == {1, 2} for both in doubles.values())
    shared = [doubles[pid] for pid in sorted(doubles)[:SHARED_PAIRS]]

    # 2. Both annotators submit the same doubly annotated pairs through the grid, differently.
    for name, cells in (("annotator1", [(0, 0), (1, 1)]), ("annotator2", [(0, 1), (1, 0)])):
        page = log_in(chromium_browser, base, name)
        for both in shared:
            annotate_and_submit(page, base, both[name], cells)
        page.context.close()
    for both in shared:
        for a in both.values():
            a.refresh_from_db()
            assert a.status == "submitted", a

    # 3. The lead computes the report: a job on the worker, followed by the live bar; the page
    #    reloads itself when it succeeds and shows the tables and plots.
    lead.goto(f"{base}/projects/{project.pk}/agreement/")
    lead.fill("input[name=samples]", "200")
    lead.get_by_role("button", name="Compute agreement").click()
    try:
        expect(lead.locator("#table-word")).to_be_visible(timeout=90_000)
    except AssertionError:
        pytest.fail(f"the dashboard never showed the report; the worker said:\n{worker.log}")
    report = AgreementReport.objects.get(project=project)
    subcorpora = {both["annotator1"].pair.subcorpus.name for both in shared}
    expect(lead.locator("#table-word tbody tr")).to_have_count(len(subcorpora) + 1)  # + all
    assert report.job is not None and report.job.status == "succeeded"
    assert report.result["inputs"]["doubly_annotated"] == SHARED_PAIRS
    expect(lead.locator(".fresh")).to_contain_text("Up to date")
    for table in ("word", "phrase", "kappa", "seed-word", "seed-phrase", "pairwise", "classic"):
        expect(lead.locator(f"#table-{table} a.csv-link")).to_be_visible()
    for chart in ("by-length", "pairwise", "edit-rates"):
        expect(lead.locator(f"[data-chart={chart}] svg.chart-svg").first).to_be_visible()
    # the F1 bar is as tall as its value (66.7 % of the axis is not a sliver)
    bar = lead.locator("[data-chart=pairwise] rect.chart-bar").first
    assert float(bar.get_attribute("height")) > 10
    assert lead.locator("[data-chart=by-length] .chart-legend li").count() == 6  # 3 × 2 levels
    shot(lead, "lead_dashboard", full_page=True)
    shot(lead.locator("[data-chart=by-length]").first.locator("xpath=ancestor::section"),
         "lead_dashboard_figure4")  # fmt: skip
    shot(lead.locator("[data-chart=edit-rates]").first.locator("xpath=ancestor::section"),
         "lead_dashboard_edit_rates")  # fmt: skip

    # 4. The disagreement browser, lowest F1 first, filtered by annotator pair and subcorpus.
    lead.goto(f"{base}/projects/{project.pk}/disagreements/")
    rows = lead.locator("table.disagreements tbody tr[data-pair]")
    expect(rows).to_have_count(SHARED_PAIRS)
    lead.select_option("select[name=annotators]", "annotator1+annotator2")
    lead.click(".filters button[type=submit]")
    expect(rows).to_have_count(SHARED_PAIRS)
    subcorpus = rows.first.locator("td").nth(1).inner_text()
    lead.select_option("select[name=subcorpus]", subcorpus)
    lead.click(".filters button[type=submit]")
    for k in range(rows.count()):
        assert rows.nth(k).locator("td").nth(1).inner_text() == subcorpus
    lead.select_option("select[name=subcorpus]", "*")
    lead.click(".filters button[type=submit]")
    expect(rows).to_have_count(SHARED_PAIRS)
    f1 = [rows.nth(k).locator("td.num").first.inner_text() for k in range(rows.count())]
    defined = [float(v) for v in f1 if v != "–"]
    assert defined == sorted(defined)  # lowest first, undefined F1 ("–") last
    assert all(v == "–" for v in f1[len(defined) :])
    shot(lead, "lead_disagreements", full_page=True)

    # 5. The first (least agreeing) pair opens in the overlay and is adjudicated into gold.
    pair_id = int(rows.first.get_attribute("data-pair"))
    before = GoldRevision.objects.filter(gold__pair_id=pair_id).count()
    rows.first.get_by_role("link", name="Adjudicate").click()
    lead.wait_for_url(f"**/adjudicate/{pair_id}/")
    grid = lead.locator("#adj-grid [role=grid]")
    expect(grid).to_be_visible()
    expect(lead.locator("#adj-grid [data-overlay]").first).to_be_visible()
    expect(lead.locator("#adj-who")).to_contain_text("A (annotator")
    shot(lead, "lead_adjudication", full_page=True)
    lead.get_by_role("button", name="Union").click()
    grid.locator("td[data-i='2'][data-j='2']").click()  # an edit with the grid's own controls
    lead.fill("#adj-note", "union of both, plus one link")
    # The pair may already have gold (a submission made it gold): replacing it asks first.
    lead.on("dialog", lambda dialog: dialog.accept())
    lead.get_by_role("button", name="Save as gold").click()
    expect(lead.locator("#adj-status")).to_contain_text("Saved as gold v")
    gold = GoldAlignment.objects.get(pair_id=pair_id)
    assert gold.origin == "adjudicated" and gold.adjudicator.username == "lead"
    assert gold.note == "union of both, plus one link"
    assert GoldRevision.objects.filter(gold=gold).count() == before + 1
    expect(lead.locator("#adj-history li").first).to_contain_text("adjudicated")
    shot(lead, "lead_adjudication_saved", full_page=True)

    # 6. The progress page shows the time each annotator spent (from the revisions).
    lead.goto(f"{base}/projects/{project.pk}/progress/")
    for name in ("annotator1", "annotator2"):
        seconds = sum(
            r.elapsed_seconds
            for r in AnnotationRevision.objects.filter(
                annotation__assignment__annotator__username=name,
                annotation__assignment__pair__project=project,
            )
        )
        assert seconds >= 1
        row = lead.locator("#by-annotator tbody tr", has_text=name)
        expect(row.locator("[data-field=time]")).to_have_text(duration(seconds))
        expect(row.locator("td").nth(4)).to_have_text(str(SHARED_PAIRS))  # submitted
    shot(lead, "lead_progress")
    lead.context.close()
