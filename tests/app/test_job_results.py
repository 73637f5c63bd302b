"""Audit finding 4 (issue 30): a job's result obeys the blind rule in the pages as in the API.
An import's result counts each annotator's links (``links_by_annotator``): an annotator of the
project sees the job's status but not that result, on ``/jobs/<id>/``, on the project page's
job list, or at ``/api/jobs/<id>/``; the project's leads, staff and the job's starter do."""

from __future__ import annotations

import pytest
from django.test import Client

from annotator.jobs.results import can_see_result
from annotator.models import Job, Membership, Project

pytestmark = pytest.mark.django_db

SECRET = "annotator_two_secret_count"


@pytest.fixture
def people(django_user_model):
    project = Project.objects.create(name="Blind project")
    users = {}
    for name, role in [
        ("lead", Membership.Role.LEAD),
        ("annotator1", Membership.Role.ANNOTATOR),
        ("annotator2", Membership.Role.ANNOTATOR),
    ]:
        users[name] = django_user_model.objects.create_user(username=name, password="x" * 12)
        Membership.objects.create(project=project, user=users[name], role=role)
    users["staff"] = django_user_model.objects.create_user(
        username="staffer", password="x" * 12, is_staff=True
    )
    job = Job.objects.create(
        kind="import",
        project=project,
        created_by=users["lead"],
        status=Job.Status.SUCCEEDED,
        progress=100,
        message="Imported",
        result={"pairs_read": 3, "links_by_annotator": {"annotator2": 41, SECRET: 7}},
    )
    return project, users, job


def as_user(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def views_of(user, project, job) -> dict[str, str]:
    client = as_user(user)
    state = client.get(f"/jobs/{job.pk}/", HTTP_ACCEPT="application/json")
    page = client.get(f"/projects/{project.pk}/")
    api = client.get(f"/api/jobs/{job.pk}/")
    assert state.status_code == page.status_code == api.status_code == 200
    return {"state": state.json(), "page": page.content.decode(), "api": api.json()}


def test_an_annotator_sees_the_job_but_not_its_result_anywhere(people):
    project, users, job = people
    seen = views_of(users["annotator1"], project, job)
    assert seen["state"]["status"] == "succeeded"  # the job itself stays visible
    assert seen["state"]["result"] is None and seen["state"]["summary"] is None
    assert seen["api"]["result"] is None
    assert f'id="job-{job.pk}"' in seen["page"]
    assert SECRET not in seen["page"] and "links_by_annotator" not in seen["page"]


@pytest.mark.parametrize("who", ["lead", "staff"])
def test_leads_and_staff_see_the_result_everywhere(people, who):
    project, users, job = people
    seen = views_of(users[who], project, job)
    assert seen["state"]["result"] == job.result
    assert seen["api"]["result"] == job.result
    assert SECRET in seen["page"]


def test_the_starter_sees_the_result_and_the_rule_is_one_function(people):
    project, users, job = people
    job.created_by = users["annotator2"]
    job.save()
    assert as_user(users["annotator2"]).get(f"/jobs/{job.pk}/").json()["result"] == job.result
    expected = {"lead": True, "staff": True, "annotator1": False, "annotator2": True}
    assert {name: can_see_result(job=job, user=u) for name, u in users.items()} == expected
    # the API agrees with the rule for each user
    for name, user in users.items():
        api = as_user(user).get(f"/api/jobs/{job.pk}/").json()
        assert (api["result"] is not None) is expected[name], name
