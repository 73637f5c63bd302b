"""A forgotten password, through the product's own pages, in a real Chromium at 1024 × 700 on a
site that sends no mail: the login page's link says to ask a lead; the lead's Members page gives
a one-time reset link; the annotator opens it, chooses a password and logs in with it."""

from __future__ import annotations

import pytest

from annotator.models import Membership, Project
from tests.e2e.test_tables_fit_their_cards import ARTIFACTS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def log_in(page, base, username, password):
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")


def test_a_lead_hands_a_reset_link_and_the_annotator_chooses_a_password(
    live_server, chromium_browser, django_user_model, settings
):
    from playwright.sync_api import expect

    settings.MAIL_SENDS = False
    project = Project.objects.create(name="Reset by link")
    for name, role in (("resetlead", "lead"), ("forgetful", "annotator")):
        user = django_user_model.objects.create_user(name, password=f"{name}-old-pass-77")
        Membership.objects.create(project=project, user=user, role=role)
    base = live_server.url
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    annotator = chromium_browser.new_context(viewport={"width": 1024, "height": 700})
    page = annotator.new_page()
    page.goto(base + "/accounts/login/")
    page.click("text=Forgotten your password?")
    expect(page.get_by_test_id("no-mail")).to_contain_text("Ask a lead of your project")
    expect(page.locator("body")).not_to_contain_text("Django administration")
    page.screenshot(path=str(ARTIFACTS / "password-forgotten-1024x700.png"))

    lead = chromium_browser.new_context(viewport={"width": 1024, "height": 700})
    lead_page = lead.new_page()
    log_in(lead_page, base, "resetlead", "resetlead-old-pass-77")
    lead_page.wait_for_url(lambda url: "/accounts/login/" not in url)
    lead_page.goto(f"{base}/projects/{project.pk}/members/")
    lead_page.click("[aria-label='A reset link for forgetful']")
    link = lead_page.get_by_test_id("reset-link").inner_text()
    lead_page.screenshot(path=str(ARTIFACTS / "members-reset-link-1024x700.png"))
    lead.close()

    page.goto(link)
    page.fill("input[name=new_password1]", "my-own-choice-5150")
    page.fill("input[name=new_password2]", "my-own-choice-5150")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("Password")
    log_in(page, base, "forgetful", "my-own-choice-5150")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    expect(page.locator(".site-header .who")).to_have_text("forgetful")
    page.goto(link)  # once only
    expect(page.get_by_test_id("link-used")).to_be_visible()
    annotator.close()
