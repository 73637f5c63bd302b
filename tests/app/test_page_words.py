"""What the lead reads is in words and numbers a person means: a project's plans counted from 1
within it (not the table-wide id), the new-project form's share as 0.3333, the demo project's
languages filled in, and the Import form's help without the API's field names."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command

from annotator.management.commands.setup_demo import DEMO_PROJECT
from annotator.models import Project
from annotator.projects.services.assignment import apply_assignment
from tests.app.lead_helpers import add_annotators, make_pairs
from tests.app.test_assignment import request_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(project, make_user):
    make_pairs(project, {"mtc": 4, "news": 4}, trial=1)
    return add_annotators(project, make_user, ["ann1", "ann2"])


def test_a_projects_first_plan_is_plan_1_whatever_other_projects_did(
    client_for,
    project,
    team,
    lead,
    make_user,
):
    other = Project.objects.create(name="Another project")
    for _ in range(2):  # plans elsewhere take the table's first ids
        other.assignment_plans.create(params={}, summary={})
    client = client_for(lead)
    body = {"annotators": [str(u.pk) for u in team], "share": "0.5", "random_seed": "11",
            "subcorpora": ["mtc", "news"], "include_trial": "on", "preview": "1"}  # fmt: skip
    preview = client.get(f"/projects/{project.pk}/assign/", body).context["preview"]
    body = {k: v for k, v in body.items() if k != "preview"}
    response = client.post(
        f"/projects/{project.pk}/assign/", {**body, "fingerprint": preview.fingerprint}
    )
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert said and said[0].startswith("Plan 1 applied:"), said
    apply_assignment(project=project, request=request_for(team, share=0), created_by=lead)
    plans = client.get(f"/projects/{project.pk}/assign/").context["plans"]
    assert [p.number for p in plans] == [2, 1]  # newest first, each its place in the project
    assert all(p.pk > 2 for p in plans)


def test_the_new_project_form_shows_the_share_rounded_and_keeps_a_third(client_for, lead):
    client = client_for(lead)
    page = client.get("/projects/new/").content.decode()
    assert 'value="0.3333"' in page and "0.33333" not in page
    data = {"name": "Thirds", "source_language": "en", "target_language": "en",
            "double_annotation_share": "0.3333", "auto_retrain_every": "0",
            "max_tokens": "250"}  # fmt: skip
    assert client.post("/projects/new/", data).status_code == 302
    assert Project.objects.get(name="Thirds").double_annotation_share == 1 / 3


def test_the_demo_project_declares_its_languages(capsys):
    call_command("setup_demo", force=True)
    demo = Project.objects.get(name=DEMO_PROJECT)
    assert (demo.source_language, demo.target_language) == ("en", "en")


def test_the_import_form_speaks_of_the_form_not_the_api(client_for, project, lead):
    page = client_for(lead).get(f"/projects/{project.pk}/import/").content.decode()
    assert "load_as" not in page.replace('name="load_as"', "").replace('id="id_load_as"', "")
