"""Audit finding 10 (issue 30): messages to a lead never name users of other projects, and who
may add whom is one written rule (annotator/services/member_rules.py): staff anyone; a lead the
members of the projects they lead and accounts in no project yet, nobody else, and a stranger gets
the same answer as a name nobody has."""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import get_messages

from annotator.models import Assignment, Membership, Project
from annotator.projects.services.member_rules import NOT_ADDABLE, may_add

pytestmark = pytest.mark.django_db


@pytest.fixture
def elsewhere(make_user):
    """annotator3: an annotator of another team's project, which our lead is not in."""
    other = Project.objects.create(name="Other team")
    user = make_user("annotator3")
    Membership.objects.create(project=other, user=user, role=Membership.Role.ANNOTATOR)
    return user


def add(client, project, username, role="lead"):
    return client.post(
        f"/projects/{project.pk}/members/", {"action": "add", "username": username, "role": role}
    )


def test_reassigning_to_another_projects_user_does_not_name_them(
    client_for, lead, annotator, project, pair, elsewhere
):
    assignment = Assignment.objects.create(pair=pair, annotator=annotator)
    client = client_for(lead)
    response = client.post(
        f"/projects/{project.pk}/assignments/{assignment.pk}/reassign/", {"to": elsewhere.pk}
    )
    assert response.status_code == 302
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    assert shown == ["no such annotator in this project"]
    page = client.get(response["Location"]).content.decode()
    assert "annotator3" not in page
    assignment.refresh_from_db()
    assert assignment.withdrawn_at is None  # nothing changed


def test_removing_another_projects_user_does_not_name_them(client_for, lead, project, elsewhere):
    response = client_for(lead).post(
        f"/projects/{project.pk}/members/", {"action": "remove", "user": elsewhere.pk}
    )
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    assert shown == ["no such member in this project"]
    assert Membership.objects.filter(user=elsewhere).count() == 1


def test_a_lead_cannot_add_a_stranger_and_cannot_tell_them_from_nobody(
    client_for, lead, project, elsewhere
):
    client = client_for(lead)
    stranger = add(client, project, "annotator3")
    nobody = add(client, project, "no-such-person")
    assert stranger.status_code == nobody.status_code == 400
    assert NOT_ADDABLE.split(":")[0] in stranger.content.decode()

    # the same answer, bar the typed name echoed in the form field (and the CSRF tokens)
    def page(response, typed):
        html = response.content.decode().replace(typed, "X")
        return re.sub(r'value="[A-Za-z0-9]{64}"', "", html)

    assert page(stranger, "annotator3") == page(nobody, "no-such-person")
    assert not Membership.objects.filter(project=project, user=elsewhere).exists()


def test_a_lead_adds_people_of_their_own_projects_and_fresh_accounts(
    client_for, lead, project, make_user
):
    shared = Project.objects.create(name="Shared")  # another project this lead leads
    Membership.objects.create(project=shared, user=lead, role=Membership.Role.LEAD)
    colleague = make_user("colleague")
    Membership.objects.create(project=shared, user=colleague, role=Membership.Role.ANNOTATOR)
    fresh = make_user("fresh_account")  # made by staff, in no project yet
    client = client_for(lead)
    assert add(client, project, "colleague", "lead").status_code == 302
    assert add(client, project, "fresh_account", "annotator").status_code == 302
    roles = dict(Membership.objects.filter(project=project).values_list("user__username", "role"))
    assert roles["colleague"] == "lead" and roles["fresh_account"] == "annotator"
    assert fresh.is_active


def test_staff_add_anyone_and_annotators_no_one(project, lead, annotator, elsewhere, make_user):
    staff = make_user("staffer", is_staff=True)
    assert may_add(project=project, by=staff, user=elsewhere)
    assert not may_add(project=project, by=lead, user=elsewhere)
    assert not may_add(project=project, by=annotator, user=make_user("loose"))
    assert may_add(project=project, by=lead, user=annotator)  # a role change of a member
