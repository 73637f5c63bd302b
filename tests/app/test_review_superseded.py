"""Issue 31: adjudicating a pair supersedes its single-annotator submission still waiting in
the review queue (it leaves the queue, marked "superseded"); accepting a submission whose pair
already has DIFFERENT gold asks first (the page's confirm, as adjudication asks) and without
the lead's confirmation nothing is written."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.gold.services.adjudication import adjudicate
from annotator.gold.services.gold import set_gold
from annotator.gold.services.review import ReplaceUnconfirmed, accept_review
from annotator.grid.services import submit_annotation
from annotator.links import links_difference
from annotator.models import Assignment, GoldAlignment, GoldReview, GoldRevision, Project

pytestmark = pytest.mark.django_db
IMPORTED = [[0, 0, "S"], [1, 1, "S"], [2, 2, "P"]]


def pending(pair, annotator, links):
    Project.objects.filter(pk=pair.project_id).update(single_gold_policy="review")
    pair.project.refresh_from_db()
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    submit_annotation(assignment=a, user=annotator, links=links, base_version=0)
    return GoldReview.objects.get(pair=pair, status="pending")


def test_links_difference_counts_added_removed_changed_and_fewer():
    d = links_difference(IMPORTED, [[0, 0, "P"], [3, 3, "S"]])
    assert d == {"added": 1, "removed": 2, "changed": 1, "fewer": 1}
    assert links_difference(IMPORTED, list(IMPORTED)) == {
        "added": 0, "removed": 0, "changed": 0, "fewer": 0,
    }  # fmt: skip


def test_adjudicating_a_pair_supersedes_its_pending_review(pair, annotator, lead, client_for):
    review = pending(pair, annotator, [[0, 0, "S"]])
    page = reverse("project-adjudicate", args=[pair.project_id, pair.pk])
    html = client_for(lead).get(page).content.decode()
    assert "annotator_user's submission of this pair waits in the" in html  # says so first
    adjudicate(pair=pair, links=[[1, 1, "S"]], adjudicator=lead, version=0)
    assert 'data-testid="pending-review"' not in client_for(lead).get(page).content.decode()
    review.refresh_from_db()
    assert review.status == "superseded" and review.decided_by == lead and review.decided_at
    queue = client_for(lead).get(reverse("project-review-queue", args=[pair.project_id]))
    assert "Nothing waiting for review." in queue.content.decode()
    gold = GoldAlignment.objects.get(pair=pair)
    assert (gold.origin, gold.links) == ("adjudicated", [[1, 1, "S"]])
    # the superseded review can no longer be accepted over the adjudicated gold
    with pytest.raises(Exception, match="reviewed already"):
        accept_review(review=review, by=lead, replace_version=gold.version)
    assert GoldAlignment.objects.get(pair=pair).version == 1


def test_accepting_over_different_gold_needs_the_leads_confirmation(pair, annotator, lead):
    set_gold(pair=pair, links=IMPORTED, origin="imported")
    review = pending(pair, annotator, [[0, 0, "S"]])
    with pytest.raises(ReplaceUnconfirmed, match=r"gold v1 \(3 links, imported\).*2 FEWER links"):
        accept_review(review=review, by=lead)
    gold = GoldAlignment.objects.get(pair=pair)
    assert (gold.version, gold.links) == (1, IMPORTED)  # nothing written
    review.refresh_from_db()
    assert review.status == "pending"
    with pytest.raises(ReplaceUnconfirmed):  # a stale confirmation (another version) is no yes
        accept_review(review=review, by=lead, replace_version=7)
    gold = accept_review(review=review, by=lead, replace_version=1)
    assert (gold.version, gold.links, gold.origin) == (2, [[0, 0, "S"]], "single")
    assert GoldRevision.objects.get(gold=gold, version=1).links == IMPORTED  # kept


def test_accepting_the_same_links_as_the_gold_asks_nothing(pair, annotator, lead):
    set_gold(pair=pair, links=IMPORTED, origin="imported")
    review = pending(pair, annotator, IMPORTED)
    assert accept_review(review=review, by=lead).version == 2


def test_the_queue_page_asks_before_replacing_and_a_post_without_yes_writes_nothing(
    pair, annotator, lead, client_for
):
    set_gold(pair=pair, links=IMPORTED, origin="imported")
    review = pending(pair, annotator, [[0, 0, "S"]])
    client = client_for(lead)
    html = client.get(reverse("project-review-queue", args=[pair.project_id])).content.decode()
    assert 'name="replace_version" value="1"' in html
    assert "This replaces gold v1 (3 links, imported) with the submission's 1 links" in html
    assert "The new gold has 2 FEWER links." in html and "differs" in html
    decide = reverse("project-review-decide", args=[pair.project_id, review.pk])
    page = client.post(decide, {"action": "accept"}, follow=True).content.decode()
    assert "confirm to replace it. Nothing was written." in page
    assert GoldAlignment.objects.get(pair=pair).version == 1
    client.post(decide, {"action": "accept", "replace_version": "1"})
    assert GoldAlignment.objects.get(pair=pair).links == [[0, 0, "S"]]


def test_the_migration_supersedes_reviews_left_pending_by_an_earlier_adjudication(
    pair, annotator, lead
):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("annotator.migrations.0007_gold_review_superseded")
    review = pending(pair, annotator, [[0, 0, "S"]])
    # as before this change: adjudicated gold written, the review left pending
    set_gold(pair=pair, links=[[1, 1, "S"]], origin="adjudicated", author=lead)
    migration.supersede_reviews_of_adjudicated_pairs(apps, None)
    review.refresh_from_db()
    assert review.status == "superseded" and review.decided_by == lead
