"""The lead's Import page (issue 31, "project life in the browser"): upload a corpus with the
import options, the import job's bar and report, roles, and a bad file refused with its line
and nothing written."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator.corpora.services.uploads import upload_root
from annotator.models import GoldAlignment, Job, SentencePair
from annotator.templatetags.jobs import job_summary
from tests.api.helpers import run_queued

pytestmark = pytest.mark.django_db

EDINBURGH = [
    {"id": "e1", "name": "e1", "source": "the cat sat", "target": "a cat sat",
     "sureAlign": "0-0 1-1 2-2", "possibleAlign": ""},
    {"id": "e2", "name": "e2", "source": "it rained", "target": "rain fell",
     "sureAlign": "0-1", "possibleAlign": "1-0"},
]  # fmt: skip


@pytest.fixture(autouse=True)
def own_upload_folder(settings, tmp_path):
    """Uploads under this test's own folder (other test processes upload at the same time)."""
    settings.VAR_DIR = tmp_path


def upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode())


def uploads_left() -> list:
    root = upload_root()
    return list(root.iterdir()) if root.is_dir() else []


def test_the_page_shows_every_option_and_is_linked_from_the_project(client, lead, project):
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/import/").content.decode()
    for name in ("file", "format", "encoding", "source_text", "target_text", "text_format", "sure_file")+(
        "load_as", "annotator", "subcorpus", "max_length_ratio", "token_mismatch",
        "replace_gold", "dry_run",
    ):  # fmt: skip
        assert f'name="{name}"' in page, name
    for fmt in ("jsonl", "pharaoh", "naacl", "edinburgh", "tsv"):
        assert f'value="{fmt}"' in page
    assert 'enctype="multipart/form-data"' in page and "No import yet." in page
    home = client.get(f"/projects/{project.pk}/").content.decode()
    assert f'href="/projects/{project.pk}/import/"' in home


def test_a_lead_uploads_edinburgh_gold_and_reads_the_report(client, lead, project):
    client.force_login(lead)
    form = {"file": upload("tiny.json", json.dumps(EDINBURGH)), "format": "edinburgh",
            "load_as": "gold", "subcorpus": "news", "token_mismatch": "error"}  # fmt: skip
    response = client.post(f"/projects/{project.pk}/import/", form)
    assert response.status_code == 302 and response.url == f"/projects/{project.pk}/import/"
    job = Job.objects.get(project=project, kind="import")
    assert job.status == Job.Status.QUEUED and job.params["load_as"] == "gold"
    assert job.params["format"] == "edinburgh" and job.params["subcorpus"] == "news"

    finished = run_queued(job.pk)
    assert finished.status == Job.Status.SUCCEEDED, finished.error
    pairs = {p.external_id: p for p in SentencePair.objects.filter(project=project)}
    assert set(pairs) == {"e1", "e2"} and pairs["e1"].subcorpus.name == "news"
    assert GoldAlignment.objects.get(pair=pairs["e2"]).links == [[0, 1, "S"], [1, 0, "P"]]
    summary = job_summary(finished, lead)
    assert summary.startswith("2 pairs read from 1 file(s): 2 created")
    assert "alignments loaded as gold: 2 written (4 sure, 1 possible links)" in summary
    page = client.get(f"/projects/{project.pk}/import/").content.decode()
    assert "uploaded; importing in job" in page  # the message after the redirect
    assert "2 pairs read from 1 file(s)" in page and 'class="job job--succeeded"' in page


def test_a_second_upload_adds_pairs_and_a_dry_run_writes_nothing(client, lead, project):
    client.force_login(lead)
    line = json.dumps({"id": "j1", "source": "one two", "target": "eins zwei"})
    client.post(f"/projects/{project.pk}/import/", {"file": upload("a.jsonl", line)})
    run_queued(Job.objects.get(project=project, kind="import").pk)
    more = json.dumps({"id": "j2", "source": "three", "target": "drei"})
    client.post(f"/projects/{project.pk}/import/", {"file": upload("b.jsonl", more)})
    dry = json.dumps({"id": "j3", "source": "four", "target": "vier"})
    client.post(
        f"/projects/{project.pk}/import/", {"file": upload("c.jsonl", dry), "dry_run": "on"}
    )
    for job in Job.objects.filter(kind="import", status=Job.Status.QUEUED).order_by("pk"):
        assert run_queued(job.pk).status == Job.Status.SUCCEEDED
    assert set(SentencePair.objects.values_list("external_id", flat=True)) == {"j1", "j2"}
    dry_job = Job.objects.filter(kind="import").order_by("-pk").first()
    assert job_summary(dry_job, lead).startswith("DRY RUN, nothing written")


def test_a_bad_file_is_refused_on_the_page_with_its_line_and_nothing_is_written(
    client, lead, project
):
    client.force_login(lead)
    before = uploads_left()
    bad = json.dumps({"id": "x1", "source": "a b", "target": "c d"}) + "\n{not json\n"
    response = client.post(f"/projects/{project.pk}/import/", {"file": upload("bad.jsonl", bad)})
    assert response.status_code == 400
    page = response.content.decode()
    assert "bad.jsonl:2" in page and 'role="alert"' in page
    assert "var/uploads" not in page  # no server path
    assert not Job.objects.filter(kind="import").exists()
    assert not SentencePair.objects.exists() and uploads_left() == before
    unknown = client.post(
        f"/projects/{project.pk}/import/", {"file": upload("a.jsonl", bad), "encoding": "klingon"}
    )
    assert unknown.status_code == 400 and "unknown encoding" in unknown.content.decode()
    mixed = {"file": upload("a.jsonl", bad), "annotator": "ann", "load_as": "gold"}
    assert client.post(f"/projects/{project.pk}/import/", mixed).status_code == 400
    assert not Job.objects.exists() and uploads_left() == before


def test_a_pharaoh_file_without_its_sentences_is_refused_in_the_forms_words(client, lead, project):
    client.force_login(lead)
    form = {"file": upload("links.pharaoh", "0-0 1-1\n"), "load_as": "gold"}
    response = client.post(f"/projects/{project.pk}/import/", form)
    if response.status_code == 302:  # refused by the job: its reason is on the page
        run_queued()
        response = client.get(response.url)
    page = response.content.decode()
    assert "carry no sentences" in page and "give a source text and a target text" in page
    assert "--source-text" not in page and not SentencePair.objects.exists()


def test_annotators_may_not_import_and_outsiders_do_not_see_the_project(
    client, annotator, outsider, project
):
    line = json.dumps({"id": "j1", "source": "one", "target": "eins"})
    for user, status in ((annotator, 403), (outsider, 404)):
        client.force_login(user)
        assert client.get(f"/projects/{project.pk}/import/").status_code == status
        posted = client.post(f"/projects/{project.pk}/import/", {"file": upload("a.jsonl", line)})
        assert posted.status_code == status
    client.logout()
    assert client.get(f"/projects/{project.pk}/import/").status_code == 302  # to the login
    assert not Job.objects.exists() and not SentencePair.objects.exists()


def test_pharaoh_links_with_their_sentences_load_as_an_annotators_work(
    client, lead, project, make_user
):
    make_user("reader_a")  # an account in no project yet: a lead may load it (member rules)
    client.force_login(lead)
    form = {
        "file": upload("links.pharaoh", "0-0 1-1 2?2\n0-1\n"),
        "source_text": upload("src.txt", "the cat sat\nit rained\n"),
        "target_text": upload("tgt.txt", "a cat sat\nrain fell\n"),
        "annotator": "reader_a",
    }
    response = client.post(f"/projects/{project.pk}/import/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    job = Job.objects.get(project=project, kind="import")
    assert (job.params["load_as"], job.params["annotator"]) == ("annotator", "reader_a")
    finished = run_queued(job.pk)
    assert finished.status == Job.Status.SUCCEEDED, finished.error
    assert SentencePair.objects.filter(project=project).count() == 2
    summary = job_summary(finished, lead)
    assert "alignments loaded as annotator: 2 written (3 sure, 1 possible links)" in summary
    assert "annotator reader_a: 3 sure, 1 possible" in summary


def test_an_import_refused_by_the_job_shows_its_reason_on_the_page(client, lead, project):
    client.force_login(lead)
    first = [{**EDINBURGH[0]}]
    changed = [{**EDINBURGH[0], "sureAlign": "0-1 1-0"}]
    for data in (first, changed):
        form = {"file": upload("e.json", json.dumps(data)), "format": "edinburgh",
                "load_as": "gold"}  # fmt: skip
        assert client.post(f"/projects/{project.pk}/import/", form).status_code == 302
        job = Job.objects.filter(project=project, kind="import").order_by("-pk").first()
        run_queued(job.pk)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    page = client.get(f"/projects/{project.pk}/import/").content.decode()
    assert 'class="job job--failed"' in page and "e.json" in page and "replace" in page
    pair = SentencePair.objects.get(project=project)
    assert GoldAlignment.objects.get(pair=pair).links == [[0, 0, "S"], [1, 1, "S"], [2, 2, "S"]]
