"""The review queue for single-annotator gold (issue 31): a project's policy decides whether a
submitted pair only one annotator had becomes gold at once ("immediate") or waits for a lead
("review"); the lead accepts it (gold, origin single) or sends it back (reopened)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.gold.services.gold import GoldError
from annotator.gold.services.review import accept_review, return_review
from annotator.grid.services import submit_annotation
from annotator.models import Assignment, GoldAlignment, GoldReview, Project
from annotator.projects.services.assignment import reopen_assignment

pytestmark = pytest.mark.django_db


def _submit(pair, annotator, links):
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    submit_annotation(assignment=a, user=annotator, links=links, base_version=0)
    return a


def test_immediate_policy_makes_gold_at_once_and_queues_nothing(pair, annotator):
    assert pair.project.single_gold_policy == Project.SingleGold.IMMEDIATE  # today's default
    _submit(pair, annotator, [[0, 0, "S"]])
    assert GoldAlignment.objects.get(pair=pair).origin == "single"
    assert not GoldReview.objects.exists()


def test_review_policy_holds_the_submission_until_a_lead_accepts(pair, annotator, lead):
    Project.objects.filter(pk=pair.project_id).update(single_gold_policy="review")
    pair.project.refresh_from_db()
    a = _submit(pair, annotator, [[1, 1, "S"]])
    assert not GoldAlignment.objects.exists()  # not gold yet
    review = GoldReview.objects.get(pair=pair)
    assert review.status == "pending" and review.assignment == a
    gold = accept_review(review=review, by=lead)
    assert (gold.origin, gold.links, gold.version) == ("single", [[1, 1, "S"]], 1)
    assert gold.revisions.get().author == annotator
    review.refresh_from_db()
    assert review.status == "accepted" and review.decided_by == lead
    with pytest.raises(GoldError, match="reviewed already"):
        accept_review(review=review, by=lead)


def test_review_policy_send_back_reopens_and_writes_no_gold(pair, annotator, lead):
    Project.objects.filter(pk=pair.project_id).update(single_gold_policy="review")
    pair.project.refresh_from_db()
    a = _submit(pair, annotator, [[0, 0, "S"]])
    return_review(review=GoldReview.objects.get(pair=pair), by=lead)
    a.refresh_from_db()
    assert a.status == "in_progress" and not GoldAlignment.objects.exists()
    assert GoldReview.objects.get(pair=pair).status == "returned"


def _pending(pair, annotator):
    Project.objects.filter(pk=pair.project_id).update(single_gold_policy="review")
    pair.project.refresh_from_db()
    _submit(pair, annotator, [[0, 0, "S"]])
    return GoldReview.objects.get(pair=pair)


def test_queue_page_roles(pair, annotator, lead, outsider, client_for):
    review = _pending(pair, annotator)
    url = reverse("project-review-queue", args=[pair.project_id])
    page = client_for(lead).get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert pair.external_id in html
    assert reverse("project-pair", args=[pair.project_id, pair.pk]) in html
    assert reverse("project-adjudicate", args=[pair.project_id, pair.pk]) in html
    assert client_for(annotator).get(url).status_code == 403
    assert client_for(outsider).get(url).status_code == 404
    decide = reverse("project-review-decide", args=[pair.project_id, review.pk])
    assert client_for(annotator).post(decide, {"action": "accept"}).status_code == 403
    assert not GoldAlignment.objects.exists()


def test_lead_accepts_with_one_click_and_the_project_page_counts(pair, annotator, lead, client_for):
    review = _pending(pair, annotator)
    client = client_for(lead)
    detail = client.get(reverse("project-detail", args=[pair.project_id])).content.decode()
    assert '<span class="badge review-count">1</span>' in detail
    decide = reverse("project-review-decide", args=[pair.project_id, review.pk])
    response = client.post(decide, {"action": "accept"})
    assert response.status_code == 302
    assert GoldAlignment.objects.get(pair=pair).links == [[0, 0, "S"]]
    detail = client.get(reverse("project-detail", args=[pair.project_id])).content.decode()
    assert '<span class="badge review-count">0</span>' in detail


def test_the_policy_is_a_project_setting(project, lead, client_for):
    url = reverse("project-settings", args=[project.pk])
    page = client_for(lead).get(url).content.decode()
    assert 'name="single_gold_policy"' in page


def test_a_pair_reopened_elsewhere_cannot_be_accepted_until_resubmitted(pair, annotator, lead):
    review = _pending(pair, annotator)
    reopen_assignment(assignment=review.assignment, by=lead)  # from the work list
    with pytest.raises(GoldError, match="working on this pair again"):
        accept_review(review=review, by=lead)
    assert not GoldAlignment.objects.exists()
