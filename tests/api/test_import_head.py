"""Audit finding 5 (issue 30), the request's side: a big upload is stored and only its head is
checked in the request (a broken head is still a 400 at once, naming file and line); the rest
is read by the import job, whose failure names the line the same way. A small upload is read
whole in the request, as before. (Memory: benchmarks/import_memory.py.)"""

from __future__ import annotations

import pytest

from annotator.corpora.services.upload_head import FULL_CHECK_MAX_BYTES
from annotator.models import Job
from tests.api.helpers import run_queued, upload

pytestmark = pytest.mark.django_db


def big_tsv(*, bad_line: int | None = None) -> tuple[str, int]:
    lines, size, k = [], 0, 0
    while size <= FULL_CHECK_MAX_BYTES + 1000:
        row = f"p{k}\tthe cat sat on the mat {k}\ta cat was sitting on a mat {k}\n"
        lines.append(row)
        size += len(row)
        k += 1
    if bad_line is not None:
        index = bad_line - 1 if bad_line > 0 else len(lines) - 1
        lines[index] = "only one column here\n"
    return "".join(lines), len(lines)


def post(client, project, name, text):
    return client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload(name, text), "dry_run": True},
        format="multipart",
    )


def test_a_big_upload_with_a_bad_last_line_is_queued_and_the_job_names_the_line(api, project, lead):
    text, count = big_tsv(bad_line=-1)
    response = post(api(lead), project, "big.tsv", text)
    assert response.status_code == 202, response.content[:300]
    job = run_queued(response.json()["id"])
    assert job.status == Job.Status.FAILED
    assert f"big.tsv:{count}:" in job.error, job.error[:300]


def test_a_big_upload_with_a_bad_head_is_a_400_at_once(api, project, lead):
    text, _ = big_tsv(bad_line=3)
    response = post(api(lead), project, "big.tsv", text)
    assert response.status_code == 400
    assert response.json()["error"].startswith("big.tsv:3:"), response.json()["error"][:200]


def test_a_big_binary_upload_is_a_400_naming_the_line(api, project, lead):
    text, _ = big_tsv()
    data = text.encode()
    data = data[:500] + b"\x00\x01\x02" + data[500:]
    response = post(api(lead), project, "big.tsv", data)
    assert response.status_code == 400
    assert "big.tsv:" in response.json()["error"] and "NUL" in response.json()["error"]


def test_a_small_upload_is_still_read_whole_in_the_request(api, project, lead):
    text = "".join(f"p{k}\ta b\tc d\n" for k in range(100)) + "broken last line\n"
    response = post(api(lead), project, "small.tsv", text)
    assert response.status_code == 400
    assert response.json()["error"].startswith("small.tsv:101:")
