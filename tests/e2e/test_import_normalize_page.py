"""Issue 34 in a real Chromium: a file whose tokens hold a control character (U+0082) is
refused on the Import page with a message naming the "Clean the text" box; ticked, the same
file imports, the report says how many tokens were cleaned, and the pairs hold clean tokens."""

from __future__ import annotations

import json

import pytest

from annotator.models import Job, Membership, Project, SentencePair
from tests.api.helpers import run_queued
from tests.browser import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, databases="__all__")]

PASSWORD = "normalize-pass-123"
ROWS = [
    {"id": "c1", "source": ["the", "Ca\u0082fe", "opened"], "target": ["the", "cafe", "opened"],
     "sure": [[0, 0], [1, 1], [2, 2]]},
    {"id": "c2", "source": ["it", "rained"], "target": ["rain", "fell"], "sure": [[1, 0]]},
]  # fmt: skip
DIRTY = "".join(json.dumps(row) + "\n" for row in ROWS).encode()


def upload(page) -> None:
    page.set_input_files("input[name=file]", files=[{"name": "dirty.jsonl",
        "mimeType": "application/x-ndjson", "buffer": DIRTY}])  # fmt: skip
    page.select_option("select[name=load_as]", "gold")


def test_the_import_page_refuses_then_cleans_with_the_box(
    live_server, chromium_browser, django_user_model
):
    from playwright.sync_api import expect

    project = Project.objects.create(name="Cafes")
    lead = django_user_model.objects.create_user("cleanlead", password=PASSWORD)
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    base = live_server.url
    page = log_in(chromium_browser, base, "cleanlead", PASSWORD, 1400, 900)
    page.goto(f"{base}/projects/{project.pk}/import/")

    upload(page)
    page.click("button:has-text('Upload and import')")
    refusal = page.locator(".refusal").first
    expect(refusal).to_contain_text("U+0082")
    expect(refusal).to_contain_text("Clean the text")
    assert not Job.objects.filter(project=project).exists()

    upload(page)
    page.get_by_label("Clean the text").check()
    page.click("button:has-text('Upload and import')")
    page.wait_for_url(f"**/projects/{project.pk}/import/")
    job = Job.objects.get(project=project, kind="import")
    assert run_queued(job.pk).status == Job.Status.SUCCEEDED
    summary = page.locator(".job").first.locator("[data-field=summary]")
    expect(summary).to_contain_text("normalized: 1 token(s) cleaned in 1 pair(s)")
    stored = SentencePair.objects.get(project=project, external_id="c1")
    assert stored.source_tokens == ["the", "Cafe", "opened"]
