"""Projects, subcorpora, pairs, annotations, jobs, aligner runs, reports and gold through the
API: roles (anonymous 401, outsiders see nothing, annotators are refused lead actions), the
blind rule, the pair filters, pagination and the validation errors."""

from __future__ import annotations

import pytest

from annotator.models import AgreementReport, AlignerRun, GoldAlignment, GoldRevision, Job

LIST_URLS = [
    "/api/projects/",
    "/api/subcorpora/",
    "/api/pairs/",
    "/api/annotations/",
    "/api/jobs/",
    "/api/aligner-runs/",
    "/api/reports/",
    "/api/assignments/",
]


def ids(response, key="external_id"):
    assert response.status_code == 200, response.content
    return sorted(row[key] for row in response.json()["results"])


@pytest.mark.django_db
@pytest.mark.parametrize("url", LIST_URLS)
def test_anonymous_is_401_with_an_error_message(api, url):
    response = api().get(url)
    assert response.status_code == 401
    assert "credentials" in response.json()["error"]


@pytest.mark.parametrize("url", LIST_URLS)
def test_outsider_sees_nothing_of_the_project(api, corpus, outsider, url):
    response = api(outsider).get(url)
    assert response.status_code == 200
    rows = response.json()["results"]
    assert all(row.get("project") != corpus["p1"].project_id for row in rows)
    assert all(row.get("id") != corpus["p1"].project_id for row in rows) or url != "/api/projects/"


def test_outsider_gets_404_for_objects_of_the_project(api, corpus, outsider, project):
    client = api(outsider)
    for url in (
        f"/api/projects/{project.pk}/",
        f"/api/pairs/{corpus['p1'].pk}/",
        f"/api/annotations/{corpus['a1'].annotation.pk}/",
        f"/api/projects/{project.pk}/pairs/{corpus['p1'].pk}/gold/",
    ):
        assert client.get(url).status_code == 404, url


def test_project_shows_role_and_counts(api, corpus, project, lead, annotator):
    data = api(lead).get(f"/api/projects/{project.pk}/").json()
    assert data["role"] == "lead"
    assert data["counts"] == {"pairs": 4, "trial": 1, "gold": 3, "seeded": 0}
    assert api(annotator).get(f"/api/projects/{project.pk}/").json()["role"] == "annotator"


def test_pair_filters(api, corpus, project, lead, annotator):
    client = api(lead)
    base = f"/api/pairs/?project={project.pk}"
    assert ids(client.get(base)) == ["p1", "p2", "p3", "t1"]
    assert ids(client.get(base + "&subcorpus=novels")) == ["p3"]
    assert ids(client.get(base + "&trial=true")) == ["t1"]
    assert ids(client.get(base + "&trial=false")) == ["p1", "p2", "p3"]
    assert ids(client.get(base + "&status=submitted")) == ["p1"]
    assert ids(client.get(base + "&status=unassigned")) == ["p3", "t1"]
    assert ids(client.get(base + "&status=gold")) == ["p1", "p3", "t1"]
    assert ids(client.get(base + "&annotator=ann_two")) == ["p1"]
    assert ids(client.get(base + "&annotator=ann_one&status=assigned")) == ["p2"]


def test_pair_filter_errors_name_the_parameter(api, corpus, project, lead):
    client = api(lead)
    for query, name in (
        ("status=finished", "status"),
        ("project=abc", "project"),
        (f"project={2**70}", "project"),
        ("trial=maybe", "trial"),
    ):
        response = client.get(f"/api/pairs/?{query}")
        assert response.status_code == 400, query
        assert response.json()["error"].startswith(f"{name}:"), response.json()


def test_blind_rule_on_pairs_and_annotations(api, corpus, project, annotator, annotator2):
    mine = api(annotator).get(f"/api/pairs/?project={project.pk}").json()["results"]
    assert sorted(p["external_id"] for p in mine) == ["p1", "p2"]
    for pair in mine:
        assert {a["annotator"] for a in pair["assignments"]} == {"ann_one"}
        assert pair["has_gold"] is None  # gold is for leads
    # annotators cannot filter their way into someone else's work
    assert ids(api(annotator).get("/api/pairs/?annotator=ann_two")) == []
    notes = api(annotator).get("/api/annotations/").json()["results"]
    assert [(n["annotator"], n["external_id"]) for n in notes] == [("ann_one", "p1")]
    other = corpus["a2"].annotation.pk
    assert api(annotator).get(f"/api/annotations/{other}/").status_code == 404
    assert api(annotator2).get(f"/api/pairs/{corpus['p2'].pk}/").status_code == 404


def test_lead_reads_every_annotation_with_its_version(api, corpus, lead):
    rows = api(lead).get("/api/annotations/?external_id=p1").json()["results"]
    assert sorted((r["annotator"], r["version"], r["revisions"]) for r in rows) == [
        ("ann_one", 1, 0),
        ("ann_two", 1, 0),
    ]


def test_pagination(api, corpus, project, lead):
    client = api(lead)
    first = client.get(f"/api/pairs/?project={project.pk}&page_size=3").json()
    assert first["count"] == 4 and len(first["results"]) == 3 and first["previous"] is None
    second = client.get(first["next"]).json()
    assert [p["external_id"] for p in second["results"]] == ["t1"] and second["next"] is None
    response = client.get(f"/api/pairs/?project={project.pk}&page=9")
    assert response.status_code == 404 and "page" in response.json()["error"].lower()


def failed_job(project, user):
    return Job.objects.create(
        kind="import",
        project=project,
        created_by=user,
        status=Job.Status.FAILED,
        message="Failed: CorpusImportError",
        error="CorpusImportError: x.jsonl:3: pair 'x7': link 0-9 out of range\n\n"
        'Traceback (most recent call last):\n  File "/srv/app/importing.py"',
        result={"secret": "leads only"},
    )


def test_job_reason_for_everyone_traceback_for_leads(api, corpus, project, lead, annotator):
    job = failed_job(project, lead)
    as_lead = api(lead).get(f"/api/jobs/{job.pk}/").json()
    as_annotator = api(annotator).get(f"/api/jobs/{job.pk}/").json()
    reason = "CorpusImportError: x.jsonl:3: pair 'x7': link 0-9 out of range"
    assert as_lead["reason"] == as_annotator["reason"] == reason
    assert "Traceback" in as_lead["error"]
    assert as_annotator["error"] is None and as_annotator["result"] is None
    assert as_lead["finished"] is True and as_lead["url"] == f"/api/jobs/{job.pk}/"
    assert api(lead).get("/api/jobs/?status=failed").json()["count"] == 1
    assert api(lead).get("/api/jobs/?status=running").json()["count"] == 0


def test_aligner_run_start_and_follow(api, corpus, project, lead, annotator):
    response = api(annotator).post("/api/aligner-runs/", {"project": project.pk}, format="json")
    assert response.status_code == 403
    assert not Job.objects.filter(kind="seed").exists()
    response = api(lead).post(
        "/api/aligner-runs/", {"project": project.pk, "use_gold": True}, format="json"
    )
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["kind"] == "seed" and job["status"] == "queued" and job["params"]["use_gold"]
    assert api(lead).get(job["url"]).json()["id"] == job["id"]
    run = AlignerRun.objects.create(project=project, note="r")
    rows = api(annotator).get(f"/api/aligner-runs/?project={project.pk}").json()["results"]
    assert [r["id"] for r in rows] == [run.pk]


def test_reports_start_and_get_the_stored_one(api, corpus, project, lead, annotator):
    assert api(annotator).post("/api/reports/", {"project": project.pk}).status_code == 403
    response = api(lead).post("/api/reports/", {"project": project.pk, "samples": -5})
    assert response.status_code == 400 and "samples" in response.json()["error"]
    assert api(lead).post("/api/reports/", {"project": project.pk}).status_code == 202
    response = api(lead).get(f"/api/reports/latest/?project={project.pk}")
    assert response.status_code == 404 and "no stored report" in response.json()["error"]
    report = AgreementReport.objects.create(project=project, params={}, result={"inputs": {}})
    data = api(lead).get(f"/api/reports/latest/?project={project.pk}").json()
    assert data["id"] == report.pk and data["result"] == {"inputs": {}}
    assert api(annotator).get(f"/api/reports/{report.pk}/").status_code == 404


def test_gold_get_and_put_keeps_revisions(api, corpus, project, lead, annotator):
    pair = corpus["p1"]
    url = f"/api/projects/{project.pk}/pairs/{pair.pk}/gold/"
    assert api(annotator).get(url).status_code == 403
    client = api(lead)
    before = client.get(url).json()
    assert before["gold"]["version"] == 1 and len(before["history"]) == 1
    response = client.put(url, {"version": 1, "links": [[0, 0, "S"]], "note": "n"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["version"] == 2 and response.json()["origin"] == "adjudicated"
    after = client.get(url).json()
    assert [h["version"] for h in after["history"]] == [1, 2]
    # stale: 409 with the current gold, nothing written
    response = client.put(url, {"version": 1, "links": [[1, 1, "S"]]}, format="json")
    assert response.status_code == 409 and response.json()["current"]["version"] == 2
    # a link outside the grid: 400 naming the cell, nothing written
    response = client.put(url, {"version": 2, "links": [[0, 9, "S"]]}, format="json")
    assert response.status_code == 400
    assert "9" in " ".join(response.json()["links"])
    assert GoldAlignment.objects.get(pair=pair).version == 2
    assert GoldRevision.objects.filter(gold__pair=pair).count() == 2
