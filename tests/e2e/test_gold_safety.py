"""Issue 31, "gold that is never lost", in a real Chromium: the adjudication page opens on the
current gold (imported gold included, not the annotators' intersection); replacing it by
different or fewer links asks first and a "no" changes nothing; "Save and next" saves and
opens the next pair to adjudicate; gold from fewer submissions than assigned, and empty gold,
each ask first, naming what is missing."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotator.gold.services.gold import set_gold
from annotator.models import (
    Annotation,
    Assignment,
    GoldAlignment,
    Membership,
    Project,
    SentencePair,
)
from tests.browser import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
PASSWORD = "gold-safety-123"
GOLD = [[0, 0, "S"], [1, 1, "S"], [2, 2, "S"], [3, 3, "P"]]


def doubly_annotated(project, external_id, position, users):
    pair = SentencePair.objects.create(
        project=project, external_id=external_id, position=position,
        source_tokens=["the", "cat", "sat", "down"], target_tokens=["a", "cat", "was", "seated"],
    )  # fmt: skip
    for slot, user in enumerate(users, start=1):
        a = Assignment.objects.create(pair=pair, annotator=user, slot=slot, status="submitted",
                                      submitted_at=timezone.now())  # fmt: skip
        Annotation.objects.create(assignment=a, links=[[1, 1, "S"]], version=1)
    return pair


def test_adjudication_opens_on_gold_asks_before_replacing_it_and_saves_and_moves_on(
    live_server, chromium_browser, django_user_model
):
    from playwright.sync_api import expect

    project = Project.objects.create(name="Gold safety")
    lead = django_user_model.objects.create_user("goldlead", password=PASSWORD)
    Membership.objects.create(project=project, user=lead, role="lead")
    users = [django_user_model.objects.create_user(f"ann{k}", password=PASSWORD) for k in (1, 2)]
    first = doubly_annotated(project, "g-1", 1, users)
    second = doubly_annotated(project, "g-2", 2, users)
    set_gold(pair=first, links=GOLD, origin="imported")

    context = chromium_browser.new_context(viewport={"width": 1024, "height": 700})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=username]", "goldlead")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto(f"{live_server.url}/projects/{project.pk}/adjudicate/{first.pk}/")
    # Opens on the imported gold's 4 links, not on the annotators' 1-link intersection.
    expect(page.locator("#adj-counts")).to_contain_text("gold: 4 links")
    expect(page.locator('[data-start="gold"]')).to_have_attribute("aria-pressed", "true")

    page.click('[data-start="intersection"]')  # one click to fewer links
    expect(page.locator("#adj-counts")).to_contain_text("gold: 1 links")
    questions: list[str] = []

    def say_no(dialog):
        questions.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", say_no)
    page.click("button:has-text('Save as gold')")
    expect(page.locator("#adj-status")).to_have_text("Not saved: the current gold is kept.")
    assert "3 FEWER links" in questions[0] and "3 removed" in questions[0]
    assert GoldAlignment.objects.get(pair=first).version == 1  # nothing written

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button:has-text('Save and next')")
    page.wait_for_url(f"**/adjudicate/{second.pk}/")
    gold = GoldAlignment.objects.get(pair=first)
    assert gold.version == 2 and gold.links == [[1, 1, "S"]]
    assert gold.revisions.get(version=1).links == GOLD  # the replaced gold is kept
    context.close()


def test_accepting_a_review_over_different_gold_asks_and_no_writes_nothing(
    live_server, chromium_browser, django_user_model
):
    """The review queue's "Accept as gold" over different gold asks first (issue 31); "no"
    keeps the gold; "yes" replaces it (the old version stays in the history)."""
    from playwright.sync_api import expect

    from annotator.grid.services import submit_annotation
    from tests.browser import log_in

    project = Project.objects.create(name="Review safety", single_gold_policy="review")
    lead = django_user_model.objects.create_user("reviewlead", password=PASSWORD)
    Membership.objects.create(project=project, user=lead, role="lead")
    ann = django_user_model.objects.create_user("reviewann", password=PASSWORD)
    pair = SentencePair.objects.create(
        project=project, external_id="r-1", position=1,
        source_tokens=["the", "cat", "sat", "down"], target_tokens=["a", "cat", "was", "seated"],
    )  # fmt: skip
    set_gold(pair=pair, links=GOLD, origin="imported")
    a = Assignment.objects.create(pair=pair, annotator=ann)
    submit_annotation(assignment=a, user=ann, links=[[1, 1, "S"]], base_version=0)

    page = log_in(chromium_browser, live_server.url, "reviewlead", PASSWORD, 1024, 700)
    page.goto(f"{live_server.url}/projects/{project.pk}/review/")
    row = page.locator("tr", has_text="r-1")
    expect(row).to_contain_text("differs")
    questions: list[str] = []

    def say_no(dialog):
        questions.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", say_no)
    row.get_by_role("button", name="Accept as gold").click()
    expect(row).to_be_visible()
    assert "replaces gold v1 (4 links, imported)" in questions[0]
    assert "3 FEWER links" in questions[0]
    assert GoldAlignment.objects.get(pair=pair).version == 1  # nothing written

    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Accept as gold").click()
    expect(page.locator(".message").first).to_contain_text("r-1 accepted as gold")
    gold = GoldAlignment.objects.get(pair=pair)
    assert (gold.version, gold.links, gold.origin) == (2, [[1, 1, "S"]], "single")
    assert gold.revisions.get(version=1).links == GOLD
    page.context.close()


def test_gold_before_the_annotators_submit_or_with_no_links_asks_first_naming_what_is_missing(
    live_server, chromium_browser, django_user_model
):
    from playwright.sync_api import expect

    project = Project.objects.create(name="Gold from nothing")
    lead = django_user_model.objects.create_user("nothinglead", password=PASSWORD)
    Membership.objects.create(project=project, user=lead, role="lead")
    pair = SentencePair.objects.create(
        project=project, external_id="n-1", position=1,
        source_tokens=["the", "cat"], target_tokens=["a", "cat"],
    )  # fmt: skip
    for slot, name in enumerate(("nobody1", "nobody2"), start=1):
        user = django_user_model.objects.create_user(name, password=PASSWORD)
        Assignment.objects.create(pair=pair, annotator=user, slot=slot)  # 0 of 2 submitted

    page = log_in(chromium_browser, live_server.url, "nothinglead", PASSWORD, 1024, 700)
    page.goto(f"{live_server.url}/projects/{project.pk}/adjudicate/{pair.pk}/")
    expect(page.locator("#adj-counts")).to_contain_text("gold: 0 links")
    questions: list[str] = []

    def answer(*replies):
        pending = list(replies)

        def reply(dialog):
            questions.append(dialog.message)
            dialog.accept() if pending.pop(0) else dialog.dismiss()

        page.on("dialog", reply)
        return reply

    save = "button:has-text('Save as gold')"
    handler = answer(False)
    page.click(save)
    expect(page.locator("#adj-status")).to_have_text("Not saved: waiting for the annotators' work.")
    page.remove_listener("dialog", handler)
    assert "0 of 2 annotators have submitted" in questions[0]
    assert "nobody1 (assigned), nobody2 (assigned)" in questions[0]

    handler = answer(True, False)
    page.click(save)
    expect(page.locator("#adj-status")).to_have_text("Not saved: the gold has no links.")
    page.remove_listener("dialog", handler)
    assert "no links" in questions[2] and len(questions) == 3
    assert not GoldAlignment.objects.filter(pair=pair).exists()  # nothing written

    handler = answer(True, True)
    page.click(save)
    expect(page.locator("#adj-status")).to_have_text("Saved as gold v1")
    assert GoldAlignment.objects.get(pair=pair).links == []
    page.context.close()
