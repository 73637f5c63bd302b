"""``POST /api/projects/{id}/imports/``: an uploaded file becomes an import job; bad files
are refused at once with their line; the upload is deleted when the job ends."""

from __future__ import annotations

import json

import pytest

from annotator.corpora.services.uploads import upload_root
from annotator.models import GoldAlignment, Job, SentencePair
from tests.api.helpers import run_queued, upload

pytestmark = pytest.mark.django_db

GOOD = (
    json.dumps({"id": "n1", "source": "the cat sat", "target": "a cat sat", "sure": [[1, 1]]})
    + "\n"
    + json.dumps(
        {"id": "n2", "source": "it rained", "target": "rain fell", "possible": [[0, 0], [1, 1]]}
    )
    + "\n"
)


def uploads_left() -> list:
    root = upload_root()
    return list(root.iterdir()) if root.is_dir() else []


def post(client, project, name="corpus.jsonl", text=GOOD, **options):
    return client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload(name, text), **options},
        format="multipart",
    )


def test_lead_imports_gold_through_a_job_and_the_upload_goes(
    api, project, lead, settings, tmp_path
):
    # The test's own upload folder: other tests running beside it (xdist) upload too.
    settings.VAR_DIR = tmp_path
    before = uploads_left()
    response = post(api(lead), project, load_as="gold", subcorpus="news")
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["kind"] == "import" and job["status"] == "queued"
    assert job["url"] == f"/api/jobs/{job['id']}/"
    assert len(uploads_left()) == len(before) + 1  # kept until the job ends

    finished = run_queued(job["id"])
    assert finished.status == Job.Status.SUCCEEDED, finished.error
    assert finished.result["pairs_read"] == 2
    assert "var/uploads" not in json.dumps(finished.result)  # no server paths
    assert uploads_left() == before
    pairs = {p.external_id: p for p in SentencePair.objects.filter(project=project)}
    assert set(pairs) == {"n1", "n2"}
    assert pairs["n1"].subcorpus.name == "news"
    assert GoldAlignment.objects.get(pair=pairs["n2"]).links == [[0, 0, "P"], [1, 1, "P"]]

    followed = api(lead).get(f"/api/jobs/{job['id']}/").json()
    assert followed["finished"] and followed["status"] == "succeeded"


def test_malformed_file_is_refused_at_once_naming_its_line(api, project, lead):
    text = GOOD + '{"id": "n3", "source": "x", \n'
    response = post(api(lead), project, text=text, load_as="gold")
    assert response.status_code == 400
    error = response.json()["error"]
    assert "corpus.jsonl:3" in error and "invalid JSON" in error
    assert "uploads" not in error
    assert not Job.objects.exists() and not SentencePair.objects.exists()


def test_out_of_range_link_names_pair_and_cell(api, project, lead):
    text = json.dumps({"id": "bad", "source": "a b", "target": "c d", "sure": [[0, 5]]}) + "\n"
    response = post(api(lead), project, text=text, load_as="gold")
    assert response.status_code == 400
    error = response.json()["error"]
    assert "'bad'" in error and "0-5" in error and "corpus.jsonl:1" in error
    assert not SentencePair.objects.exists()


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"format": "xml"}, "format"),
        ({"load_as": "everything"}, "load_as"),
        ({"encoding": "klingon-8"}, "encoding"),
        ({"max_length_ratio": "0.5"}, "max_length_ratio"),
        ({"token_mismatch": "ignore"}, "token_mismatch"),
        ({"annotator": "bad name!"}, "annotator"),
        ({"annotator": "ann", "load_as": "gold"}, "annotator"),
    ],
)
def test_bad_options_are_named(api, project, lead, options, field):
    response = post(api(lead), project, **options)
    assert response.status_code == 400
    body = response.json()
    assert field in body and field in body["error"]
    assert not Job.objects.exists()


def test_file_name_without_a_known_extension_needs_a_format(api, project, lead):
    response = post(api(lead), project, name="corpus.data")
    assert response.status_code == 400
    assert "cannot tell the format" in response.json()["error"]
    ok = post(api(lead), project, name="corpus.data", format="jsonl")
    assert ok.status_code == 202


def test_missing_file_is_named(api, project, lead):
    response = api(lead).post(f"/api/projects/{project.pk}/imports/", {}, format="multipart")
    assert response.status_code == 400
    assert "file" in response.json()


def test_conflict_with_the_project_fails_the_job_and_writes_nothing(api, project, lead):
    client = api(lead)
    run_queued(post(client, project, load_as="gold").json()["id"])
    other = GOOD.replace("[[1, 1]]", "[[0, 0]]")
    job = run_queued(post(client, project, text=other, load_as="gold").json()["id"])
    assert job.status == Job.Status.FAILED
    assert "n1" in job.message and "var/uploads" not in job.error
    assert GoldAlignment.objects.get(pair__external_id="n1").links == [[1, 1, "S"]]


def test_dry_run_writes_nothing(api, project, lead):
    job = run_queued(post(api(lead), project, load_as="gold", dry_run="true").json()["id"])
    assert job.status == Job.Status.SUCCEEDED and job.result["dry_run"]
    assert not SentencePair.objects.exists()


def test_roles(api, project, lead, annotator, outsider):
    assert post(api(), project).status_code == 401
    assert post(api(annotator), project).status_code == 403
    assert post(api(outsider), project).status_code == 404
    assert api(lead).post("/api/projects/999999/imports/", {}).status_code == 404
    assert not Job.objects.exists()


def test_session_upload_needs_csrf(project, lead):
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    client.force_login(lead)
    response = post(client, project)
    assert response.status_code == 403 and "CSRF" in response.json()["error"]


def test_too_large_upload_is_413(api, project, lead, settings):
    settings.API_UPLOAD_MAX_MB = 1
    response = post(api(lead), project, text="x" * (1024 * 1024 + 1))
    assert response.status_code == 413
    assert "larger than 1 MB" in response.json()["error"]


def test_an_msrp_file_imports_as_pairs_to_align(api, project, lead):
    msrp = (
        "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
        "1\t11\t12\tThe cat sat on the mat.\tA cat was sitting on the mat.\n"
    )
    response = post(api(lead), project, name="pairs.msrp", text=msrp, subcorpus="msrp")
    assert response.status_code == 202, response.content
    finished = run_queued(response.json()["id"])
    assert finished.status == Job.Status.SUCCEEDED, finished.error
    pair = SentencePair.objects.get(project=project, external_id="11-12")
    assert pair.source_tokens == ["The", "cat", "sat", "on", "the", "mat", "."]
    assert pair.metadata == {"msrp_quality": 1}
