"""The agreement dashboard and the disagreement browser as a lead sees them, the CSV
downloads, and every denial (annotator 403, outsider 404, anonymous to the login page)."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from alignment_core.agreement import PairAnnotations, build_report, score_alignments
from alignment_core.alignment import Alignment
from annotator.models import AgreementReport, Job
from annotator.reports import services as report_services
from tests.app.report_data import build_project, change_annotation

SAMPLES = 20


@pytest.fixture
def planned(project):
    from django.contrib.auth import get_user_model

    users = {n: get_user_model().objects.create_user(n, password="x" * 12) for n in ("amy", "bob")}
    return build_project(project, users, pairs=10)


@pytest.fixture
def report(project, planned, lead):
    return report_services.compute_report(project=project, params={"samples": SAMPLES}, user=lead)


def urls(project) -> dict[str, str]:
    return {
        "dashboard": reverse("project-agreement", args=[project.pk]),
        "csv": reverse("project-agreement", args=[project.pk]) + "?format=csv&table=word",
        "disagreements": reverse("project-disagreements", args=[project.pk]),
        "compute": reverse("project-start-report", args=[project.pk]),
    }


def independent_report(planned) -> dict:
    records = [
        PairAnnotations(
            str(p.pair.pk), p.subcorpus, p.source, p.target, p.seed, dict(p.annotations)
        )
        for p in planned
        if not p.pair.is_trial
    ]
    return build_report(records, samples=SAMPLES, rng_seed=0, pairwise_kappa_c=False)


def read_csv(response) -> list[list[str]]:
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_the_dashboard_shows_build_reports_numbers(client_for, lead, project, planned, report):
    expected = independent_report(planned)
    page = client_for(lead).get(urls(project)["dashboard"])
    assert page.status_code == 200
    html = page.content.decode()
    for level in ("word", "phrase"):
        for row in expected["agreement"][level]:
            for col in ("precision_possible", "precision_sure", "recall_sure", "f1"):
                if row[col] is not None:
                    assert f">{100 * row[col]:.1f}<" in html, (level, row["subcorpus"], col)
            if row["kappa_c"] is not None:
                assert f">{row['kappa_c']:.3f}<" in html
    for name, section in expected["against_seed"].items():
        assert f">{100 * section['word'][-1]['f1']:.1f}<" in html, name
    theta = expected["agreement"]["kappa_c"]["phrase"]["theta"]
    assert f">{theta:.3f}<" in html
    cohen = expected["agreement"]["cohen_kappa_cells"]
    assert f">{cohen:.3f}<" in html
    alpha = expected["multi_rater"]["krippendorff_alpha"]
    assert f">{alpha:.3f}<" in html
    # two annotators: Fleiss' κ does not apply, and the page says why instead of a number
    assert "3 or more annotators — this project has 2" in html
    assert 'id="report-charts"' in html and 'data-chart="edit-rates"' in html
    assert "Up to date" in html and "Stale" not in html


def test_every_table_downloads_as_csv_with_the_reports_values(
    client_for, lead, project, planned, report
):
    expected = independent_report(planned)
    client = client_for(lead)
    base = urls(project)["dashboard"]
    rows = read_csv(client.get(base + "?format=csv&table=word"))
    assert rows[0] == ["Subcorpus", "Pairs", "P poss", "P sure", "R poss", "R sure", "F1", "κ_C"]
    assert [r[0] for r in rows[1:]] == [r["subcorpus"] for r in expected["agreement"]["word"]]
    for got, want in zip(rows[1:], expected["agreement"]["word"], strict=True):
        assert int(got[1]) == want["pairs"]
        assert float(got[6]) == pytest.approx(want["f1"], abs=0, rel=1e-12)
    lengths = read_csv(client.get(base + "?format=csv&table=by-length"))
    phrase_bins = [r for r in lengths[1:] if r[0] == "phrase"]
    assert [int(r[1]) for r in phrase_bins] == [
        b["min_length"] for b in expected["agreement"]["by_length"]["phrase"]
    ]
    for slug in (
        "phrase",
        "seed-word",
        "seed-phrase",
        "pairwise",
        "classic",
        "kappa",
        "edit-rates",
    ):
        rows = read_csv(client.get(base + f"?format=csv&table={slug}"))
        assert len(rows) >= 2, slug
    bad = client.get(base + "?format=csv&table=nonsense")
    assert bad.status_code == 400 and "nonsense" in bad.content.decode()


def test_csv_before_any_report_says_so(client_for, lead, project):
    response = client_for(lead).get(urls(project)["csv"])
    assert response.status_code == 404 and "compute one" in response.content.decode()


def test_a_stale_report_says_so(client_for, lead, project, planned, report):
    assignment = planned[0].pair.assignments.order_by("slot").first()
    change_annotation(assignment, Alignment.from_sets([(0, 0)]))
    html = client_for(lead).get(urls(project)["dashboard"]).content.decode()
    assert "Stale" in html and "saved since" in html


def test_no_report_yet(client_for, lead, project):
    html = client_for(lead).get(urls(project)["dashboard"]).content.decode()
    assert "No agreement report yet" in html and "Compute agreement" in html


def test_compute_starts_a_report_job_and_shows_its_bar(
    client_for, lead, project, planned, django_capture_on_commit_callbacks
):
    client = client_for(lead)
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(urls(project)["compute"], {"samples": "50", "rng_seed": "3"})
    job = Job.objects.get(kind="report")
    assert response.status_code == 302 and response["Location"].endswith(f"#job-{job.pk}")
    assert job.params == {"samples": 50, "rng_seed": 3, "bin_width": 5, "include_trial": False}
    html = client.get(urls(project)["dashboard"]).content.decode()
    assert f'id="job-{job.pk}"' in html and reverse("job-detail", args=[job.pk]) in html


def test_compute_with_bad_parameters_is_a_400_naming_them(client_for, lead, project):
    response = client_for(lead).post(urls(project)["compute"], {"samples": "0"})
    assert response.status_code == 400 and "samples" in response.content.decode()
    json_response = client_for(lead).post(
        urls(project)["compute"], {"rng_seed": "x"}, headers={"accept": "application/json"}
    )
    assert json_response.status_code == 400 and "rng_seed" in json_response.json()["error"]
    assert not Job.objects.exists()


def test_disagreements_lowest_f1_first_with_filters_and_adjudication_links(
    client_for, lead, project, planned
):
    doubly = [p for p in planned if len(p.annotations) == 2 and not p.pair.is_trial]
    word, _ = score_alignments(
        (p.source, p.target, p.annotations[0][1], p.annotations[1][1]) for p in doubly
    )
    f1 = {p.pair.pk: s.f1 for p, s in zip(doubly, word.per_pair(), strict=True)}
    client = client_for(lead)
    page = client.get(urls(project)["disagreements"])
    assert page.status_code == 200
    rows = page.context["found"].rows
    assert [r.pair_id for r in rows] == sorted(
        f1, key=lambda pk: (f1[pk] is None, f1[pk] or 0.0, pk)
    )
    assert [r.word_f1 for r in rows] == [f1[r.pair_id] for r in rows]
    html = page.content.decode()
    for p in doubly:
        assert f'href="/projects/{project.pk}/adjudicate/{p.pair.pk}/"' in html

    news = client.get(urls(project)["disagreements"] + "?subcorpus=news")
    assert {r.subcorpus for r in news.context["found"].rows} == {"news"}
    assert len(news.context["found"].rows) == sum(p.subcorpus == "news" for p in doubly)
    pair_rows = client.get(urls(project)["disagreements"] + "?annotators=amy%2Bbob")
    assert len(pair_rows.context["found"].rows) == len(doubly)
    nobody = client.get(urls(project)["disagreements"] + "?annotators=amy%2Bzed")
    assert nobody.context["found"].rows == [] and "matches the filter" in nobody.content.decode()


def test_the_project_page_links_every_lead_page_for_leads_only(
    client_for, lead, annotator, project
):
    p = project.pk
    pages = [f"/projects/{p}/{name}/" for name in ("members", "assign", "progress", "agreement",
                                                     "disagreements", "adjudicate")]  # fmt: skip
    as_lead = client_for(lead).get(f"/projects/{p}/").content.decode()
    as_annotator = client_for(annotator).get(f"/projects/{p}/").content.decode()
    for url in pages:
        assert f'href="{url}"' in as_lead, url
        assert f'href="{url}"' not in as_annotator, url


@pytest.mark.parametrize("which", ["dashboard", "csv", "disagreements"])
def test_annotators_and_outsiders_are_denied_every_page(
    client, client_for, annotator, outsider, project, planned, report, which
):
    url = urls(project)[which]
    denied = client_for(annotator).get(url)
    assert denied.status_code == 403 and b"news" not in denied.content
    client.logout()
    assert client_for(outsider).get(url).status_code == 404
    client.logout()
    anonymous = client.get(url)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_annotators_outsiders_and_anonymous_cannot_start_a_report(
    client, client_for, annotator, outsider, project
):
    url = urls(project)["compute"]
    assert client_for(annotator).post(url).status_code == 403
    client.logout()
    assert client_for(outsider).post(url).status_code == 404
    client.logout()
    anonymous = client.post(url)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    assert not Job.objects.exists() and not AgreementReport.objects.exists()


def test_the_pages_only_answer_get(client_for, lead, project):
    assert client_for(lead).post(urls(project)["dashboard"]).status_code == 405
    assert client_for(lead).get(urls(project)["compute"]).status_code == 405
