"""``GET /api/projects/{id}/export/``: the gold corpus, streamed, in each format; trial pairs
only when asked; every format re-imports into a new project with the same ids, tokens,
links and subcorpora."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile

import pytest

from annotator.models import GoldAlignment, Job, Membership, Project
from tests.api.helpers import body, run_queued, upload

pytestmark = pytest.mark.django_db


def export(client, project, **query):
    return client.get(f"/api/projects/{project.pk}/export/", query)


def jsonl_rows(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines() if line]


def test_jsonl_is_streamed_with_a_dated_file_name(api, project, lead, corpus):
    response = export(api(lead), project, format="jsonl")
    assert response.status_code == 200
    assert response.streaming
    today = dt.date.today().isoformat()
    assert response["Content-Disposition"] == (
        f'attachment; filename="api-project-gold-{today}.jsonl"'
    )
    rows = jsonl_rows(body(response))
    assert [r["id"] for r in rows] == ["p1", "p3"]  # import order; no trial, no un-gold pair
    p1 = rows[0]
    assert p1["subcorpus"] == "news"
    assert p1["source"] == ["the", "cat", "sat"]
    assert p1["sure"] == [[1, 1], [2, 3]] and p1["possible"] == [[0, 0]]


def test_trial_pairs_only_when_asked_and_marked(api, project, lead, corpus):
    rows = jsonl_rows(body(export(api(lead), project, include_trial="true")))
    trial = [r for r in rows if r["id"] == "t1"]
    assert len(rows) == 3 and trial and trial[0]["metadata"]["trial"] is True


def test_subcorpus_filter(api, project, lead, corpus):
    response = export(api(lead), project, subcorpus="novels")
    assert [r["id"] for r in jsonl_rows(body(response))] == ["p3"]
    assert "-gold-novels-" in response["Content-Disposition"]


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"format": "xml"}, "format"),
        ({"subcorpus": "poetry"}, "subcorpus"),
        ({"include_trial": "maybe"}, "include_trial"),
        ({"format": "jsonl", "text": "source"}, "text"),
        ({"format": "pharaoh", "text": "both"}, "text"),
    ],
)
def test_bad_options_are_400_naming_them(api, project, lead, corpus, query, named):
    response = export(api(lead), project, **query)
    assert response.status_code == 400
    assert named in response.json()["error"]


def test_roles(api, project, lead, annotator, outsider, corpus):
    assert export(api(), project).status_code == 401
    assert export(api(annotator), project).status_code == 403  # blind: no gold for annotators
    assert export(api(outsider), project).status_code == 404
    assert export(api(lead, session=True), project).status_code == 200


def test_pharaoh_zip_holds_links_pairs_and_both_sides(api, project, lead, corpus):
    response = export(api(lead), project, format="pharaoh")
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(body(response)))
    names = sorted(archive.namelist())
    base = names[0].split(".")[0]
    assert names == sorted(
        f"{base}{ext}" for ext in (".pharaoh", ".tsv", ".source.txt", ".target.txt")
    )
    assert archive.read(f"{base}.pharaoh").decode() == "0?0 1-1 2-3\n0?1 1-1 2-2\n"
    assert archive.read(f"{base}.source.txt").decode() == "the cat sat\nrain fell hard\n"
    assert archive.read(f"{base}.tsv").decode().splitlines()[1].split("\t")[:4] == [
        "p1",
        "the cat sat",
        "a cat was sitting",
        "news",
    ]


def test_text_variant_is_one_plain_file(api, project, lead, corpus):
    response = export(api(lead), project, format="naacl", text="target")
    assert response["Content-Type"].startswith("text/plain")
    assert response["Content-Disposition"].endswith('.target.txt"')
    assert body(response).decode() == "a cat was sitting\nit rained heavily\n"


def test_a_pair_the_format_cannot_carry_is_refused_before_streaming(api, project, lead, corpus):
    corpus["p1"].external_id = "has (parens)"
    corpus["p1"].save()
    response = export(api(lead), project, format="giza-a3")
    assert response.status_code == 400
    assert "has (parens)" in response.json()["error"]


# -- round trips -------------------------------------------------------------------------


def gold_of(project) -> dict:
    return {
        g.pair.external_id: (
            g.pair.source_tokens,
            g.pair.target_tokens,
            g.pair.subcorpus.name if g.pair.subcorpus else None,
            g.pair.is_trial,
            sorted(map(tuple, g.links)),
        )
        for g in GoldAlignment.objects.filter(pair__project=project).select_related(
            "pair__subcorpus"
        )
    }


def import_into(client, project, files: dict, **options) -> Job:
    response = client.post(
        f"/api/projects/{project.pk}/imports/",
        {**files, "load_as": "gold", **options},
        format="multipart",
    )
    assert response.status_code == 202, response.content
    job = run_queued(response.json()["id"])
    assert job.status == Job.Status.SUCCEEDED, job.error
    return job


@pytest.fixture
def copy(lead):
    project = Project.objects.create(name="Copy")
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    return project


@pytest.mark.parametrize("fmt", ["jsonl", "pharaoh", "naacl"])
def test_export_then_import_is_lossless(api, project, lead, corpus, copy, fmt):
    client = api(lead)
    response = export(client, project, format=fmt, include_trial="true")
    name = response["Content-Disposition"].split('"')[1]
    import_into(client, copy, {"file": upload(name, body(response))})
    assert gold_of(copy) == gold_of(project)


def test_giza_round_trip_one_subcorpus_at_a_time(api, project, lead, corpus, copy):
    """giza-a3 has no field for the subcorpus (nor the trial flag): export each subcorpus and
    name it on import."""
    client = api(lead)
    for sub in ("news", "novels"):
        response = export(client, project, format="giza-a3", subcorpus=sub)
        import_into(client, copy, {"file": upload("gold.A3", body(response))}, subcorpus=sub)
    assert gold_of(copy) == {k: v for k, v in gold_of(project).items() if not v[3]}


def test_pharaoh_with_its_tsv_as_separate_files(api, project, lead, corpus, copy):
    client = api(lead)
    links = body(export(client, project, format="pharaoh"))
    archive = zipfile.ZipFile(io.BytesIO(links))
    [pharaoh] = [n for n in archive.namelist() if n.endswith(".pharaoh")]
    [tsv] = [n for n in archive.namelist() if n.endswith(".tsv")]
    import_into(
        client,
        copy,
        {
            "file": upload("gold.pharaoh", archive.read(pharaoh)),
            "source_text": upload("pairs.tsv", archive.read(tsv)),
        },
    )
    assert gold_of(copy) == {k: v for k, v in gold_of(project).items() if not v[3]}


def test_unknown_format_lists_the_formats(api, project, lead, corpus):
    response = api(lead).get(f"/api/projects/{project.pk}/export/?format=xml")
    assert response.status_code == 400
    assert response.json()["error"] == (
        'format: "xml" is not one of jsonl, pharaoh, naacl, giza-a3.'
    )
