"""A zip of document pairs through real Celery workers on Redis and PostgreSQL: its pairs are
aligned as a group of part tasks shared by two workers, each member read by its own task, and
the one member that cannot be read fails only its pair, named in the job's result."""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator.documents import services, uploads
from annotator.models import DocumentPair, JobPart, Membership, Project
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

DE = "Das Haus ist alt.\nEs steht am See.\nIm Jahr 1900 wurde es gebaut.\n"
FR = "La maison est vieille.\nElle se trouve au bord du lac.\nElle fut construite en 1900.\n"


def _zip_with_one_bad_member(pairs: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
        for k in range(pairs):
            z.writestr(f"p{k}.de", DE)
            z.writestr(f"p{k}.fr", FR.replace("maison", "MAISON") if k == 3 else FR)
    data = buf.getvalue()
    at = data.index(b"La MAISON")  # its CRC no longer matches: only reading it finds out
    return data[:at] + b"X" + data[at + 1 :]


def test_two_workers_share_a_zips_pairs_and_a_bad_member_fails_alone(
    start_worker, django_user_model, settings, tmp_path
):
    settings.VAR_DIR = tmp_path
    workers = [start_worker(GRIDALIGN_VAR_DIR=str(tmp_path)) for _ in range(2)]
    project = Project.objects.create(name="documents through workers")
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    Membership.objects.create(project=project, user=lead, role="lead")

    archive = SimpleUploadedFile("docs.zip", _zip_with_one_bad_member(8))
    created = uploads.accept_upload(
        project=project, user=lead, source_language="de", target_language="fr", archive=archive
    )
    assert {dp.state for dp in created} == {DocumentPair.State.WAITING}
    job = services.start_align_job(project=project, user=lead, document_pairs=created)
    seen = watch(job, timeout=120)
    logs = "\n".join(w.log for w in workers)
    assert seen[-1] == ("succeeded", 100), logs
    assert job.result["aligned"] == 7 and job.result["failed_count"] == 1, job.result
    assert job.result["failed"][0]["document_pair"] == "p3"
    assert "docs.zip: p3.fr cannot be read" in job.result["failed"][0]["error"]
    assert JobPart.objects.filter(job=job).count() == 8
    # the parts ran as tasks of their own, and both workers took some
    for worker in workers:
        assert re.search(r"annotator\.tasks\.run_job_part\[.*\] received", worker.log), worker.log
    states = dict(DocumentPair.objects.values_list("name", "state"))
    assert states.pop("p3") == DocumentPair.State.FAILED
    assert set(states.values()) == {DocumentPair.State.READY}
    assert all(dp.beads.count() == 3 for dp in DocumentPair.objects.exclude(name="p3"))
