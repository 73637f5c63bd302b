"""Normalisation on import (issue 34), offered not silent: ``manage.py import_corpus`` and the
Import page refuse a file whose tokens hold a control character, naming the option; with
``--normalize`` / "Clean the text" the tokens are stored cleaned, the links on the same
positions, and the report counts the tokens changed."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from annotator.models import GoldAlignment, Job, SentencePair
from annotator.templatetags.jobs import job_summary
from tests.api.helpers import run_queued

pytestmark = pytest.mark.django_db

ROWS = [
    {"id": "n1", "source": ["the", "Ca\u0082fe", "opened"], "target": ["the", "cafe", "opened"],
     "sure": [[0, 0], [1, 1], [2, 2]]},
    {"id": "n2", "source": ["ne\u0301", "here"], "target": ["born", "here"], "sure": [[1, 1]]},
    {"id": "n3", "source": ["it", "rained"], "target": ["rain", "fell"], "sure": [[1, 0]]},
]  # fmt: skip
DIRTY = "".join(json.dumps(row) + "\n" for row in ROWS)


@pytest.fixture(autouse=True)
def own_upload_folder(settings, tmp_path):
    """Uploads under this test's own folder (other test processes upload at the same time)."""
    settings.VAR_DIR = tmp_path


def stored(project) -> dict[str, SentencePair]:
    return {p.external_id: p for p in SentencePair.objects.filter(project=project)}


def assert_cleaned(project) -> None:
    pairs = stored(project)
    assert pairs["n1"].source_tokens == ["the", "Cafe", "opened"]
    assert pairs["n2"].source_tokens == ["n\u00e9", "here"]  # NFC: one code point
    assert pairs["n3"].source_tokens == ["it", "rained"]
    gold = GoldAlignment.objects.get(pair=pairs["n1"]).links
    assert [link[:2] for link in gold] == [[0, 0], [1, 1], [2, 2]]  # the links did not move


def run(*args: object) -> str:
    out = StringIO()
    call_command("import_corpus", *map(str, args), stdout=out, stderr=StringIO())
    return out.getvalue()


def test_import_corpus_refuses_then_normalizes(project, tmp_path):
    path = tmp_path / "dirty.jsonl"
    path.write_text(DIRTY, encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        run("--project", project.name, "--as", "gold", path)
    assert "U+0082" in str(refused.value) and "--normalize" in str(refused.value)
    assert not SentencePair.objects.filter(project=project).exists()

    out = run("--project", project.name, "--as", "gold", "--normalize", path)
    assert "normalized: 2 token(s) cleaned in 2 pair(s)" in out
    assert_cleaned(project)


def test_import_corpus_json_report_counts(project, tmp_path):
    path = tmp_path / "dirty.jsonl"
    path.write_text(DIRTY, encoding="utf-8")
    report = json.loads(run("--project", project.name, "--normalize", "--json", path))
    assert (report["normalized"], report["tokens_normalized"], report["pairs_normalized"]) == (
        True,
        2,
        2,
    )


def test_a_control_only_token_is_refused_even_normalized(project, tmp_path):
    path = tmp_path / "worse.jsonl"
    row = {"id": "w1", "source": ["a", "\u0082", "b"], "target": ["a", "b"], "sure": [[2, 1]]}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(CommandError, match="only control characters"):
        run("--project", project.name, "--as", "gold", "--normalize", path)
    assert not SentencePair.objects.filter(project=project).exists()


def post_page(client, project, **extra):
    form = {"file": SimpleUploadedFile("dirty.jsonl", DIRTY.encode()), "load_as": "gold",
            "token_mismatch": "error", **extra}  # fmt: skip
    return client.post(f"/projects/{project.pk}/import/", form)


def test_the_import_page_offers_the_checkbox_refuses_then_cleans(client, lead, project):
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/import/").content.decode()
    assert 'name="normalize"' in page and "Clean the text" in page

    refused = post_page(client, project)
    assert refused.status_code == 400
    body = refused.content.decode()
    assert "U+0082" in body and "Clean the text" in body
    assert not Job.objects.filter(project=project).exists()

    response = post_page(client, project, normalize="on")
    assert response.status_code == 302
    job = Job.objects.get(project=project, kind="import")
    assert job.params["normalize"] is True
    finished = run_queued(job.pk)
    assert finished.status == Job.Status.SUCCEEDED, finished.error
    assert finished.result["tokens_normalized"] == 2
    assert "normalized: 2 token(s) cleaned" in job_summary(finished, lead)
    assert_cleaned(project)
