"""Issue 33's "Done when" in a real Chromium: a lead uploads two documents in the browser,
reviews the proposed pairs with the keyboard, accepts by threshold and sends them to
annotation; the pairs keep their provenance, and an annotator aligns one on the grid.
Screenshots of the review screen at 1400×900 and 1024×700 go to var/test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotator.jobs.runner import run_job
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


def started(kind: str, timeout: float = 20):
    """The job of ``kind`` the page has just started (it is dispatched, not run: the test runs
    it, as a worker's task would)."""
    import time

    from annotator.models import Job

    deadline = time.monotonic() + timeout
    while not (job := Job.objects.filter(kind=kind).order_by("-pk").first()):
        assert time.monotonic() < deadline, f"no {kind} job was started"
        time.sleep(0.1)
    return job


@pytest.mark.django_db(transaction=True, databases="__all__")  # the jobs' database too
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
    page.click("#send button")  # a job, followed by the page
    run_job(started("document-send").pk)  # as the worker's task would
    expect(page.locator("[data-testid=send-result]")).to_have_text("4 pairs sent to annotation")
    expect(page.locator("[data-testid=review-counts]")).to_contain_text("4 sent")
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


def lead_and_pair(django_user_model, username: str, de: list[str], fr: list[str]):
    """A project led by ``username`` (password ``PASSWORD``) with one aligned document pair of
    these sentences and no bead yet."""
    from django.utils import timezone

    project = Project.objects.create(name=f"{username}'s", monolingual=False)
    lead = django_user_model.objects.create_user(username, password=PASSWORD)
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    return DocumentPair.objects.create(
        project=project, name="long", source_language="de", target_language="fr",
        source_filename="l.de", target_filename="l.fr", source_format="lines",
        target_format="lines", source_sentences=de, target_sentences=fr,
        aligned_at=timezone.now(), created_by=lead,
    )  # fmt: skip


def test_a_long_review_is_drawn_a_page_at_a_time_and_the_keys_cross_pages(
    live_server, chromium_browser, django_user_model
):
    """450 beads: the table holds 200 of them at a time, the pager and the keys move between
    pages (the current bead stays current across the edge), and a decision on the second page
    shows in its row and in the counts of all 450."""
    from playwright.sync_api import expect

    dp = lead_and_pair(django_user_model, "longlead", [f"Satz {k}." for k in range(450)],
                       [f"Phrase {k}." for k in range(450)])  # fmt: skip
    Bead.objects.bulk_create(
        Bead(document_pair=dp, position=k, source=[k], target=[k], confidence=0.9)
        for k in range(450)
    )
    page = log_in(chromium_browser, live_server.url, "longlead", 1024, 700)
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if r.method == "GET" and "/api/" in r.url
            else None)  # fmt: skip
    page.goto(f"{live_server.url}/documents/{dp.pk}/review/")
    rows = page.locator("[data-testid=beads] tbody tr")
    pager = page.locator("[data-testid=review-pager]")
    expect(page.locator("[data-testid=review-counts]")).to_contain_text("450 beads · showing 1–200")
    expect(rows).to_have_count(200)
    expect(pager).to_contain_text("beads 1–200 of 450")
    expect(pager.locator("[data-action=previous]")).to_be_disabled()

    pager.locator("[data-action=next]").click()
    expect(pager).to_contain_text("beads 201–400 of 450")
    expect(rows.first.locator("td").first).to_have_text("201")
    page.keyboard.press("k")  # up from the page's first bead: the previous page, its last bead
    expect(pager).to_contain_text("beads 1–200 of 450")
    expect(rows.nth(199)).to_have_class(re.compile(r"\bcurrent\b"))
    page.keyboard.press("j")
    expect(pager).to_contain_text("beads 201–400 of 450")
    expect(rows.first).to_have_class(re.compile(r"\bcurrent\b"))
    page.keyboard.press("r")
    expect(rows.first).to_have_class(re.compile(r"\bdecision-rejected\b"))
    expect(page.locator("[data-testid=review-counts]")).to_contain_text("1 rejected · 449 pending")
    assert Bead.objects.get(document_pair=dp, position=200).decision == "rejected"
    # the state is read a page at a time, never whole: the first page, then each page moved to
    offsets = [re.search(r"offset=(\d+)&limit=200\b", url) for url in reads]
    assert all(offsets) and [int(m[1]) for m in offsets] == [0, 200, 0, 200], reads

    pager.locator("[data-action=next]").click()
    expect(rows).to_have_count(50)
    expect(pager.locator("[data-action=next]")).to_be_disabled()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    expect(rows.first).to_have_class(re.compile(r"\bcurrent\b"))  # and in view
    expect(rows.first).to_be_in_viewport()
    toolbar = page.locator(".review-toolbar").bounding_box()
    assert rows.first.bounding_box()["y"] >= toolbar["y"] + toolbar["height"]  # not under it
    page.screenshot(path=str(ARTIFACTS / "document-review-long-1024x700.png"))
    page.set_viewport_size({"width": 1400, "height": 900})
    page.screenshot(path=str(ARTIFACTS / "document-review-long-1400x900.png"))


@pytest.mark.django_db(transaction=True, databases="__all__")  # the jobs' database too
def test_learning_runs_as_a_job_and_the_list_then_puts_the_likeliest_first(
    live_server, chromium_browser, django_user_model
):
    """ "Learn from the decisions" starts a job and follows it; when it ends, the page says
    what it learnt and lists the beads likeliest first."""

    from playwright.sync_api import expect

    from annotator.jobs.runner import run_job

    dp = lead_and_pair(
        django_user_model, "learnlead",
        [f"Im Jahr {1900 + k} baute man das Haus Nummer {k}." for k in range(40)],
        [f"En {1900 + k}, on construisit la maison numéro {k}." for k in range(40)],
    )  # fmt: skip
    Bead.objects.bulk_create(
        Bead(document_pair=dp, position=k, source=[k], target=[(k + 7 * (k % 2)) % 40],
             confidence=0.5, decision=("rejected" if k % 2 else "accepted") if k < 24 else "pending")
        for k in range(40)
    )  # fmt: skip
    page = log_in(chromium_browser, live_server.url, "learnlead", 1024, 700)
    page.goto(f"{live_server.url}/documents/{dp.pk}/review/")
    expect(page.locator("[data-testid=review-counts]")).to_contain_text("40 beads")
    page.click("#learn")
    note = page.locator("[data-testid=learn-result]")
    expect(note).to_contain_text("learning")
    expect(page.locator("#learn")).to_be_disabled()
    run_job(started("document-learn").pk)  # as the worker's task would
    expect(note).to_have_text("learnt from 24 decisions; 16 pending beads scored", timeout=10_000)
    expect(page.locator("#order select")).to_have_value("likeliest")
    expect(page.locator("#learn")).to_be_enabled()
    scored = page.locator("[data-testid=beads] tbody tr td.num", has_text=" / ")
    expect(scored).to_have_count(16)  # the learnt score beside the confidence
    assert Bead.objects.filter(document_pair=dp, predicted__isnull=False).count() == 16
