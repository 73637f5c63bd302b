"""Who a lead may load as an annotator is the Members page's rule (``member_rules.may_add``),
for the import as for everything else: members of projects the lead leads, and accounts in no
project yet. A lead cannot pull another team's annotator into their project by importing "their"
work (then reset their password and read their queue elsewhere), and the answer for such a name
is the answer for a name nobody has, so an import does not tell whether a username exists.
Staff and the server's commands may still load anyone, and create missing accounts."""

from __future__ import annotations

import json

import pytest

from alignment_core.alignment import AlignedPair, Alignment
from annotator.corpora.services.importing import CorpusImportError, import_pairs
from annotator.models import Job, Membership, Project
from annotator.projects.services import members as member_services
from tests.api.helpers import run_queued, upload

pytestmark = pytest.mark.django_db

PAIR = {"id": "n1", "source": "the cat sat", "target": "a cat sat", "sure": [[1, 1]]}


@pytest.fixture
def victim(make_user):
    """An annotator of another team's project, which the lead has nothing to do with."""
    other = Project.objects.create(name="Other team")
    user = make_user("victim")
    Membership.objects.create(project=other, user=user, role=Membership.Role.ANNOTATOR)
    return user


def post(client, project, text, **options):
    return client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload("work.jsonl", text), "load_as": "annotator", **options},
        format="multipart",
    )


def refusal(response) -> str:
    assert response.status_code == 400, response.content
    return response.json()["error"]


def test_a_lead_cannot_load_another_teams_annotator_and_cannot_tell_them_from_nobody(
    api, project, lead, victim
):
    client = api(lead)
    text = json.dumps(PAIR) + "\n"
    existing = refusal(post(client, project, text, annotator="victim"))
    nobody = refusal(post(client, project, text, annotator="nobody_at_all"))
    assert existing.replace("victim", "NAME") == nobody.replace("nobody_at_all", "NAME")
    assert "may add" in existing
    assert not Membership.objects.filter(project=project, user=victim).exists()
    assert Job.objects.count() == 0


def test_names_inside_the_file_follow_the_same_rule_in_the_job(api, project, lead, victim):
    rows = [{**PAIR, "annotator": "victim"}, {**PAIR, "id": "n2", "annotator": "nobody_x"}]
    response = post(api(lead), project, "".join(json.dumps(r) + "\n" for r in rows))
    assert response.status_code == 202, response.content
    job = run_queued(response.json()["id"])
    assert job.status == "failed"
    assert "'victim'" in job.error and "'nobody_x'" in job.error
    assert "users_created" not in json.dumps(job.result or {})
    assert not Membership.objects.filter(project=project, user=victim).exists()
    assert not type(lead).objects.filter(username="nobody_x").exists()


def test_a_lead_loads_an_annotator_of_their_own_project(api, project, lead, annotator):
    response = post(api(lead), project, json.dumps(PAIR) + "\n", annotator=annotator.username)
    assert response.status_code == 202, response.content
    job = run_queued(response.json()["id"])
    assert job.status == "succeeded", job.error
    assert job.result["users_created"] == []
    assert annotator.assignments.count() == 1


def test_the_import_page_refuses_another_teams_annotator(client, project, lead, victim):
    client.force_login(lead)
    response = client.post(
        f"/projects/{project.pk}/import/",
        {"file": upload("work.jsonl", json.dumps(PAIR) + "\n"), "annotator": "victim",
         "load_as": "annotator", "token_mismatch": "error"},
    )  # fmt: skip
    assert response.status_code == 400
    assert "may add" in response.content.decode()
    assert not Membership.objects.filter(project=project, user=victim).exists()


def test_the_service_refuses_for_a_lead_and_lets_staff_and_commands_create(
    project, lead, victim, make_user
):
    pairs = [AlignedPair("n1", ["a"], ["b"], Alignment.from_sets([(0, 0)], []))]
    with pytest.raises(CorpusImportError, match="may add"):
        import_pairs(project=project, pairs=pairs, load_alignments_as="annotator",
                     annotator="victim", added_by=lead)  # fmt: skip
    assert not Membership.objects.filter(project=project, user=victim).exists()
    staff = make_user("staff_member", is_staff=True)
    report = import_pairs(project=project, pairs=pairs, load_alignments_as="annotator",
                          annotator="brand_new", added_by=staff)  # fmt: skip
    assert report.users_created == ["brand_new"]
    report = import_pairs(
        project=project, pairs=pairs, load_alignments_as="annotator", annotator="victim"
    )  # the server's command: the operator decides
    assert Membership.objects.filter(project=project, user=victim).exists()


def test_a_lead_cannot_reset_the_password_of_an_annotator_who_works_elsewhere(
    project, lead, victim
):
    Membership.objects.create(project=project, user=victim, role=Membership.Role.ANNOTATOR)
    before = type(victim).objects.get(pk=victim.pk).password
    with pytest.raises(member_services.MemberError, match="staff"):
        member_services.reset_password(project=project, user=victim, by=lead)
    assert type(victim).objects.get(pk=victim.pk).password == before


def test_a_lead_who_is_only_an_annotator_elsewhere_cannot_add_that_projects_members(
    client, project, lead, make_user
):
    shared = Project.objects.create(name="Where the lead annotates")
    Membership.objects.create(project=shared, user=lead, role=Membership.Role.ANNOTATOR)
    colleague = make_user("colleague")
    Membership.objects.create(project=shared, user=colleague, role=Membership.Role.ANNOTATOR)
    client.force_login(lead)
    response = client.post(f"/projects/{project.pk}/members/",
                           {"action": "add", "username": "colleague", "role": "annotator"})  # fmt: skip
    assert response.status_code == 400
    assert not Membership.objects.filter(project=project, user=colleague).exists()
