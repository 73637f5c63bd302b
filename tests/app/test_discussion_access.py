"""Who a discussion thread can be about, and where posting leads back to.

A thread is (pair, annotator): it exists only for an annotator who has (or had) an assignment
on the pair, for the project's leads as for the annotator, so a lead can neither list usernames
by walking user ids through the thread URL nor post a thread to a non-member. After posting,
``next`` is followed only to a path of this site (``url_has_allowed_host_and_scheme``)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.models import Assignment, Membership, PairMessage

pytestmark = pytest.mark.django_db

FOREIGN = ["https://evil.example/", "//evil.example/", "/\\evil.example/", "\\\\evil.example",
           "http:/evil.example", " //evil.example/"]  # fmt: skip


def _url(pair, user_id):
    return reverse("pair-discussion", args=[pair.project_id, pair.pk, user_id])


@pytest.mark.parametrize("who", ["outsider", "unassigned_member", "lead"])
def test_a_lead_gets_404_for_a_thread_of_someone_not_assigned_the_pair(
    request, make_user, project, pair, lead, annotator, client_for, who
):
    Assignment.objects.create(pair=pair, annotator=annotator)
    if who == "outsider":
        target = request.getfixturevalue("outsider")
    elif who == "unassigned_member":
        target = make_user("member_without_pair")
        Membership.objects.create(project=project, user=target, role="annotator")
    else:
        target = lead
    client = client_for(lead)
    page = client.get(_url(pair, target.pk))
    assert page.status_code == 404
    assert f"With {target.username}" not in page.content.decode()
    assert client.post(_url(pair, target.pk), {"body": "hello"}).status_code == 404
    assert PairMessage.objects.count() == 0


def test_a_lead_still_reads_and_answers_an_assigned_annotators_thread(
    pair, lead, annotator, client_for
):
    Assignment.objects.create(pair=pair, annotator=annotator)
    client = client_for(lead)
    assert f"With {annotator.username}" in client.get(_url(pair, annotator.pk)).content.decode()
    assert client.post(_url(pair, annotator.pk), {"body": "hello"}).status_code == 302
    assert PairMessage.objects.get().annotator == annotator


@pytest.mark.parametrize("next_url", FOREIGN)
def test_after_posting_a_foreign_next_is_not_followed(pair, lead, annotator, client_for, next_url):
    Assignment.objects.create(pair=pair, annotator=annotator)
    response = client_for(lead).post(_url(pair, annotator.pk), {"body": "hello", "next": next_url})
    assert response.status_code == 302
    assert response["Location"] == _url(pair, annotator.pk)


def test_after_posting_a_path_of_the_site_is_followed(pair, lead, annotator, client_for):
    Assignment.objects.create(pair=pair, annotator=annotator)
    back = reverse("project-discussions", args=[pair.project_id])
    response = client_for(lead).post(_url(pair, annotator.pk), {"body": "hi", "next": back})
    assert response["Location"] == back


@pytest.mark.parametrize("next_url", FOREIGN)
def test_an_assignment_action_does_not_follow_a_foreign_next(
    pair, lead, annotator, client_for, next_url
):
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    url = reverse("project-assignment-action", args=[pair.project_id, a.pk, "withdraw"])
    response = client_for(lead).post(url, {"next": next_url})
    assert response.status_code == 302
    assert response["Location"] == reverse("project-progress", args=[pair.project_id])
