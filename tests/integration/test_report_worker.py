""" "Compute agreement" through a real Celery worker on Redis and PostgreSQL: the worker runs
the report job, its progress goes up on the Job, and the stored report is ``build_report`` of
the same alignments — what the dashboard then shows."""

from __future__ import annotations

import pytest

from alignment_core.agreement import PairAnnotations, build_report
from alignment_core.alignment import Alignment
from annotator.models import AgreementReport, Membership, Project
from annotator.reports.selectors.reports import report_freshness
from annotator.reports.services import start_report_job
from tests.app.report_data import build_project, change_annotation
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SAMPLES = 50


def test_a_worker_computes_the_report_and_stores_build_reports_figures(
    start_worker, django_user_model
):
    project = Project.objects.create(name="agreement through a worker")
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    Membership.objects.create(project=project, user=lead, role="lead")
    users = {
        name: django_user_model.objects.create_user(name, password="x" * 12)
        for name in ("amy", "bob")
    }
    planned = build_project(project, users, pairs=12)

    worker = start_worker(pool="prefork")
    job = start_report_job(project=project, user=lead, params={"samples": str(SAMPLES)})
    seen = watch(job, timeout=120)

    assert job.status == "succeeded", f"{job.error}\n{worker.log}"
    assert job.progress == 100
    assert [p for _, p in seen] == sorted(p for _, p in seen)  # progress only grows
    report = AgreementReport.objects.get(job=job)
    assert job.result == {"report": report.pk, "pairs": report.result["inputs"]["pairs"]}
    assert report.created_by == lead and report.params["samples"] == SAMPLES

    expected = build_report(
        [
            PairAnnotations(
                str(p.pair.pk), p.subcorpus, p.source, p.target, p.seed, dict(p.annotations)
            )
            for p in planned
            if not p.pair.is_trial
        ],
        samples=SAMPLES,
        rng_seed=0,
        pairwise_kappa_c=False,
    )
    stored = dict(report.result)
    assert stored.pop("inputs")["doubly_annotated"] == sum(
        len(p.annotations) == 2 for p in planned if not p.pair.is_trial
    )
    assert stored == expected
    assert not report_freshness(report=report).stale

    # A resubmitted annotation makes the stored report stale until the worker computes again.
    submitted = planned[0].pair.assignments.order_by("slot").first()
    change_annotation(submitted, Alignment.from_sets({(0, 0)}, set()))
    assert report_freshness(report=report).stale
    again = start_report_job(project=project, user=lead, params={"samples": str(SAMPLES)})
    watch(again, timeout=120)
    assert again.status == "succeeded", f"{again.error}\n{worker.log}"
    assert not report_freshness(report=AgreementReport.objects.get(job=again)).stale
