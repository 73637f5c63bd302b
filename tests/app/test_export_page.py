"""The lead's Export page (issue 31): the project's gold in every export format of the API,
with the same options, as a download; a bad option or a pair a format cannot carry is refused
on the page (400, the reason named) and no file is sent; annotators and outsiders cannot export."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from annotator.gold.services.gold import set_gold
from annotator.models import SentencePair, Subcorpus

pytestmark = pytest.mark.django_db


@pytest.fixture
def golds(project, pair):
    """``pair`` (news, gold 2 links) and a second pair in subcorpus "novels" with gold."""
    other = SentencePair.objects.create(
        project=project, subcorpus=Subcorpus.objects.create(project=project, name="novels"),
        external_id="p2", position=2, source_tokens=["it", "rained"], target_tokens=["rain"],
    )  # fmt: skip
    set_gold(pair=pair, links=[[0, 0, "S"], [1, 1, "P"]], origin="imported")
    set_gold(pair=other, links=[[1, 0, "S"]], origin="imported")
    return pair, other


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def test_the_page_offers_every_api_format_and_option_and_is_in_the_nav(client_for, lead, golds):
    project = golds[0].project
    page = client_for(lead).get(f"/projects/{project.pk}/export/")
    assert page.status_code == 200
    html = page.content.decode()
    for fmt in ("jsonl", "pharaoh", "naacl", "giza-a3"):
        assert f'value="{fmt}"' in html
    for name in ("format", "subcorpus", "include_trial", "text"):
        assert f'name="{name}"' in html
    assert 'value="novels"' in html and 'value="news"' in html
    assert "2 pairs with gold" in html
    assert f'href="/projects/{project.pk}/export/" aria-current="page"' in html
    home = client_for(lead).get(f"/projects/{project.pk}/").content.decode()
    assert f'href="/projects/{project.pk}/export/"' in home


def test_jsonl_download_of_one_subcorpus(client_for, lead, golds):
    pair, _ = golds
    response = client_for(lead).get(
        f"/projects/{pair.project_id}/export/",
        {"download": "1", "format": "jsonl", "subcorpus": "news"},
    )
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="')
    rows = [json.loads(line) for line in body(response).decode().splitlines()]
    assert [r["id"] for r in rows] == ["p1"]
    assert rows[0]["sure"] == [[0, 0]] and rows[0]["possible"] == [[1, 1]]


def test_pharaoh_comes_as_a_zip_or_one_text_file(client_for, lead, golds):
    project_id = golds[0].project_id
    client = client_for(lead)
    response = client.get(
        f"/projects/{project_id}/export/", {"download": "1", "format": "pharaoh", "subcorpus": "*"}
    )
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(body(response))).namelist()
    assert len(names) == 4 and any(n.endswith(".tsv") for n in names)
    source = client.get(
        f"/projects/{project_id}/export/",
        {"download": "1", "format": "pharaoh", "subcorpus": "*", "text": "source"},
    )
    assert body(source).decode().splitlines() == ["the cat sat", "it rained"]


def test_a_refused_option_is_named_on_the_page_and_no_file_is_sent(client_for, lead, golds):
    project_id = golds[0].project_id
    client = client_for(lead)
    response = client.get(
        f"/projects/{project_id}/export/", {"download": "1", "format": "jsonl", "text": "source"}
    )
    assert response.status_code == 400 and "Content-Disposition" not in response
    assert "text: jsonl files carry their own sentences" in response.content.decode()
    unknown = client.get(f"/projects/{project_id}/export/", {"download": "1", "format": "xml"})
    assert unknown.status_code == 400 and "xml is not one of the available choices" in (
        unknown.content.decode()
    )
    stranger = client.get(
        f"/projects/{project_id}/export/", {"download": "1", "format": "jsonl", "subcorpus": "zz"}
    )
    assert stranger.status_code == 400 and "Content-Disposition" not in stranger


def test_annotators_and_outsiders_cannot_export(client_for, annotator, outsider, golds):
    project_id = golds[0].project_id
    url = f"/projects/{project_id}/export/?download=1&format=jsonl"
    assert client_for(annotator).get(url).status_code == 403
    assert client_for(outsider).get(url).status_code == 404
