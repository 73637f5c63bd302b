"""The quick start's promise, in a real browser: a login page, and the demo project behind it."""

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_lead_logs_in_and_sees_the_demo_project(live_server, page, capsys):
    call_command("setup_demo", force=True)
    printed = capsys.readouterr().out
    assert "lead" in printed

    page.goto(live_server.url + "/")
    assert "/accounts/login/" in page.url  # anonymous visitors are sent to the login page
    page.fill("input[name=username]", "lead")
    page.fill("input[name=password]", _demo_password("lead"))
    page.click("button[type=submit], input[type=submit]")
    page.wait_for_load_state("networkidle")
    expect(page.get_by_text("Demo: paraphrase alignment").first).to_be_visible()
    assert "/accounts/login/" not in page.url


def test_wrong_password_is_refused(live_server, page):
    call_command("setup_demo", force=True)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=username]", "lead")
    page.fill("input[name=password]", "not-the-password")
    page.click("button[type=submit], input[type=submit]")
    page.wait_for_load_state("networkidle")
    expect(page.locator("form").first).to_be_visible()
    assert "/accounts/login/" in page.url


def expect(locator):
    from playwright.sync_api import expect as playwright_expect  # only when Playwright is there

    return playwright_expect(locator)


def _demo_password(username: str) -> str:
    from annotator.management.commands.setup_demo import DEMO_USERS

    return dict((u, pw) for u, pw, _role in DEMO_USERS)[username]
