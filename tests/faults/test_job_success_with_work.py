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
