"""``POST /api/projects/{id}/imports/`` with ``normalize`` (issue 34): without it a file whose
tokens hold a control character is a 400 naming the field; with it the job stores the tokens
cleaned and its report counts them."""

from __future__ import annotations

import json

import pytest

from annotator.models import GoldAlignment, Job, SentencePair
from tests.api.helpers import run_queued, upload

pytestmark = pytest.mark.django_db

ROWS = [
    {"id": "n1", "source": ["the", "Ca\u0082fe"], "target": ["the", "cafe"], "sure": [[1, 1]]},
    {"id": "n2", "source": ["ne\u0301", "here"], "target": ["born", "here"], "sure": [[1, 1]]},
]
DIRTY = "".join(json.dumps(row) + "\n" for row in ROWS)


@pytest.fixture(autouse=True)
def own_upload_folder(settings, tmp_path):
    settings.VAR_DIR = tmp_path


def post(client, project, **options):
    return client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload("dirty.jsonl", DIRTY), "load_as": "gold", **options},
        format="multipart",
    )


def test_refused_without_normalize_naming_the_field(api, project, lead):
    response = post(api(lead), project)
    assert response.status_code == 400
    text = json.dumps(response.json())
    assert "U+0082" in text and "normalize" in text and "dirty.jsonl" in text
    assert not Job.objects.filter(project=project).exists()
    assert not SentencePair.objects.filter(project=project).exists()


def test_normalize_cleans_and_reports(api, project, lead):
    response = post(api(lead), project, normalize="true")
    assert response.status_code == 202, response.content
    finished = run_queued(response.json()["id"])
    assert finished.status == Job.Status.SUCCEEDED, finished.error
    assert finished.result["tokens_normalized"] == 2
    assert finished.result["pairs_normalized"] == 2
    pairs = {p.external_id: p for p in SentencePair.objects.filter(project=project)}
    assert pairs["n1"].source_tokens == ["the", "Cafe"]
    assert pairs["n2"].source_tokens == ["n\u00e9", "here"]
    assert [link[:2] for link in GoldAlignment.objects.get(pair=pairs["n1"]).links] == [[1, 1]]


# -- evaluate: the system's file is read the same way ------------------------------------------

SYSTEM = json.dumps({"id": "p1", "source": ["the", "c\u0082at", "sat"],
                     "target": ["a", "cat", "was", "sitting"], "sure": [[1, 1]]}) + "\n"  # fmt: skip


def evaluate(client, project, **options):
    return client.post(
        f"/api/projects/{project.pk}/evaluate/",
        {"file": upload("system.jsonl", SYSTEM), **options},
        format="multipart",
    )


def test_evaluate_refuses_then_normalizes(api, project, lead, corpus, tmp_path):
    from django.core.management import CommandError, call_command

    refused = evaluate(api(lead), project)
    assert refused.status_code == 400 and "--normalize" in refused.json()["error"]
    result = evaluate(api(lead), project, normalize="true")
    assert result.status_code == 200, result.content
    assert result.json()["pairs"] == 1  # the cleaned "cat" matches the gold's tokens

    path = tmp_path / "system.jsonl"
    path.write_text(SYSTEM, encoding="utf-8")
    with pytest.raises(CommandError, match="--normalize"):
        call_command("evaluate", str(path), "--project", project.name)
    call_command("evaluate", str(path), "--project", project.name, "--normalize")
