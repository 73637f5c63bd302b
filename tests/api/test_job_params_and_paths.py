"""Small leaks closed: a job's ``params`` (file names, annotators' usernames, options) are shown
by the same rule as its result, to staff, the project's leads and whoever started the job, so an
annotator sees another's job without them; and what an import stores (gold notes, an imported
seed run's note and config) names the uploaded file, never the server's upload path."""

from __future__ import annotations

import json

import pytest

from annotator.corpora.services.uploads import upload_root
from annotator.models import AlignerRun, GoldAlignment, GoldRevision, Job
from tests.api.helpers import run_queued, upload

pytestmark = pytest.mark.django_db

PAIR = {"id": "n1", "source": "the cat sat", "target": "a cat sat", "sure": [[1, 1]]}


def _import(client, project, load_as):
    response = client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload("team-b-secret.jsonl", json.dumps(PAIR) + "\n"), "load_as": load_as},
        format="multipart",
    )
    assert response.status_code == 202, response.content
    job = run_queued(response.json()["id"])
    assert job.status == "succeeded", job.error
    return job


def test_an_annotator_sees_no_params_of_a_leads_job(api, project, lead, annotator):
    job = _import(api(lead), project, "gold")
    assert "team-b-secret.jsonl" in json.dumps(job.params)
    mine = Job.objects.create(kind="selftest", project=project, created_by=annotator,
                              params={"mine": True})  # fmt: skip
    client = api(annotator)
    listed = {row["id"]: row for row in client.get("/api/jobs/").json()["results"]}
    assert listed[job.pk]["params"] is None
    assert client.get(f"/api/jobs/{job.pk}/").json()["params"] is None
    assert listed[mine.pk]["params"] == {"mine": True}  # their own job
    assert api(lead).get(f"/api/jobs/{job.pk}/").json()["params"]["files"]


@pytest.mark.parametrize("load_as", ["gold", "seed"])
def test_what_an_import_stores_names_the_uploaded_file_not_the_server_path(
    api, project, lead, load_as
):
    _import(api(lead), project, load_as)
    root = str(upload_root())
    if load_as == "gold":
        stored = [g.note for g in GoldAlignment.objects.all()]
        stored += [r.note for r in GoldRevision.objects.all()]
    else:
        stored = [f"{r.note} {json.dumps(r.config)}" for r in AlignerRun.objects.all()]
    assert stored and all("team-b-secret.jsonl" in text for text in stored)
    assert not any(root in text or "uploads" in text for text in stored), stored
