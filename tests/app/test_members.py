"""Members (issue 8 §1): leads add, remove and create members on the project page; removing
someone keeps their work; ``import_corpus --lead`` makes an imported project visible."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from annotator.models import Annotation, Assignment, Membership, Project
from annotator.projects.services.assignment import AssignmentRequest, apply_assignment
from annotator.projects.services.members import (
    MemberError,
    add_member,
    create_annotator,
    remove_member,
)
from tests.app.lead_helpers import make_pairs, save_work

pytestmark = pytest.mark.django_db


def members_url(project) -> str:
    return f"/projects/{project.pk}/members/"


def test_lead_adds_an_existing_user_and_changes_their_role(client_for, lead, project, make_user):
    newcomer = make_user("newcomer")
    client = client_for(lead)
    response = client.post(members_url(project), {"action": "add", "username": "newcomer",
                                                  "role": "annotator"})  # fmt: skip
    assert response.status_code == 302
    assert Membership.objects.get(project=project, user=newcomer).role == "annotator"
    client.post(members_url(project), {"action": "add", "username": "newcomer", "role": "lead"})
    assert Membership.objects.get(project=project, user=newcomer).role == "lead"
    html = client.get(members_url(project)).content.decode()
    assert "newcomer" in html


def test_adding_an_unknown_user_says_so_and_writes_nothing(client_for, lead, project):
    response = client_for(lead).post(
        members_url(project), {"action": "add", "username": "ghost", "role": "annotator"}
    )
    assert response.status_code == 400
    assert "No user with this name" in response.content.decode()
    assert Membership.objects.filter(project=project).count() == 1


def test_a_new_annotator_account_shows_its_password_once(client_for, lead, project, client):
    response = client_for(lead).post(members_url(project), {"action": "create",
                                                            "username": "fresh"})  # fmt: skip
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    html = response.content.decode()
    start = html.index('data-testid="one-time-password">') + len('data-testid="one-time-password">')
    password = html[start : html.index("</code>", start)]
    assert len(password) >= 12
    assert Membership.objects.get(project=project, user__username="fresh").role == "annotator"
    assert password not in client.get(members_url(project)).content.decode()  # shown once
    client.logout()
    # through the login form: django-axes needs the request (client.login has none)
    assert (
        client.post("/accounts/login/", {"username": "fresh", "password": password}).status_code
        == 302
    )


def test_creating_an_existing_username_is_refused(project, lead):
    with pytest.raises(MemberError, match="exists already"):
        create_annotator(project=project, username="LEAD_USER")
    with pytest.raises(MemberError, match="letters, digits"):
        create_annotator(project=project, username="two words")


def test_removing_a_member_keeps_started_work_and_withdraws_the_rest(
    client_for, lead, annotator, project
):
    make_pairs(project, {"news": 4})
    request = AssignmentRequest(annotator_ids=(annotator.pk,), share=0, random_seed=1)
    apply_assignment(project=project, request=request, created_by=lead)
    started = Assignment.objects.filter(annotator=annotator).first()
    save_work(started, [[0, 0, "S"]], submit=True)
    response = client_for(lead).post(members_url(project), {"action": "remove",
                                                            "user": annotator.pk})  # fmt: skip
    assert response.status_code == 302
    assert not Membership.objects.filter(project=project, user=annotator).exists()
    work = Assignment.objects.filter(annotator=annotator)
    assert work.count() == 4  # nothing deleted
    assert work.filter(withdrawn_at__isnull=True).get() == started
    assert Annotation.objects.get(assignment=started).links == [[0, 0, "S"]]


def test_the_last_lead_cannot_leave(project, lead, annotator):
    with pytest.raises(MemberError, match="at least one lead"):
        remove_member(project=project, user=lead)
    with pytest.raises(MemberError, match="at least one lead"):
        add_member(project=project, user=lead, role="annotator")
    add_member(project=project, user=annotator, role="lead")
    remove_member(project=project, user=lead)
    assert list(project.memberships.values_list("role", flat=True)) == ["lead"]


@pytest.mark.parametrize("who", ["annotator", "outsider"])
def test_only_leads_change_members(client_for, request, project, lead, who):
    user = request.getfixturevalue(who)
    client = client_for(user)
    assert client.get(members_url(project)).status_code == (403 if who == "annotator" else 404)
    response = client.post(members_url(project), {"action": "create", "username": "sneaky"})
    assert response.status_code in (403, 404)
    assert not Membership.objects.filter(user__username="sneaky").exists()


def test_import_corpus_lead_makes_the_project_visible(tmp_path, make_user, client_for):
    lead = make_user("importer")
    corpus = tmp_path / "pairs.jsonl"
    corpus.write_text(json.dumps({"id": "a", "source": ["x", "y"], "target": ["y", "x"]}) + "\n")
    call_command("import_corpus", str(corpus), "--project", "imported", "--create-project",
                 "--lead", "importer", "--no-progress", verbosity=0)  # fmt: skip
    project = Project.objects.get(name="imported")
    assert Membership.objects.get(project=project, user=lead).role == "lead"
    assert "imported" in client_for(lead).get("/").content.decode()
    with pytest.raises(CommandError, match="--lead nobody: no such user"):
        call_command("import_corpus", str(corpus), "--project", "other", "--create-project",
                     "--lead", "nobody", "--no-progress", verbosity=0)  # fmt: skip
    assert not Project.objects.filter(name="other").exists()  # all or nothing
