"""A project's life in the browser (issue 31): who may create one, settings with a sanitised
guidelines preview, archive and restore."""

from __future__ import annotations

from annotator.models import Membership, Project


def test_a_lead_creates_a_project_and_becomes_its_lead(client, lead, project):
    client.force_login(lead)
    assert b"New project" in client.get("/").content
    form = {
        "name": "Second", "source_language": "en", "target_language": "de",
        "double_annotation_share": "0.25", "auto_retrain_every": "20", "max_tokens": "120",
        "guidelines": "# Align *content* words",
    }  # fmt: skip
    response = client.post("/projects/new/", form)
    created = Project.objects.get(name="Second")
    assert response.status_code == 302 and response.url == f"/projects/{created.pk}/"
    assert (created.target_language, created.double_annotation_share) == ("de", 0.25)
    assert Membership.objects.get(project=created, user=lead).role == "lead"
    again = client.post("/projects/new/", form)
    assert again.status_code == 400 and b"already exists" in again.content
    assert Project.objects.filter(name="Second").count() == 1


def test_an_annotator_only_user_may_not_create_projects(client, annotator):
    client.force_login(annotator)
    assert b"New project" not in client.get("/").content
    assert client.get("/projects/new/").status_code == 403
    assert client.post("/projects/new/", {"name": "Mine"}).status_code == 403
    assert not Project.objects.filter(name="Mine").exists()


def test_the_guidelines_preview_is_sanitised_and_saves_nothing(client, lead, project):
    client.force_login(lead)
    data = {
        "name": project.name, "source_language": "en", "target_language": "en",
        "double_annotation_share": "0.5", "auto_retrain_every": "50", "max_tokens": "250",
        "guidelines": "## Sure links\n<script>alert(1)</script>\n[x](javascript:alert(1))",
        "preview": "1",
    }  # fmt: skip
    page = client.post(f"/projects/{project.pk}/settings/", data).content.decode()
    assert "<h2>Sure links</h2>" in page
    assert (
        "<script>alert(1)</script>" not in page
        and "javascript:alert" not in page.split('data-testid="guidelines-preview"')[1]
    )
    project.refresh_from_db()
    assert project.guidelines == "# Align *content* words"  # a preview saves nothing
    del data["preview"]
    assert client.post(f"/projects/{project.pk}/settings/", data).status_code == 302
    project.refresh_from_db()
    assert project.guidelines.startswith("## Sure links") and project.double_annotation_share == 0.5


def test_settings_are_for_leads_only(client, annotator, outsider, project):
    client.force_login(annotator)
    assert client.get(f"/projects/{project.pk}/settings/").status_code == 403
    client.force_login(outsider)
    assert client.get(f"/projects/{project.pk}/settings/").status_code == 404
    assert client.post(f"/projects/{project.pk}/archive/", {"archived": "1"}).status_code == 404
    project.refresh_from_db()
    assert project.archived_at is None


def test_archiving_moves_the_project_off_the_home_list_and_restoring_brings_it_back(
    client, lead, project
):
    client.force_login(lead)
    client.post(f"/projects/{project.pk}/archive/", {"archived": "1"})
    project.refresh_from_db()
    assert project.archived_at is not None
    home = client.get("/").content.decode()
    assert "<h2>Archived</h2>" in home and 'class="card project-card"' not in home
    client.post(f"/projects/{project.pk}/archive/", {"archived": "0"})
    assert 'class="card project-card"' in client.get("/").content.decode()


def test_the_share_is_shown_rounded_and_saved_back_unchanged(client, lead, project):
    """1/3 reads 0.3333 in the form; sending that back (saving other settings) keeps 1/3 exactly,
    and a share the lead types is stored as typed."""
    Project.objects.filter(pk=project.pk).update(double_annotation_share=1 / 3)
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/settings/").content.decode()
    assert 'value="0.3333"' in page and "0.333333" not in page
    data = {
        "name": project.name, "source_language": "en", "target_language": "en",
        "double_annotation_share": "0.3333", "auto_retrain_every": "50", "max_tokens": "250",
        "guidelines": "Align content words.",
    }  # fmt: skip
    assert client.post(f"/projects/{project.pk}/settings/", data).status_code == 302
    project.refresh_from_db()
    assert project.guidelines == "Align content words." and project.double_annotation_share == 1 / 3
    data["double_annotation_share"] = "0.3334"
    assert client.post(f"/projects/{project.pk}/settings/", data).status_code == 302
    project.refresh_from_db()
    assert project.double_annotation_share == 0.3334
