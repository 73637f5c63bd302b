"""The report job's service: the stored report is build_report of the same alignments, A and
B follow the slots, the fingerprint follows the data, and parameters are checked."""

from __future__ import annotations

import pytest

from alignment_core.agreement import PairAnnotations, build_report, score_word
from alignment_core.alignment import Alignment
from annotator.jobs.registry import job_kind, work_for
from annotator.models import AgreementReport, AlignerRun, Job, SeedAlignment
from annotator.reports import services as report_services
from annotator.reports.selectors import reports as report_selectors
from tests.app.report_data import build_project, change_annotation

SAMPLES = 25


@pytest.fixture
def users(make_user):
    return {name: make_user(name) for name in ("amy", "bob", "cid")}


@pytest.fixture
def planned(project, users):
    return build_project(project, users)


def expected_report(planned, *, trial: bool = False, **kwargs) -> dict:
    """build_report of the planned alignments, built without the app."""
    records = [
        PairAnnotations(
            str(p.pair.pk), p.subcorpus, p.source, p.target, p.seed, dict(p.annotations)
        )
        for p in planned
        if trial or not p.pair.is_trial
    ]
    return build_report(records, pairwise_kappa_c=False, **kwargs)


def test_the_stored_report_is_build_report_of_the_same_alignments(project, planned, lead):
    report = report_services.compute_report(
        project=project, params={"samples": SAMPLES, "rng_seed": 7}, user=lead
    )
    stored = dict(report.result)
    inputs = stored.pop("inputs")
    assert stored == expected_report(planned, samples=SAMPLES, rng_seed=7)
    non_trial = [p for p in planned if not p.pair.is_trial]
    assert inputs["pairs"] == len(non_trial)
    assert inputs["doubly_annotated"] == sum(len(p.annotations) == 2 for p in non_trial)
    assert report.params == {
        "samples": SAMPLES,
        "rng_seed": 7,
        "bin_width": 5,
        "include_trial": False,
    }
    assert report.created_by == lead and len(report.fingerprint) == 64


def test_trial_pairs_only_when_asked(project, planned):
    report = report_services.compute_report(
        project=project, params={"samples": SAMPLES, "include_trial": True}
    )
    stored = dict(report.result)
    stored.pop("inputs")
    assert stored == expected_report(planned, trial=True, samples=SAMPLES, rng_seed=0)
    assert report.result["inputs"]["pairs"] == len(planned)


def test_a_and_b_follow_the_slots_not_the_ids(project, planned):
    keys = report_selectors.input_keys(project=project)
    records = {r.pair_id: r for r in report_selectors.pair_annotations(keys=keys)}
    reversed_ids = 0
    for p in planned:
        if p.pair.is_trial:
            continue
        record = records[str(p.pair.pk)]
        assert list(record.annotations) == [name for name, _ in p.annotations]
        rows = keys.rows[p.pair.pk]
        reversed_ids += len(rows) == 2 and rows[0].assignment_id > rows[1].assignment_id
    assert reversed_ids > 0  # the data really had slot 1 created after slot 2
    # and the table's precision is A's: score A against B
    doubly = [p for p in planned if len(p.annotations) == 2 and not p.pair.is_trial]
    word = score_word(
        (p.source, p.target, p.annotations[0][1], p.annotations[1][1]) for p in doubly
    )
    report = report_services.compute_report(project=project, params={"samples": 2})
    all_row = report.result["agreement"]["word"][-1]
    assert all_row["precision_sure"] == word.precision_sure
    assert all_row["recall_sure"] == word.recall_sure


def test_the_seed_is_the_assignments_else_the_pairs_latest(project, planned):
    newer_run = AlignerRun.objects.create(project=project)
    newer = {}
    for p in planned[:2]:
        n, m = len(p.source), len(p.target)
        newer[p.pair.pk] = SeedAlignment.objects.create(
            pair=p.pair, aligner_run=newer_run, links=[[n - 1, m - 1, "S"]]
        )
    keys = report_selectors.input_keys(project=project)
    # pair 0 (even): no seed on its assignments → the newest seed; pair 1 (odd): its own
    assert keys.seeds[planned[0].pair.pk] == newer[planned[0].pair.pk].pk
    assert keys.seeds[planned[1].pair.pk] != newer[planned[1].pair.pk].pk
    records = {r.pair_id: r for r in report_selectors.pair_annotations(keys=keys)}
    assert records[str(planned[1].pair.pk)].seed == planned[1].seed


def test_fingerprint_follows_the_data_and_the_report_goes_stale(project, planned):
    report = report_services.compute_report(project=project, params={"samples": 2})
    assert report_selectors.report_freshness(report=report).stale is False
    again = report_services.compute_report(project=project, params={"samples": 2})
    assert again.fingerprint == report.fingerprint
    other = report_services.compute_report(project=project, params={"samples": 3})
    assert other.fingerprint != report.fingerprint

    doubly = next(p for p in planned if len(p.annotations) == 2)
    assignment = doubly.pair.assignments.order_by("slot").first()
    change_annotation(assignment, Alignment.from_sets([(0, 0)]))
    freshness = report_selectors.report_freshness(report=report)
    assert freshness.stale
    assert any("saved since" in reason for reason in freshness.reasons)
    newer = report_services.compute_report(project=project, params={"samples": 2})
    assert newer.fingerprint != report.fingerprint
    assert newer.latest_revision_at > report.latest_revision_at
    assert report_selectors.latest_report(project=project) == newer


def test_a_withdrawn_or_reopened_annotation_leaves_the_report(project, planned):
    report = report_services.compute_report(project=project, params={"samples": 2})
    assignment = planned[0].pair.assignments.first()
    assignment.status = "in_progress"
    assignment.save()
    freshness = report_selectors.report_freshness(report=report)
    assert freshness.stale
    assert any("submitted annotations now" in reason for reason in freshness.reasons)
    smaller = report_services.compute_report(project=project, params={"samples": 2})
    assert smaller.result["inputs"]["annotations"] == report.result["inputs"]["annotations"] - 1


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"samples": 0}, "samples"),
        ({"samples": "many"}, "samples"),
        ({"rng_seed": -1}, "rng_seed"),
        ({"bin_width": 1000}, "bin_width"),
        ({"include_trial": "perhaps"}, "include_trial"),
        ({"J": 5}, "J"),
    ],
)
def test_bad_parameters_are_named_and_nothing_is_queued(project, lead, params, named):
    with pytest.raises(ValueError, match=named):
        report_services.start_report_job(project=project, user=lead, params=params)
    assert not Job.objects.exists() and not AgreementReport.objects.exists()


def test_the_report_kind_is_registered():
    assert work_for("report") is report_services.report_work
    assert job_kind("report").name == "report"


def test_the_job_runs_the_service_and_its_result_holds_no_figures(
    project, planned, lead, django_capture_on_commit_callbacks
):
    from annotator.jobs.runner import run_job

    with django_capture_on_commit_callbacks(execute=False):
        job = report_services.start_report_job(
            project=project, user=lead, params={"samples": "4", "include_trial": "false"}
        )
    run_job(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    report = AgreementReport.objects.get(job=job)
    assert job.result == {"report": report.pk, "pairs": report.result["inputs"]["pairs"]}
    assert report.params["samples"] == 4 and report.created_by == lead
