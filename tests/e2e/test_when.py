"""Moments in the reader's own time zone, in a real Chromium set to Asia/Tokyo: the profile's
token dates and the adjudication page's gold history are written the same way ("2026-11-29
13:42"), in Tokyo time, and the page names the zone once."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from annotator.accounts.services.tokens import create_token
from annotator.gold.services.gold import set_gold
from annotator.models import Membership, Project, SentencePair

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
PASSWORD = "when-in-tokyo-1"


def test_moments_are_written_one_way_in_the_readers_zone_named_once(
    live_server, chromium_browser, django_user_model
):
    from playwright.sync_api import expect

    lead = django_user_model.objects.create_user("tokyolead", password=PASSWORD)
    token, _key = create_token(user=lead, name="script")
    project = Project.objects.create(name="Tokyo")
    Membership.objects.create(project=project, user=lead, role="lead")
    pair = SentencePair.objects.create(
        project=project, external_id="t-1", position=1,
        source_tokens=["a", "b"], target_tokens=["a", "b"],
    )  # fmt: skip
    gold = set_gold(pair=pair, links=[[0, 0, "S"]], origin="imported")
    tokyo = ZoneInfo("Asia/Tokyo")

    context = chromium_browser.new_context(
        viewport={"width": 1024, "height": 700}, timezone_id="Asia/Tokyo"
    )
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=username]", "tokyolead")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto(live_server.url + "/accounts/profile/")
    shown = token.created_at.astimezone(tokyo).strftime("%Y-%m-%d %H:%M")
    expect(page.locator("time[data-when]").first).to_have_text(shown)
    expect(page.locator("#time-zone")).to_have_text("Times are in your time zone, Asia/Tokyo.")
    assert page.get_by_text("Asia/Tokyo").count() == 1  # named once

    page.goto(f"{live_server.url}/projects/{project.pk}/adjudicate/{pair.pk}/")
    revision = gold.revisions.get()
    history = page.locator("#adj-history li").first
    expect(history).to_contain_text(
        revision.created_at.astimezone(tokyo).strftime("%Y-%m-%d %H:%M")
    )
    context.close()
