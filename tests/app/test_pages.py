"""The pages: login, the home page's project list, a project's page, starting the self-test
job (leads only) and the job JSON that the progress bar polls."""

from __future__ import annotations

import pytest

from annotator.models import GoldAlignment, Job, Project
from tests.app.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def project_url(project) -> str:
    return f"/projects/{project.pk}/"


def selftest_url(project) -> str:
    return f"/projects/{project.pk}/jobs/selftest/"


# --- login and home ----------------------------------------------------------------------


def test_login_page_renders(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="username"' in html and 'name="password"' in html
    assert "csrfmiddlewaretoken" in html


def test_login_then_logout(client, lead):
    response = client.post("/accounts/login/", {"username": "lead_user", "password": PASSWORD})
    assert response.status_code == 302 and response.url == "/"
    assert client.get("/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_wrong_password_shows_the_form_again(client, lead):
    response = client.post("/accounts/login/", {"username": "lead_user", "password": "nope"})
    assert response.status_code == 200
    assert "didn't match" in response.content.decode()


@pytest.mark.parametrize("path", ["/", "/projects/1/"])
def test_anonymous_visitors_are_sent_to_login(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/?next=")


def test_home_lists_the_users_projects_with_role_and_counts(client_for, lead, project, pair):
    Project.objects.create(name="Somebody else's project")
    html = client_for(lead).get("/").content.decode()
    assert "Test project" in html
    assert "Somebody else" not in html
    assert "lead" in html and "news" in html
    assert "1 pair" in html


def test_staff_see_every_project(client_for, make_user, project):
    html = client_for(make_user("admin", is_staff=True)).get("/").content.decode()
    assert "Test project" in html and "staff" in html


def test_a_user_without_projects_is_told_so(client_for, outsider):
    assert "not a member of any project" in client_for(outsider).get("/").content.decode()


# --- project page ------------------------------------------------------------------------


def test_member_sees_the_project_with_counts_and_guidelines(client_for, annotator, project, pair):
    GoldAlignment.objects.create(pair=pair, origin="imported", links=[[1, 1, "S"]])
    response = client_for(annotator).get(project_url(project))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Align <em>content</em> words</h1>" in html  # Markdown rendered
    summary = response.context["summary"]
    assert [(c.name, c.pairs, c.gold, c.seeded) for c in summary.subcorpora] == [("news", 1, 1, 0)]
    assert "Run self-test job" not in html  # annotators do not start jobs


def test_staff_see_the_self_test_button_and_leads_do_not(client_for, lead, project, make_user):
    # The self-test checks the worker: a tool for whoever runs the site (issue 31, defect 10).
    assert "Run self-test job" not in client_for(lead).get(project_url(project)).content.decode()
    staff = make_user("site_admin", is_staff=True)
    assert "Run self-test job" in client_for(staff).get(project_url(project)).content.decode()


def test_non_member_gets_404(client_for, outsider, project):
    assert client_for(outsider).get(project_url(project)).status_code == 404


def test_missing_project_gets_404(client_for, lead):
    assert client_for(lead).get("/projects/999999/").status_code == 404


def test_guidelines_escape_raw_html(client_for, lead, project):
    project.guidelines = "Hello <script>alert(1)</script> [x](javascript:alert(2))"
    project.save()
    html = client_for(lead).get(project_url(project)).content.decode()
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "javascript:alert(2)" not in html


def test_project_page_shows_recent_jobs_with_progress_bars(client_for, lead, project):
    job = Job.objects.create(kind="selftest", project=project, status="running", progress=37)
    html = client_for(lead).get(project_url(project)).content.decode()
    assert f'data-job-url="/jobs/{job.pk}/"' in html
    assert 'aria-valuenow="37"' in html
    assert "gridalign/jobs.js" in html


# --- starting the self-test job ----------------------------------------------------------


def test_lead_starts_the_self_test_job(
    client_for, lead, project, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        response = client_for(lead).post(selftest_url(project), {"steps": "5", "delay": "0.1"})
    job = Job.objects.get()
    assert response.status_code == 302
    assert response.url == f"{project_url(project)}#job-{job.pk}"
    assert (job.kind, job.status, job.project, job.created_by) == (
        "selftest",
        "queued",
        project,
        lead,
    )
    assert job.params == {"steps": 5, "delay": 0.1}
    assert len(callbacks) == 1  # dispatched to Celery once the transaction commits


def test_starting_a_job_as_json(client_for, lead, project, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():
        response = client_for(lead).post(
            selftest_url(project), {"fail": "on"}, HTTP_ACCEPT="application/json"
        )
    assert response.status_code == 202
    job = Job.objects.get()
    assert response.json() == {"id": job.pk, "url": f"/jobs/{job.pk}/", "status": "queued"}
    assert job.params == {"steps": 20, "delay": 0.2, "fail_at": 11}


def test_annotator_cannot_start_jobs(client_for, annotator, project):
    response = client_for(annotator).post(selftest_url(project))
    assert response.status_code == 403
    assert not Job.objects.exists()


def test_non_member_cannot_start_jobs(client_for, outsider, project):
    assert client_for(outsider).post(selftest_url(project)).status_code == 404
    assert not Job.objects.exists()


def test_anonymous_cannot_start_jobs(client, project):
    response = client.post(selftest_url(project))
    assert response.status_code == 302 and "/accounts/login/" in response.url
    assert not Job.objects.exists()


def test_starting_a_job_needs_post(client_for, lead, project):
    assert client_for(lead).get(selftest_url(project)).status_code == 405


@pytest.mark.parametrize(
    "data", [{"steps": "lots"}, {"steps": "0"}, {"steps": "100000"}, {"delay": "-1"}]
)
def test_bad_self_test_input_is_a_400(client_for, lead, project, data):
    assert client_for(lead).post(selftest_url(project), data).status_code == 400
    response = client_for(lead).post(selftest_url(project), data, HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and "errors" in response.json()
    assert not Job.objects.exists()


def test_self_test_needs_the_csrf_token(lead, project):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(lead)
    assert client.post(selftest_url(project)).status_code == 403
    assert not Job.objects.exists()


# --- job JSON ----------------------------------------------------------------------------


def test_job_json_for_a_member(client_for, annotator, project):
    job = Job.objects.create(
        kind="selftest", project=project, status="succeeded", progress=100, result={"steps": 3}
    )
    response = client_for(annotator).get(f"/jobs/{job.pk}/")
    assert response.status_code == 200
    state = response.json()
    assert {k: state[k] for k in ("id", "status", "progress", "result", "finished")} == {
        "id": job.pk,
        "status": "succeeded",
        "progress": 100,
        "result": None,  # the blind rule: an annotator sees a lead's job, not its result
        "finished": True,
    }
    assert {"message", "error", "kind", "created_at", "heartbeat_at"} <= set(state)
    assert "no-cache" in response.headers["Cache-Control"]


def test_job_json_is_hidden_from_non_members(client_for, outsider, project):
    job = Job.objects.create(kind="selftest", project=project)
    assert client_for(outsider).get(f"/jobs/{job.pk}/").status_code == 404


def test_job_json_needs_a_login(client, project):
    job = Job.objects.create(kind="selftest", project=project)
    response = client.get(f"/jobs/{job.pk}/")
    assert response.status_code == 401 and response.json() == {"error": "not logged in"}


def test_job_json_for_a_missing_job(client_for, lead):
    assert client_for(lead).get("/jobs/424242/").status_code == 404


@pytest.mark.parametrize(
    "path", ["/projects/99999999999999999999999/", "/jobs/99999999999999999999999/"]
)
def test_absurd_ids_are_404_not_a_database_error(client_for, lead, path):
    assert client_for(lead).get(path).status_code == 404
    assert client_for(lead).post(path + "jobs/selftest/").status_code == 404
