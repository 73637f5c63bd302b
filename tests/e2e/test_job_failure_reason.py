"""A job fails while an annotator and a lead watch the project page: the live job box
(jobs.js polling the job JSON) shows the annotator the one-line reason, the lead the traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.jobs.runner import fail_job
from annotator.models import Job, Membership, Project
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = REPO_ROOT / "var" / "test-artifacts"
TRACEBACK = (
    "ValueError: pair 'x7': link 0-9 out of range\n\n"
    "Traceback (most recent call last):\n"
    '  File "/app/annotator/services/seeding.py", line 151, in seed_work\n'
    "ValueError: pair 'x7': link 0-9 out of range"
)


def log_in(page, url: str, username: str) -> None:
    page.goto(url + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "watch-password-1")
    page.click("button[type=submit]")


def test_a_failing_job_shows_annotators_the_reason_and_leads_the_traceback(
    live_server, chromium_browser, django_user_model
):
    from playwright.sync_api import expect

    project = Project.objects.create(name="Failing job")
    for name, role in (("lead", "lead"), ("annotator", "annotator")):
        user = django_user_model.objects.create_user(name, password="watch-password-1")
        Membership.objects.create(project=project, user=user, role=role)
    job = Job.objects.create(kind="seed", project=project, status="running", message="Training")

    pages = {}
    for name in ("annotator", "lead"):
        page = chromium_browser.new_context().new_page()
        page.set_default_timeout(10_000)
        log_in(page, live_server.url, name)
        page.goto(f"{live_server.url}/projects/{project.pk}/")
        expect(page.locator(f"#job-{job.pk} [data-field=status]")).to_have_text("Running")
        pages[name] = page

    fail_job(job_id=job.pk, message="Failed: ValueError: pair 'x7'", error=TRACEBACK)

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, page in pages.items():
        box = page.locator(f"#job-{job.pk}")
        expect(box.locator("[data-field=status]")).to_have_text("Failed", timeout=15_000)
        error = box.locator("[data-field=error]")
        expect(error).to_be_visible()
        if name == "annotator":
            expect(error).to_have_text("ValueError: pair 'x7': link 0-9 out of range")
        else:
            expect(error).to_contain_text("Traceback (most recent call last)")
        box.screenshot(path=str(Path(ARTIFACTS) / f"job-failure-{name}.png"))
        page.context.close()
