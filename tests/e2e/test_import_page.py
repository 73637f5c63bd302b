"""Issue 31's "upload a corpus in the browser" in a real Chromium: a lead creates a project at
/projects/new/, opens Import, uploads a small Edinburgh++ file as gold, watches the import job's
live bar finish, reads the report and finds the pairs on the project page. Screenshots at
1400×900 and 1024×700 go to var/test-artifacts/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from annotator.models import GoldAlignment, Job, Membership, Project, SentencePair
from tests.api.helpers import run_queued
from tests.browser import log_in as browser_log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, databases="__all__")]

ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "test-artifacts"
PASSWORD = "import-pass-123"
# Edinburgh++ (as /work/shared/data/edinburgh): a JSON list of pairs, links "i-j" 0-based.
EDINBURGH = [
    {"id": "hut:1", "name": "hut:1", "source": "the hut is closed in winter .",
     "target": "the cabin shuts in winter .", "sureAlign": "0-0 1-1 4-3 5-4 6-5",
     "possibleAlign": "2-2 3-2"},
    {"id": "hut:2", "name": "hut:2", "source": "the path takes four hours .",
     "target": "the walk lasts four hours .", "sureAlign": "0-0 1-1 2-2 3-3 4-4 5-5",
     "possibleAlign": ""},
    {"id": "hut:3", "name": "hut:3", "source": "it was built in 1906 .",
     "target": "it dates from 1906 .", "sureAlign": "0-0 4-3 5-4", "possibleAlign": "1-1 2-1 3-2"},
]  # fmt: skip


def log_in(browser, base: str, username: str, width: int = 1400, height: int = 900):
    return browser_log_in(browser, base, username, PASSWORD, width, height)


def test_a_lead_creates_a_project_and_imports_edinburgh_gold_in_the_browser(
    live_server, chromium_browser, django_user_model
):
    from playwright.sync_api import expect

    earlier = Project.objects.create(name="Earlier")  # a lead may create projects
    lead = django_user_model.objects.create_user("importlead", password=PASSWORD)
    Membership.objects.create(project=earlier, user=lead, role=Membership.Role.LEAD)
    base = live_server.url

    page = log_in(chromium_browser, base, "importlead", 1400, 900)
    page.goto(f"{base}/projects/new/")
    page.fill("input[name=name]", "Huts")
    # the default share (0.1) fails the browser's check against step 0.05 (float steps)
    page.fill("input[name=double_annotation_share]", "0.25")
    page.get_by_role("button", name="Create project").click()

    page.wait_for_url(re.compile(r"/projects/\d+/$"))
    project = Project.objects.get(name="Huts")
    page.locator(".lead-links").get_by_role("link", name="Import").click()
    page.wait_for_url(f"**/projects/{project.pk}/import/")
    expect(page.locator(".lead-nav [aria-current=page]")).to_have_text("Import")

    page.set_input_files("input[name=file]", files=[{"name": "huts.json",
        "mimeType": "application/json", "buffer": json.dumps(EDINBURGH).encode()}])  # fmt: skip
    page.select_option("select[name=format]", "edinburgh")
    page.select_option("select[name=load_as]", "gold")
    page.fill("input[name=subcorpus]", "huts")
    page.click("button:has-text('Upload and import')")
    page.wait_for_url(f"**/projects/{project.pk}/import/")
    job_box = page.locator(".job").first
    expect(job_box.locator("[data-field=status]")).to_have_text("Queued")

    job = Job.objects.get(project=project, kind="import")
    assert run_queued(job.pk).status == Job.Status.SUCCEEDED  # as a worker would; the bar polls
    expect(job_box.locator("[data-field=status]")).to_have_text("Succeeded")
    expect(job_box.locator("[data-field=progress]")).to_have_text("100%")
    summary = job_box.locator("[data-field=summary]")
    expect(summary).to_contain_text("3 pairs read from 1 file(s): 3 created")
    expect(summary).to_contain_text("alignments loaded as gold: 3 written (14 sure, 5 possible")
    expect(summary).to_contain_text("subcorpora created: huts")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "import-1400x900.png"), full_page=True)

    assert GoldAlignment.objects.filter(pair__project=project).count() == 3
    assert SentencePair.objects.filter(project=project, subcorpus__name="huts").count() == 3
    page.goto(f"{base}/projects/{project.pk}/")
    row = page.locator("table tr", has_text="huts")
    expect(row.locator("td").nth(1)).to_have_text("3")  # pairs
    expect(row.locator("td").nth(3)).to_have_text("3")  # gold

    small = log_in(chromium_browser, base, "importlead", 1024, 700)
    small.goto(f"{base}/projects/{project.pk}/import/")
    expect(small.locator(".job [data-field=summary]").first).to_contain_text("3 pairs read")
    small.screenshot(path=str(ARTIFACTS / "import-1024x700.png"), full_page=True)
