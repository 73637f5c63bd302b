"""A discussion per pair (issue 31): a flag opens the annotator's thread; leads read and answer
every thread of their projects; an annotator sees only their own threads on their own pairs
(the blind rule), and the lead's answer as a badge in their queue; outsiders see nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.grid.services import flag_assignment
from annotator.models import Assignment, Membership, PairMessage

pytestmark = pytest.mark.django_db


@pytest.fixture
def other(make_user, project):
    user = make_user("other-annotator")
    Membership.objects.create(project=project, user=user, role="annotator")
    return user


def _thread_url(pair, user):
    return reverse("pair-discussion", args=[pair.project_id, pair.pk, user.pk])


def test_a_flag_opens_the_annotators_thread(pair, annotator):
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    flag_assignment(assignment=a, user=annotator, reason="unsure", note="is 'sat' a phrase?")
    message = PairMessage.objects.get()
    assert (message.pair, message.annotator, message.author) == (pair, annotator, annotator)
    assert message.body == "Flagged: Unsure. is 'sat' a phrase?"
    flag_assignment(assignment=a, user=annotator, reason="")  # clearing posts nothing
    assert PairMessage.objects.count() == 1


def test_lead_answers_and_the_annotator_sees_the_answer(pair, annotator, lead, client_for):
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    flag_assignment(assignment=a, user=annotator, reason="other", note="typo in source")
    client = client_for(lead)
    pair_page = client.get(reverse("project-pair", args=[pair.project_id, pair.pk]))
    assert "typo in source" in pair_page.content.decode()  # the thread is on the pair view
    listing = client.get(reverse("project-discussions", args=[pair.project_id])).content.decode()
    assert pair.external_id in listing and annotator.username in listing
    response = client.post(_thread_url(pair, annotator), {"body": "Keep it; note it."})
    assert response.status_code == 302
    assert PairMessage.objects.last().author == lead

    client = client_for(annotator)
    queue = client.get(reverse("project-queue", args=[pair.project_id])).content.decode()
    assert "lead answered" in queue and _thread_url(pair, annotator) in queue
    thread = client.get(_thread_url(pair, annotator)).content.decode()
    assert "Keep it; note it." in thread and "typo in source" in thread


def test_the_queue_shows_no_badge_before_the_answer(pair, annotator, client_for):
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    flag_assignment(assignment=a, user=annotator, reason="unsure")
    queue = client_for(annotator).get(reverse("project-queue", args=[pair.project_id]))
    html = queue.content.decode()
    assert "lead answered" not in html and _thread_url(pair, annotator) in html


def test_an_annotator_sees_only_their_own_threads(pair, annotator, other, client_for):
    mine = Assignment.objects.create(pair=pair, annotator=annotator, slot=1)
    theirs = Assignment.objects.create(pair=pair, annotator=other, slot=2)
    flag_assignment(assignment=mine, user=annotator, reason="other", note="mine")
    flag_assignment(assignment=theirs, user=other, reason="other", note="secret of B")
    client = client_for(annotator)
    assert client.get(_thread_url(pair, other)).status_code == 404  # another's thread: blind
    response = client.post(_thread_url(pair, other), {"body": "peek"})
    assert response.status_code == 404
    own = client.get(_thread_url(pair, annotator)).content.decode()
    assert "mine" in own and "secret of B" not in own
    assert client.get(reverse("project-discussions", args=[pair.project_id])).status_code == 403
    assert client.get(reverse("project-pair", args=[pair.project_id, pair.pk])).status_code == 403
    assert not PairMessage.objects.filter(body="peek").exists()


def test_an_annotator_without_the_pair_sees_no_thread_on_it(pair, annotator, other, client_for):
    Assignment.objects.create(pair=pair, annotator=other)
    # annotator is a member but has no assignment on the pair: even "their own" thread is 404
    assert client_for(annotator).get(_thread_url(pair, annotator)).status_code == 404


def test_outsiders_see_nothing(pair, annotator, outsider, client_for):
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    flag_assignment(assignment=a, user=annotator, reason="unsure")
    client = client_for(outsider)
    assert client.get(_thread_url(pair, annotator)).status_code == 404
    assert client.get(reverse("project-discussions", args=[pair.project_id])).status_code == 404
    assert client.post(_thread_url(pair, annotator), {"body": "x"}).status_code == 404


def test_an_empty_message_is_refused(pair, annotator, lead, client_for):
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    flag_assignment(assignment=a, user=annotator, reason="unsure")
    client_for(lead).post(_thread_url(pair, annotator), {"body": "   "})
    assert PairMessage.objects.count() == 1
