"""Audit finding 8 (issue 30): a job's state is never wrong about its work. An import's success
is written in the same transaction as the import, so a worker that dies right after the work
(before, the import committed and the job then read "failed: worker lost" with every pair
imported) leaves either both (pairs and "succeeded") or neither (no pairs, "failed").

The death is a ``SystemExit`` raised the instant the import returns, in the worker's own code
path (``run_job``), with real commits (a transactional test): what a SIGKILL there would leave
is what the stale sweep then finds, here checked by the same sweep."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from annotator.corpora.services import uploads
from annotator.corpora.services.uploads import start_import_job, store_upload
from annotator.jobs.runner import fail_stale_jobs, run_job
from annotator.models import Job, Project, SentencePair

pytestmark = pytest.mark.django_db(transaction=True, databases="__all__")  # "jobs" on PostgreSQL

PAIRS = "".join(f"p{k}\tthe cat {k}\ta cat {k}\n" for k in range(50))


def start_import(project, user) -> Job:
    folder, names = store_upload(files={"file": ("pairs.tsv", [PAIRS.encode()])})
    return start_import_job(project=project, user=user, folder=folder, names=names, options={})


def dies_after_the_work(job, reporter):
    result = uploads.import_work(job, reporter)
    raise SystemExit("worker killed right after the import returned")  # result never recorded
    return result  # noqa: B018 - unreachable: the death under test


def test_a_worker_dying_after_the_import_leaves_a_true_state(django_user_model):
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    project = Project.objects.create(name="killed after import")
    job = start_import(project, lead)
    with pytest.raises(SystemExit):
        run_job(job.pk, dies_after_the_work)
    job.refresh_from_db()
    later = timezone.now() + timedelta(seconds=settings.JOB_STALE_AFTER + 1)
    fail_stale_jobs(now=later)  # as a worker start or beat would, had it been a SIGKILL
    job.refresh_from_db()
    imported = SentencePair.objects.filter(project=project).count()
    assert (job.status, imported) in {("succeeded", 50), ("failed", 0)}, (job.status, imported)
    assert (job.status, imported) == ("failed", 0)  # nothing was committed

    again = start_import(project, lead)  # and the import can simply be run again
    run_job(again.pk)
    again.refresh_from_db()
    assert again.status == "succeeded", again.error
    assert again.result["pairs_read"] == 50
    assert SentencePair.objects.filter(project=project).count() == 50


def test_an_import_failed_meanwhile_undoes_its_work(django_user_model):
    """The sweep (or the worker-lost handler) failed the job while it ran, for another reason
    than a stale heartbeat: the work is rolled back rather than left beside a failed job."""
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    project = Project.objects.create(name="failed meanwhile")
    job = start_import(project, lead)

    def failed_by_someone_else(job, reporter):
        result = uploads.import_work(job, reporter)
        Job.objects.filter(pk=job.pk).update(
            status=Job.Status.FAILED, message="Failed: worker lost", error="WorkerLostError"
        )
        return result

    run_job(job.pk, failed_by_someone_else)
    job.refresh_from_db()
    assert job.status == "failed"
    assert not SentencePair.objects.filter(project=project).exists()


# -- seed and report jobs: success in the transaction of their short write -------------------


def killed_after(work):
    """``work``, then the worker dies before ``run_job`` sees the result."""

    def dies(job, reporter):
        work(job, reporter)
        raise SystemExit("worker killed right after the work returned")

    return dies


def sweep_later() -> None:
    later = timezone.now() + timedelta(seconds=settings.JOB_STALE_AFTER + 1)
    fail_stale_jobs(now=later)  # as a worker start or beat would, had it been a SIGKILL


def test_a_seed_job_killed_after_its_commit_ends_succeeded(project, lead):
    from annotator.models import AlignerRun, SeedAlignment
    from annotator.seeding.services import seed_work, start_seed_job
    from tests.app.conftest import SENTENCES

    for n, (src, tgt) in enumerate(SENTENCES):
        SentencePair.objects.create(project=project, external_id=f"p{n}", position=n,
                                    source_tokens=src.split(), target_tokens=tgt.split())  # fmt: skip
    job = start_seed_job(project=project, user=lead, use_gold=False)
    with pytest.raises(SystemExit):
        run_job(job.pk, killed_after(seed_work))
    sweep_later()
    job.refresh_from_db()
    run = AlignerRun.objects.get(project=project, job=job)
    assert job.status == "succeeded", (job.status, job.message, job.error)
    assert job.result["aligner_run"] == run.pk
    assert job.message.startswith(f"Wrote {len(SENTENCES)} seeds")
    assert SeedAlignment.objects.filter(aligner_run=run).count() == len(SENTENCES)


def test_a_report_job_killed_after_its_commit_ends_succeeded(project, lead, make_user):
    from annotator.models import AgreementReport
    from annotator.reports.services import report_work, start_report_job
    from tests.app.report_data import build_project

    build_project(project, {name: make_user(name) for name in ("amy", "bob")}, pairs=6)
    job = start_report_job(project=project, user=lead, params={"samples": 2})
    with pytest.raises(SystemExit):
        run_job(job.pk, killed_after(report_work))
    sweep_later()
    job.refresh_from_db()
    report = AgreementReport.objects.get(job=job)
    assert job.status == "succeeded", (job.status, job.message, job.error)
    assert job.result == {"report": report.pk, "pairs": report.result["inputs"]["pairs"]}
    assert "doubly annotated pairs stored" in job.message


def test_a_report_job_failed_meanwhile_stores_no_report(project, lead, make_user):
    """Failed by someone else while it ran: its success cannot be recorded, so the report is
    rolled back with it and the job stays failed."""
    from annotator.models import AgreementReport
    from annotator.reports.services import report_work, start_report_job
    from tests.app.report_data import build_project

    build_project(project, {name: make_user(name) for name in ("amy", "bob")}, pairs=6)
    job = start_report_job(project=project, user=lead, params={"samples": 2})

    def failed_by_someone_else(job, reporter):
        Job.objects.filter(pk=job.pk).update(
            status=Job.Status.FAILED, message="Failed: worker lost", error="WorkerLostError"
        )
        return report_work(job, reporter)

    run_job(job.pk, failed_by_someone_else)
    job.refresh_from_db()
    assert job.status == "failed" and job.message == "Failed: worker lost"
    assert not AgreementReport.objects.filter(project=project).exists()
