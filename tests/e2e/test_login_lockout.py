"""In a real browser: five wrong passwords on the login form, then the lockout page says what
happened and for how long, and the right password is refused until the cool-off ends."""

from __future__ import annotations

import pytest

from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = REPO_ROOT / "var" / "test-artifacts"


def submit(page, url: str, password: str):
    page.goto(url + "/accounts/login/")
    page.fill("input[name=username]", "lead")
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("button[type=submit]")


def test_the_login_form_locks_after_five_wrong_passwords(live_server, page, django_user_model):
    from playwright.sync_api import expect

    django_user_model.objects.create_user("lead", password="lead-password-1")
    for _ in range(4):
        submit(page, live_server.url, "wrong")
        expect(page.get_by_role("alert")).to_contain_text("didn't match")
    submit(page, live_server.url, "wrong")
    expect(page.get_by_role("heading", name="Login locked")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("locked for 15 minutes")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "login-locked.png"))

    submit(page, live_server.url, "lead-password-1")
    expect(page.get_by_role("heading", name="Login locked")).to_be_visible()
    page.goto(live_server.url + "/")
    assert "/accounts/login/" in page.url  # still not logged in
