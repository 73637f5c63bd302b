"""A failed job's traceback names server paths and code: the project's leads and staff see it,
annotators (and other non-lead members) see a one-line reason — in the job JSON the progress
bar polls and on the project page."""

from __future__ import annotations

import pytest

from annotator.jobs.runner import run_job
from annotator.models import Job, Membership

pytestmark = pytest.mark.django_db


def failed_job(project) -> Job:
    """A job failed by a real exception, so ``error`` holds a real traceback."""
    job = Job.objects.create(kind="selftest", project=project)

    def work(job, reporter):
        raise ValueError("pair 'x7': link 0-9 out of range")

    run_job(job.pk, work)
    job.refresh_from_db()
    assert job.status == "failed" and "Traceback" in job.error and __file__ in job.error
    return job


@pytest.fixture
def job(project):
    return failed_job(project)


def test_an_annotator_gets_the_reason_but_no_traceback(client_for, annotator, job):
    state = client_for(annotator).get(f"/jobs/{job.pk}/").json()
    assert state["reason"] == "ValueError: pair 'x7': link 0-9 out of range"
    assert state["error"] is None
    assert "Traceback" not in str(state) and __file__ not in str(state)


def test_the_project_page_shows_an_annotator_the_reason_only(client_for, annotator, project, job):
    html = client_for(annotator).get(f"/projects/{project.pk}/").content.decode()
    assert f'id="job-{job.pk}"' in html
    assert "ValueError: pair &#x27;x7&#x27;: link 0-9 out of range" in html
    assert "Traceback" not in html and __file__ not in html


@pytest.mark.parametrize("who", ["lead", "staff"])
def test_leads_and_staff_see_the_traceback(client_for, make_user, lead, project, job, who):
    user = lead if who == "lead" else make_user("admin_user", is_staff=True)
    state = client_for(user).get(f"/jobs/{job.pk}/").json()
    assert state["reason"] == "ValueError: pair 'x7': link 0-9 out of range"
    assert "Traceback (most recent call last)" in state["error"] and __file__ in state["error"]
    html = client_for(user).get(f"/projects/{project.pk}/").content.decode()
    assert "Traceback (most recent call last)" in html


def test_a_member_who_is_not_a_lead_gets_no_traceback(client_for, make_user, project, job):
    reviewer = make_user("reviewer")
    Membership.objects.create(project=project, user=reviewer, role=Membership.Role.ANNOTATOR)
    state = client_for(reviewer).get(f"/jobs/{job.pk}/").json()
    assert state["error"] is None and state["reason"].startswith("ValueError")


def test_a_job_that_did_not_fail_has_no_reason(client_for, annotator, project):
    job = Job.objects.create(kind="selftest", project=project, status="succeeded")
    state = client_for(annotator).get(f"/jobs/{job.pk}/").json()
    assert state["reason"] is None and state["error"] is None
