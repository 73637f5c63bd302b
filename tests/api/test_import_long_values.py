"""Audit finding 11 (issue 30): a 5,000-character value in an import is cut in the middle in
the error, so the reason, the file, the line and the field stay visible (a job's one-line reason
holds 500 characters; before, it was made only of "xxxx…")."""

from __future__ import annotations

import json

import pytest

from alignment_core.formats import FormatError
from alignment_core.formats.shorten import cut_middle
from annotator.corpora.services.importing_report import Problem
from annotator.models import Job
from tests.api.helpers import run_queued, upload

pytestmark = pytest.mark.django_db

LONG = "x" * 4990 + "tail9"


def post(client, project, name: str, text: str):
    return client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload(name, text), "dry_run": True},
        format="multipart",
    )


def test_a_long_pair_id_fails_the_job_with_a_readable_reason(api, project, lead):
    text = json.dumps({"id": LONG, "source": "the cat", "target": "a cat"}) + "\n"
    response = post(api(lead), project, "long.jsonl", text)
    assert response.status_code == 202, response.content
    job = run_queued(response.json()["id"])
    assert job.status == Job.Status.FAILED
    reason = api(lead).get(f"/api/jobs/{job.pk}/").json()["reason"]
    assert "long.jsonl" in reason
    assert "pair id longer than 200 characters" in reason
    assert "tail9" in reason and "characters]" in reason  # both ends of the id, cut marked
    assert len(reason) < 400


def test_a_long_value_on_a_bad_line_is_a_400_naming_file_line_and_field(api, project, lead):
    bad = json.dumps({"id": "p2", "source": "the dog", "target": "a dog", "sure": [[0, LONG]]})
    response = post(api(lead), project, "pairs.jsonl", bad + "\n")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error.startswith("pairs.jsonl:1: "), error[:200]
    assert "characters]" in error and "sure" in error, error
    assert len(error) < 400, len(error)


def test_cut_middle_keeps_both_ends_and_counts_the_cut():
    assert cut_middle("short") == "short"
    cut = cut_middle("a" * 100 + "b" * 100, 20)
    assert cut == "a" * 10 + "…[180 characters]…" + "b" * 10
    problem = Problem("token 'y' is odd", file="f.tsv", line=7, pair_id=LONG)
    assert str(problem).startswith("f.tsv:7: pair 'xxxx") and str(problem).endswith(
        "tail9': token 'y' is odd"
    )
    assert len(str(problem)) < 120
    error = FormatError(f"bad field 'source': {LONG}", file="c.tsv", line=3)
    assert str(error).startswith("c.tsv:3: bad field 'source': xxx") and "tail9" in str(error)
    assert len(str(error)) < 340
