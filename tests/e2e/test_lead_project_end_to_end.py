"""Issue 31's "Done when", in ONE Chromium test on the real Edinburgh++ files: a lead (an
account staff made) creates a project at /projects/new/, uploads a small subset of Edinburgh++
(built from ../shared/data/edinburgh in the test's folder, same format) on the Import page and
reads the report, writes Markdown guidelines with a preview and the review policy "after a
lead's review" in Settings, creates two annotator accounts on Members, assigns the pairs with
some annotated twice, watches an annotator's unsubmitted work in the read-only pair view, accepts
a single-annotator submission in the review queue, adjudicates a doubly annotated pair, and
downloads the gold from the Export page. The database is checked after every step.

Needs the shared corpora (skips on a laptop without them, fails under CI=true)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from annotator.models import (
    Assignment,
    AssignmentPlan,
    GoldAlignment,
    GoldReview,
    Job,
    Membership,
    Project,
    SentencePair,
)
from tests.api.helpers import run_queued
from tests.browser import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, databases="__all__")]
PASSWORD = "edinburgh-lead-123"
PAIRS = 10
GUIDELINES = "# Edinburgh++\n\nAlign **content** words; leave punctuation alone."


def edinburgh_subset(shared_data, folder):
    """The ten shortest non-trial pairs of the test split (three subcorpora), as a file of the
    release's own format."""
    rows = json.loads((shared_data / "edinburgh" / "gold.test.sure+poss.json").read_text("utf-8"))
    rows = [r for r in rows if "trial" not in r["id"]]
    picked: list[dict] = []
    for prefix in ("news", "mtc", "novels"):
        mine = sorted((r for r in rows if r["id"].startswith(prefix)),
                      key=lambda r: len(r["source"].split()) + len(r["target"].split()))  # fmt: skip
        picked += mine[: 4 if prefix != "novels" else PAIRS - 8]
    path = folder / "edinburgh-subset.json"
    path.write_text(json.dumps(picked), "utf-8")
    return path, picked


def open_setup(page, name: str) -> None:
    page.locator(".lead-setup > summary").click()
    page.locator(".lead-setup-menu").get_by_role("link", name=name, exact=True).click()


def click_cells(page, assignment_pk: int, base: str, cells) -> None:
    page.goto(f"{base}/annotate/{assignment_pk}/")
    page.wait_for_selector("#annotate[data-ready='1']")
    for i, j in cells:
        page.locator(f"[role=grid] td[data-i='{i}'][data-j='{j}']").click()
    page.wait_for_selector("[data-field=save][data-save-state=saved]")


def submit(page, assignment_pk: int) -> None:
    page.click("[data-action=submit]")
    page.wait_for_url(lambda url: f"/annotate/{assignment_pk}/" not in url)


def create_project_and_import(lead, base, subset, picked) -> Project:
    from playwright.sync_api import expect

    lead.goto(f"{base}/projects/new/")
    lead.fill("input[name=name]", "Edinburgh++ subset")
    lead.fill("input[name=double_annotation_share]", "0.2")
    lead.get_by_role("button", name="Create project").click()
    lead.wait_for_url(re.compile(r"/projects/\d+/$"))
    project = Project.objects.get(name="Edinburgh++ subset")
    assert Membership.objects.get(project=project).role == "lead"

    lead.goto(f"{base}/projects/{project.pk}/pairs/")
    open_setup(lead, "Import")
    lead.wait_for_url(f"**/projects/{project.pk}/import/")
    lead.set_input_files("input[name=file]", str(subset))
    lead.select_option("select[name=format]", "edinburgh")
    lead.click("button:has-text('Upload and import')")
    job = Job.objects.get(project=project, kind="import")
    assert run_queued(job.pk).status == Job.Status.SUCCEEDED  # as the worker would
    summary = lead.locator(".job [data-field=summary]").first
    expect(summary).to_contain_text(f"{PAIRS} pairs read from 1 file(s): {PAIRS} created")
    expect(summary).to_contain_text("subcorpora created:")
    pairs = SentencePair.objects.filter(project=project)
    assert sorted(pairs.values_list("external_id", flat=True)) == sorted(r["id"] for r in picked)
    assert set(pairs.values_list("subcorpus__name", flat=True)) == {"news", "mtc", "novels"}
    assert not GoldAlignment.objects.filter(pair__project=project).exists()  # text only
    return project


def settings_and_members(lead, base, project) -> dict[str, str]:
    from playwright.sync_api import expect

    open_setup(lead, "Settings")
    lead.fill("textarea[name=guidelines]", GUIDELINES)
    lead.get_by_role("button", name="Preview guidelines").click()
    preview = lead.get_by_test_id("guidelines-preview")
    expect(preview.locator("h1")).to_have_text("Edinburgh++")
    expect(preview.locator("strong")).to_have_text("content")
    project.refresh_from_db()
    assert project.guidelines == ""  # a preview saves nothing
    lead.select_option("select[name=single_gold_policy]", "review")
    lead.get_by_role("button", name="Save settings").click()
    expect(lead.locator(".message").first).to_contain_text("Settings saved")
    project.refresh_from_db()
    assert project.guidelines.replace("\r\n", "\n") == GUIDELINES  # a form posts CRLF
    assert project.single_gold_policy == "review"

    passwords = {}
    for name in ("ed-ann1", "ed-ann2"):
        open_setup(lead, "Members")
        lead.fill("input[name=username]:below(:text('Create an annotator account'))", name)
        lead.locator("form:has(input[value=create]) button").click()
        passwords[name] = lead.get_by_test_id("one-time-password").inner_text().strip()
    roles = dict(Membership.objects.filter(project=project).values_list("user__username", "role"))
    assert roles == {"edlead": "lead", "ed-ann1": "annotator", "ed-ann2": "annotator"}
    return passwords


def assign(lead, base, project) -> dict[int, dict[str, Assignment]]:
    lead.locator("nav.lead-nav").get_by_role("link", name="Assign", exact=True).click()
    lead.fill("input[name=share]", "0.2")
    lead.fill("input[name=random_seed]", "31")
    lead.click("button[name=preview]")
    lead.locator("#preview").get_by_text("annotated twice").wait_for()
    lead.get_by_role("button", name="Apply this plan").click()
    lead.wait_for_url(f"**/projects/{project.pk}/progress/")
    plan = AssignmentPlan.objects.get(project=project)
    by_pair: dict[int, dict[str, Assignment]] = {}
    for a in Assignment.objects.filter(plan=plan, withdrawn_at__isnull=True).select_related(
        "annotator"
    ):
        by_pair.setdefault(a.pair_id, {})[a.annotator.username] = a
    assert len(by_pair) == PAIRS
    assert sum(len(v) == 2 for v in by_pair.values()) == 2  # 20 % of 10 annotated twice
    return by_pair


# long: one story, the whole "Done when" path, step by step with its checks
def test_a_lead_runs_an_edinburgh_project_end_to_end_in_the_browser(
    live_server, chromium_browser, django_user_model, shared_data, tmp_path, settings
):
    from playwright.sync_api import expect

    settings.VAR_DIR = tmp_path  # uploads in this test's own folder
    subset, picked = edinburgh_subset(shared_data, tmp_path)
    # staff made the lead's account (the leads' guide): a staff account may create projects
    django_user_model.objects.create_user("edlead", password=PASSWORD, is_staff=True)
    base = live_server.url
    lead = log_in(chromium_browser, base, "edlead", PASSWORD, 1400, 900)

    project = create_project_and_import(lead, base, subset, picked)
    passwords = settings_and_members(lead, base, project)
    by_pair = assign(lead, base, project)
    double_pk = next(pk for pk, v in sorted(by_pair.items()) if len(v) == 2)
    single = next(v["ed-ann1"] for _, v in sorted(by_pair.items()) if list(v) == ["ed-ann1"])

    # The annotator opens the queue, starts a single pair; the lead watches the unsubmitted work.
    ann1 = log_in(chromium_browser, base, "ed-ann1", passwords["ed-ann1"], 1400, 900)
    ann1.goto(f"{base}/projects/{project.pk}/queue/")
    expect(ann1.locator(f"tr[data-assignment='{single.pk}']")).to_be_visible()
    click_cells(ann1, single.pk, base, [(0, 0), (1, 1)])
    lead.goto(f"{base}/projects/{project.pk}/pairs/{single.pair_id}/")
    layer = lead.locator("[data-testid^=layer-a]", has_text="ed-ann1")
    expect(layer).to_contain_text("2 links")
    expect(layer.locator("td.sure")).to_have_count(2)
    submit(ann1, single.pk)
    single.refresh_from_db()
    assert single.status == "submitted"
    assert not GoldAlignment.objects.filter(pair_id=single.pair_id).exists()  # waits for review
    assert GoldReview.objects.get(pair_id=single.pair_id).status == "pending"

    # Both annotators submit the doubly annotated pair, differently.
    ann2 = log_in(chromium_browser, base, "ed-ann2", passwords["ed-ann2"], 1400, 900)
    for page, name, cells in ((ann1, "ed-ann1", [(0, 0)]), (ann2, "ed-ann2", [(0, 0), (1, 0)])):
        a = by_pair[double_pk][name]
        click_cells(page, a.pk, base, cells)
        submit(page, a.pk)
        a.refresh_from_db()
        assert a.status == "submitted"
    assert not GoldReview.objects.filter(pair_id=double_pk).exists()  # waits for adjudication
    assert not GoldAlignment.objects.filter(pair_id=double_pk).exists()

    # The lead accepts the single-annotator submission in the review queue.
    lead.locator("nav.lead-nav").get_by_role("link", name="Review", exact=True).click()
    row = lead.locator("tr", has_text=single.pair.external_id)
    row.get_by_role("button", name="Accept as gold").click()
    expect(lead.locator(".message").first).to_contain_text("accepted as gold")
    gold = GoldAlignment.objects.get(pair_id=single.pair_id)
    assert (gold.origin, gold.links) == ("single", [[0, 0, "S"], [1, 1, "S"]])
    assert GoldReview.objects.get(pair_id=single.pair_id).status == "accepted"

    # ... and adjudicates the doubly annotated pair from the adjudication list (the union).
    lead.locator("nav.lead-nav").get_by_role("link", name="Adjudicate", exact=True).click()
    lead.locator("tr", has_text=SentencePair.objects.get(pk=double_pk).external_id).get_by_role(
        "link", name=re.compile("Adjudicate")
    ).first.click()
    lead.wait_for_url(f"**/adjudicate/{double_pk}/")
    lead.get_by_role("button", name="Union").click()
    lead.fill("#adj-note", "union of both")
    lead.get_by_role("button", name="Save as gold").click()
    expect(lead.locator("#adj-status")).to_contain_text("Saved as gold v1")
    gold = GoldAlignment.objects.get(pair_id=double_pk)
    assert (gold.origin, gold.adjudicator.username) == ("adjudicated", "edlead")
    assert gold.links == [[0, 0, "S"], [1, 0, "S"]] and gold.note == "union of both"

    # The Export page gives the gold: the two pairs, with their links.
    open_setup(lead, "Export")
    expect(lead.locator("[data-field=gold-count]")).to_contain_text("2 pairs with gold")
    lead.select_option("select[name=format]", "jsonl")
    with lead.expect_download() as download:
        lead.get_by_role("button", name="Download the gold").click()
    text = Path(download.value.path()).read_text("utf-8")
    rows = {r["id"]: r for r in map(json.loads, text.splitlines())}
    assert set(rows) == {
        single.pair.external_id,
        SentencePair.objects.get(pk=double_pk).external_id,
    }
    assert rows[single.pair.external_id]["sure"] == [[0, 0], [1, 1]]
    for page in (ann1, ann2, lead):
        page.context.close()
