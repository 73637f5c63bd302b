"""Evaluate as a job through a real Celery worker on Redis and PostgreSQL: a big upload (here:
over a small EVALUATE_INLINE_MAX_BYTES) is answered 202, the worker scores it, the job
succeeds with the synchronous answer for the same file as its result, and the stored upload
is gone."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from annotator.corpora.services.uploads import upload_root
from annotator.models import Membership, Project
from tests.api.conftest import make_pair, set_gold_row
from tests.api.helpers import upload
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PAIRS = 300


def gold_project(lead) -> Project:
    project = Project.objects.create(name="evaluate through a worker")
    Membership.objects.create(project=project, user=lead, role="lead")
    for n in range(PAIRS):
        pair = make_pair(
            project, f"p{n}", "the cat sat down", "a cat was sitting", position=n,
            subcorpus="news" if n % 2 else "novels",
        )  # fmt: skip
        set_gold_row(pair, [[0, 0, "P"], [1, 1, "S"], [2, 3, "S"], [n % 4, 2, "S"]], lead)
    return project


def system_file() -> str:
    lines = []
    for n in range(PAIRS + 5):  # five ids the project lacks
        sure = [[1, 1], [2, 3]] if n % 3 else [[1, 1]]
        lines.append(
            json.dumps(
                {
                    "id": f"p{n}",
                    "source": "the cat sat down",
                    "target": "a cat was sitting",
                    "sure": sure,
                    "possible": [[0, n % 4]],
                }
            )  # fmt: skip
        )
    return "\n".join(lines) + "\n"


def uploads_left() -> list:
    root = upload_root()
    return list(root.iterdir()) if root.is_dir() else []


def test_a_worker_scores_a_big_upload_and_stores_the_synchronous_answer(
    start_worker, settings, django_user_model, tmp_path
):
    # A var folder of its own, as the API's upload tests have: the other test processes (and
    # CI's SQLite pass beside this one) store and delete uploads under the checkout's var/.
    settings.VAR_DIR = tmp_path
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    project = gold_project(lead)
    client = APIClient()
    client.force_authenticate(lead)
    text = system_file()

    def post():
        return client.post(
            f"/api/projects/{project.pk}/evaluate/",
            {"file": upload("system.jsonl", text)},
            format="multipart",
        )

    settings.EVALUATE_INLINE_MAX_BYTES = 1024  # this file is ~30 KB: the job path
    worker = start_worker(  # the worker reads the file 50 pairs at a time
        pool="prefork", GRIDALIGN_VAR_DIR=str(settings.VAR_DIR), IMPORT_CHUNK_PAIRS="50"
    )
    before = uploads_left()
    response = post()
    assert response.status_code == 202, response.content
    assert response.json()["kind"] == "evaluate"
    job = project.jobs.get(pk=response.json()["id"])
    watch(job, timeout=120)
    assert job.status == "succeeded", f"{job.error}\n{worker.log}"
    assert job.progress == 100
    assert uploads_left() == before

    settings.EVALUATE_INLINE_MAX_BYTES = 10 * 1024 * 1024
    synchronous = post()
    assert synchronous.status_code == 200, synchronous.content
    assert job.result == synchronous.json()
    assert job.result["pairs"] == PAIRS and len(job.result["unmatched"]) == 5
    assert set(job.result["subcorpora"]) == {"news", "novels"}
