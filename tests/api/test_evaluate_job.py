"""``POST /api/projects/{id}/evaluate/`` with an upload over ``EVALUATE_INLINE_MAX_BYTES``:
202 with an ``evaluate`` job whose result is what the synchronous answer holds for the same
file; a bad head is a 400 at once with no job and nothing kept; roles as the sync endpoint."""

from __future__ import annotations

import pytest

from annotator.corpora.services.uploads import upload_root
from annotator.models import Job
from tests.api.helpers import run_queued
from tests.api.test_evaluate import evaluate, system  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db


def uploads_left() -> list:
    root = upload_root()
    return list(root.iterdir()) if root.is_dir() else []


@pytest.fixture
def job_path(settings, tmp_path):
    """Every upload of more than 10 bytes goes the job path, where a jsonl file is read two
    pairs at a time; uploads are stored under this test's own folder (so tests running in
    parallel do not see each other's)."""
    settings.EVALUATE_INLINE_MAX_BYTES = 10
    settings.IMPORT_CHUNK_PAIRS = 2
    settings.VAR_DIR = tmp_path


def synchronous(settings, client, project, name, text, **options):
    settings.EVALUATE_INLINE_MAX_BYTES = 10 * 1024 * 1024
    response = evaluate(client, project, name, text, **options)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("options", [{}, {"level": "word", "include_identical": "true"}])
def test_a_big_upload_is_a_job_whose_result_is_the_synchronous_answer(
    settings,
    api,
    project,
    lead,
    system,  # noqa: F811  (the fixture imported above)
    job_path,
    options,
):
    client = api(lead)
    before = uploads_left()
    response = evaluate(client, project, "system.jsonl", system, **options)
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["kind"] == "evaluate" and job["status"] == "queued"
    assert job["url"] == f"/api/jobs/{job['id']}/"
    assert len(uploads_left()) == len(before) + 1  # kept until the job ends

    finished = run_queued(job["id"])
    assert finished.status == Job.Status.SUCCEEDED, finished.error
    assert uploads_left() == before
    expected = synchronous(settings, client, project, "system.jsonl", system, **options)
    assert finished.result == expected
    assert expected["pairs"] == 2 and expected["unmatched"]  # a real answer, not an empty one
    followed = client.get(f"/api/jobs/{job['id']}/").json()
    assert followed["status"] == "succeeded" and followed["result"] == expected


def test_pharaoh_against_the_gold_text_as_a_job(settings, api, project, lead, corpus, job_path):
    client = api(lead)
    text = "0?0 1-1 2-3\n0?1 1-1 2-2\n"
    job = evaluate(client, project, "system.pharaoh", text).json()
    finished = run_queued(job["id"])
    assert finished.status == Job.Status.SUCCEEDED, finished.error
    assert finished.result == synchronous(settings, client, project, "system.pharaoh", text)
    assert finished.result["word"]["f1"] == 1.0


@pytest.mark.parametrize(
    ("name", "text", "options", "expected"),
    [
        ("s.xml", "x" * 20, {}, "cannot tell the format"),
        ("s.tsv", "id\tsource\ttarget\np1\ta\tb\n", {}, "hold no alignments"),
        ("s.jsonl", '{"id": "p1", "source": "a b c"\n', {}, "s.jsonl:1"),
        ("s.jsonl", '{"id": "p1", "source": "a", "target": "b", "sure": [[0, 0]]}\n\x00\n', {},
         "s.jsonl:2"),
        ("s.pharaoh", "0-0\n\xff\xfe\n", {"encoding": "ascii"}, "s.pharaoh:2"),
    ],
)  # fmt: skip
def test_a_bad_head_is_400_naming_it_with_no_job(
    api, project, lead, corpus, job_path, name, text, options, expected
):
    before, jobs = uploads_left(), Job.objects.count()
    response = evaluate(api(lead), project, name, text, **options)
    assert response.status_code == 400, response.content
    assert expected in response.json()["error"]
    assert "var/uploads" not in response.json()["error"]
    assert Job.objects.count() == jobs
    assert uploads_left() == before


def test_a_file_the_head_cannot_judge_fails_the_job_naming_it(api, project, lead, corpus, job_path):
    text = '{"id": "zz", "source": "a", "target": "b", "sure": [[0, 0]]}\n'
    before = uploads_left()
    job = evaluate(api(lead), project, "s.jsonl", text).json()
    finished = run_queued(job["id"])
    assert finished.status == Job.Status.FAILED
    assert "s.jsonl: no pair of the file matches" in finished.message
    assert uploads_left() == before


def test_roles_as_the_synchronous_endpoint(
    api,
    project,
    other_project,
    lead,
    annotator,
    outsider,
    system,  # noqa: F811  (the fixture imported above)
    job_path,
):
    jobs = Job.objects.count()
    assert evaluate(api(), project, "s.jsonl", system).status_code == 401
    assert evaluate(api(annotator), project, "s.jsonl", system).status_code == 403
    assert evaluate(api(outsider), project, "s.jsonl", system).status_code == 404
    missing = type(project)(pk=project.pk + 1000)
    assert evaluate(api(lead), missing, "s.jsonl", system).status_code == 404
    assert Job.objects.count() == jobs


def test_an_annotator_does_not_see_the_result(api, project, lead, annotator, system, job_path):  # noqa: F811
    job = evaluate(api(lead), project, "system.jsonl", system).json()
    run_queued(job["id"])
    seen = api(annotator).get(f"/api/jobs/{job['id']}/")
    assert seen.status_code == 200, seen.content
    assert seen.json()["status"] == "succeeded" and seen.json()["result"] is None


FILLER = '{"id": "filler%d", "source": "a b c d e f g h", "target": "a b c d", "sure": [[0, 0]]}\n'
# About 330 KB of pairs the project lacks: more than the head the request checks.
PAST_THE_HEAD = "".join(FILLER % n for n in range(4000))


def test_a_broken_line_past_the_head_fails_the_job_naming_the_uploaded_file_and_line(
    api, project, lead, corpus, job_path
):
    text = PAST_THE_HEAD + '{"id": "broken"\n'
    response = evaluate(api(lead), project, "big system.jsonl", text)
    assert response.status_code == 202, response.content
    finished = run_queued(response.json()["id"])
    assert finished.status == Job.Status.FAILED
    assert "big system.jsonl:4001" in finished.message, finished.message
    assert "var/uploads" not in finished.message and "big_system" not in finished.message
    assert uploads_left() == []


def test_an_id_twice_in_different_chunks_fails_the_job(api, project, lead, system, job_path):  # noqa: F811
    text = system + PAST_THE_HEAD + system.splitlines()[0] + "\n"
    response = evaluate(api(lead), project, "system.jsonl", text)
    assert response.status_code == 202, response.content
    finished = run_queued(response.json()["id"])
    assert finished.status == Job.Status.FAILED
    assert "system.jsonl:4007" in finished.message and "p1" in finished.message, finished.message
