"""The profile page at 1400 × 900 and 1024 × 700: "Create a token" is a button as wide as its
words, like the page's other buttons, not a bar across the card (it stretched with the form).
Screenshots go to var/test-artifacts/ to be looked at."""

from __future__ import annotations

import pytest

from tests.browser import log_in
from tests.e2e.test_tables_fit_their_cards import ARTIFACTS, SIZES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width,height", SIZES)
def test_create_a_token_is_a_button_of_its_own_width(
    live_server, chromium_browser, django_user_model, width, height
):
    django_user_model.objects.create_user("tokenista", password="profile-page-pass-1")
    page = log_in(chromium_browser, live_server.url, "tokenista", "profile-page-pass-1", width,
                  height)  # fmt: skip
    page.goto(f"{live_server.url}/accounts/profile/")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"profile-{width}x{height}.png"), full_page=True)
    create = page.get_by_role("button", name="Create a token").bounding_box()
    save = page.get_by_role("button", name="Save").bounding_box()
    card = page.locator("section.card", has_text="API tokens").bounding_box()
    assert create["width"] < 0.4 * card["width"], (create, card)
    assert abs(create["height"] - save["height"]) <= 2  # the same kind of button as Save
    page.get_by_label("Name").fill("laptop")
    page.get_by_role("button", name="Create a token").click()
    assert page.locator("#new-token").inner_text().strip()
    page.screenshot(path=str(ARTIFACTS / f"profile-new-token-{width}x{height}.png"))
    page.context.close()
