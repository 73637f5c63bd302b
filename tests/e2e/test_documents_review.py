"""Issue 33's "Done when" in a real Chromium: a lead uploads two documents in the browser,
reviews the proposed pairs with the keyboard, accepts by threshold and sends them to
annotation; the pairs keep their provenance, and an annotator aligns one on the grid.
Screenshots of the review screen at 1400×900 and 1024×700 go to var/test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotator.models import Assignment, Bead, DocumentPair, Membership, Project, SentencePair
from tests.browser import log_in as browser_log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "test-artifacts"
PASSWORD = "review-pass-123"
SOURCE = (
    "<html><body><h1>Die Hütte</h1>"
    "<p>Die Hütte liegt auf 2850 Metern. Sie wurde 1906 gebaut.</p>"
    "<p>Im Winter ist sie geschlossen.</p><p>Der Weg dauert vier Stunden.</p></body></html>"
)
TARGET = (
    "<html><body><h1>La cabane</h1>"
    "<p>La cabane se trouve à 2850 mètres. Elle a été construite en 1906.</p>"
    "<p>En hiver, elle est fermée.</p><p>Le chemin dure quatre heures.</p></body></html>"
)


def log_in(browser, base: str, username: str, width: int = 1400, height: int = 900):
    return browser_log_in(browser, base, username, PASSWORD, width, height)


def test_upload_review_send_and_align_one_on_the_grid(
    live_server, chromium_browser, django_user_model
):
    from playwright.sync_api import expect

    project = Project.objects.create(name="Huts", monolingual=False)
    lead = django_user_model.objects.create_user("hutlead", password=PASSWORD)
    annotator = django_user_model.objects.create_user("hutannotator", password=PASSWORD)
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    Membership.objects.create(project=project, user=annotator, role=Membership.Role.ANNOTATOR)
    base = live_server.url

    page = log_in(chromium_browser, base, "hutlead")
    page.goto(f"{base}/projects/{project.pk}/documents/")
    page.set_input_files(
        "input[name=source]",
        files=[{"name": "hut.de.html", "mimeType": "text/html", "buffer": SOURCE.encode()}],
    )
    page.set_input_files("input[name=target]", files=[
        {"name": "hut.fr.html", "mimeType": "text/html", "buffer": TARGET.encode()}])  # fmt: skip
    page.fill("input[name=source_language]", "de")
    page.fill("input[name=target_language]", "fr")
    page.click("button:has-text('Upload and align')")
    page.wait_for_url("**/documents/*/review/")
    rows = page.locator("[data-testid=beads] tbody tr")
    expect(rows).to_have_count(5)  # the heading and four sentences, one to one
    expect(page.locator(".messages")).to_have_text("The document pair uploaded and aligned.")
    dp = DocumentPair.objects.get()
    assert dp.source_format == "html" and dp.source_blocks == [0, 1, 1, 2, 3]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "document-review-1400x900.png"), full_page=True)

    # Keyboard first: down to the second bead, reject it; the decision is saved at once, and
    # answered with that bead alone: its row and the counts are redrawn, nothing is read again.
    calls: list[str] = []
    page.on("request", lambda r: calls.append(f"{r.method} {r.url.split('/api/', 1)[-1]}"))
    page.keyboard.press("j")
    page.keyboard.press("r")
    expect(rows.nth(1)).to_have_class(re.compile(r"\bdecision-rejected\b"))
    expect(rows.nth(1)).to_have_class(re.compile(r"\bcurrent\b"))
    expect(page.locator("[data-testid=review-counts]")).to_contain_text("1 rejected")
    assert [c for c in calls if "document-pairs" in c] == [
        f"POST document-pairs/{dp.pk}/decide/?answer=bead"
    ]
    expect(page.locator(".messages")).to_have_count(0)  # the upload's note is stale now
    assert Bead.objects.get(document_pair=dp, position=1).decision == "rejected"

    page.fill("#accept-above input[name=threshold]", "0")
    page.click("#accept-above button")
    expect(page.locator("[data-testid=review-counts]")).to_contain_text("4 accepted")

    page.fill("#send input[name=subcorpus]", "huts")
    page.click("#send button")
    expect(page.locator("[data-testid=review-counts]")).to_contain_text("4 pairs sent")
    page.set_viewport_size({"width": 1024, "height": 700})
    page.screenshot(path=str(ARTIFACTS / "document-review-1024x700.png"))

    pairs = list(SentencePair.objects.filter(project=project).order_by("position"))
    assert len(pairs) == 4
    assert {tuple(p.metadata["provenance"]["source_sentences"]) for p in pairs} == {
        (0,), (2,), (3,), (4,),
    }  # fmt: skip
    assert pairs[0].source_tokens == ["Die", "Hütte"] and pairs[0].target_tokens == ["La", "cabane"]

    # The annotator aligns one of them on the grid.
    assignment = Assignment.objects.create(pair=pairs[0], annotator=annotator)
    grid = log_in(chromium_browser, base, "hutannotator", 1024, 700)
    grid.goto(f"{base}/annotate/{assignment.pk}/")
    grid.wait_for_selector("#annotate[data-ready='1']")
    grid.locator("[role=grid] td[data-i='1'][data-j='1']").click()
    grid.click("[data-action=submit]")
    grid.wait_for_url(lambda url: f"/annotate/{assignment.pk}/" not in url)
    assignment.refresh_from_db()
    assert assignment.status == "submitted"
    assert assignment.annotation.links[0][:2] == [1, 1]

    # The lead sees the annotator's work, read only, with the pair's provenance.
    for width, height in ((1400, 900), (1024, 700)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{base}/projects/{project.pk}/pairs/{pairs[0].pk}/")
        expect(page.locator("[data-testid=layer-a0] h2")).to_have_text("hutannotator")
        expect(page.locator("main")).to_contain_text("from document pair")
        page.screenshot(path=str(ARTIFACTS / f"pair-view-{width}x{height}.png"), full_page=True)
