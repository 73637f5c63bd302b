"""Document uploads in bounded memory: a big pair is stored as it came and read by the align
job, not in the request; a zip's pairs are aligned by parallel parts (a Celery group, eager
here), each member read only when its part runs, and a member that cannot be read fails its
own pair, by name, while the others are aligned."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotator.documents import uploads
from annotator.documents.reading import DocumentError, check_text_file
from annotator.jobs.runner import run_job
from annotator.models import DocumentPair, Job, JobPart
from gridalign.celery import app as celery_app
from tests.app.test_documents import DE, FR


@pytest.fixture
def eager():
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before


@pytest.fixture
def stored_here(settings, tmp_path, monkeypatch) -> Path:
    """Uploads go under a temporary VAR_DIR, and every pair counts as big (stored)."""
    settings.VAR_DIR = tmp_path
    monkeypatch.setattr(uploads, "READ_IN_REQUEST_BYTES", 0)
    return tmp_path / "documents"


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def post(user, project, **files):
    data = {"source_language": "de", "target_language": "fr", **files}
    return client_for(user).post(f"/api/projects/{project.pk}/documents/", data, format="multipart")


def zipped(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
        for name, text in members.items():
            z.writestr(name, text)
    return buf.getvalue()


def test_a_big_pair_is_stored_in_the_request_and_read_by_the_align_job(
    eager, stored_here, project, lead
):
    response = post(
        lead, project,
        source=SimpleUploadedFile("hut.de", DE.encode()),
        target=SimpleUploadedFile("hut.fr", FR.encode()),
    )  # fmt: skip
    assert response.status_code == 202, response.content
    dp = DocumentPair.objects.get(pk=response.json()["document_pairs"][0])
    assert dp.state == DocumentPair.State.WAITING and dp.source_sentences == []
    assert dp.source_filename == "hut.de"
    (folder,) = stored_here.iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["source-hut.de", "target-hut.fr"]

    run_job(response.json()["job"]["id"])
    dp.refresh_from_db()
    job = Job.objects.get(pk=response.json()["job"]["id"])
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert dp.state == DocumentPair.State.READY and dp.stored == {}
    assert dp.source_sentences == DE.splitlines() and dp.target_format == "lines"
    assert dp.source_original == DE and dp.target_original == FR  # kept as uploaded
    assert [(b.source, b.target) for b in dp.beads.all()] == [([k], [k]) for k in range(4)]
    assert not folder.exists()  # read: its upload is deleted


def test_a_big_file_that_is_not_utf8_is_refused_in_the_request_by_name(stored_here, project, lead):
    bad = ("Zeile eins.\n" * 3 + "Zeile vier mit \xe4.\n").encode("latin-1")
    response = post(
        lead, project,
        source=SimpleUploadedFile("hut.de", bad), target=SimpleUploadedFile("hut.fr", FR.encode()),
    )  # fmt: skip
    assert response.status_code == 400
    assert "hut.de: not UTF-8 text (byte 0xe4 at offset 51, line 4)" in response.json()["error"]
    assert DocumentPair.objects.count() == 0 and Job.objects.count() == 0
    assert list(stored_here.iterdir()) == []


def test_the_streamed_check_finds_a_bad_byte_past_the_first_megabyte(tmp_path):
    # a two-byte character split by the 1 MB read boundary is fine; a bad byte later is named
    # with its offset and line in the whole file
    head = b"a" * (2**20 - 1) + "ä".encode() + b"\nline two\n"
    good = tmp_path / "good.txt"
    good.write_bytes(head)
    check_text_file(good, filename="good.txt")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(head + b"line three \xff\n")
    with pytest.raises(DocumentError, match=rf"offset {len(head) + 11}, line 3\)"):
        check_text_file(bad, filename="bad.txt")


def _corrupt(data: bytes, text: str) -> bytes:
    """The zip with one member's stored bytes changed: its CRC no longer matches, which only
    reading that member can find."""
    at = data.index(text.encode())
    return data[:at] + b"X" + data[at + 1 :]


def test_a_zip_is_aligned_by_parts_reading_each_member_then_and_a_bad_one_fails_alone(
    eager, stored_here, project, lead
):
    other = FR.replace("glacier", "GLACIER")
    data = _corrupt(
        zipped({"a.de": DE, "a.fr": FR, "b.de": DE, "b.fr": other, "c.de": DE, "c.fr": FR}),
        "Le GLACIER",
    )
    response = post(lead, project, archive=SimpleUploadedFile("docs.zip", data))
    # accepted: no member is read in the request, so b.fr's bad CRC is not seen there
    assert response.status_code == 202, response.content
    pairs = {dp.name: dp for dp in DocumentPair.objects.all()}
    assert sorted(pairs) == ["a", "b", "c"]
    assert {dp.state for dp in pairs.values()} == {DocumentPair.State.WAITING}

    job_id = response.json()["job"]["id"]
    run_job(job_id)
    job = Job.objects.get(pk=job_id)
    assert job.status == Job.Status.SUCCEEDED and job.progress == 100, job.error
    assert sorted(p.key for p in JobPart.objects.filter(job=job)) == sorted(
        str(dp.pk) for dp in pairs.values()
    )
    assert job.result["aligned"] == 2 and job.result["failed_count"] == 1
    (failed,) = job.result["failed"]
    assert failed["document_pair"] == "b"
    assert failed["error"].startswith("docs.zip: b.fr cannot be read (Bad CRC-32")
    assert job.message == "Aligned 2 of 3 document pairs; 1 could not be aligned"
    for dp in pairs.values():
        dp.refresh_from_db()
    assert pairs["b"].state == DocumentPair.State.FAILED and "b.fr" in pairs["b"].error
    assert not pairs["b"].beads.exists()
    for name in ("a", "c"):
        assert pairs[name].state == DocumentPair.State.READY
        assert pairs[name].beads.count() == 4
    assert list(stored_here.iterdir()) == []  # every member read or failed: the zip is gone


def test_a_zip_with_unmatched_names_is_refused_in_the_request(stored_here, project, lead):
    data = zipped({"a.de": DE, "a.fr": FR, "b.de": DE})
    response = post(lead, project, archive=SimpleUploadedFile("docs.zip", data))
    assert response.status_code == 400
    assert "docs.zip: unmatched files: b has no target" in response.json()["error"]
    assert DocumentPair.objects.count() == 0 and list(stored_here.iterdir()) == []


def test_a_part_message_delivered_twice_runs_once(eager, stored_here, project, lead):
    data = zipped({"a.de": DE, "a.fr": FR, "b.de": DE, "b.fr": FR})
    response = post(lead, project, archive=SimpleUploadedFile("docs.zip", data))
    job_id = response.json()["job"]["id"]
    run_job(job_id)
    from annotator.jobs.parts import run_part

    part = JobPart.objects.filter(job_id=job_id).first()
    beads = DocumentPair.objects.get(pk=int(part.key)).beads.count()
    run_part(job_id, part.key)  # the job is finished and the part too: nothing happens
    assert DocumentPair.objects.get(pk=int(part.key)).beads.count() == beads
    assert Job.objects.get(pk=job_id).result["aligned"] == 2


def test_the_documents_page_stores_a_big_pair_and_leaves_it_to_the_job(
    client, stored_here, project, lead
):
    client.force_login(lead)
    response = client.post(
        f"/projects/{project.pk}/documents/",
        {
            "source": SimpleUploadedFile("hut.de", DE.encode()),
            "target": SimpleUploadedFile("hut.fr", FR.encode()),
            "source_language": "de", "target_language": "fr", "kind": "parallel",
            "split": "auto", "name": "",
        },
    )  # fmt: skip
    assert response.status_code == 302
    dp = DocumentPair.objects.get()
    # not read, so not aligned in the request: the align job will do both
    assert dp.state == DocumentPair.State.WAITING and not dp.beads.exists()
    job = Job.objects.get(kind="document-align")
    assert job.params == {"document_pairs": [dp.pk]}
    page = client.get(f"/projects/{project.pk}/documents/")
    assert "(waiting to be read)" in page.content.decode()
