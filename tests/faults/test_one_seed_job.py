"""Five quick clicks on "Seed" (or "Retrain with gold") start one job, not five: while a
project's seed job is queued or running, a new request gets that job back."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from annotator.jobs.runner import fail_stale_jobs
from annotator.jobs.services import start_job
from annotator.models import Job, Project
from annotator.seeding.services import start_seed_job
from tests.conftest import need


def seed(client, project, *, use_gold: bool):
    return client.post(
        f"/projects/{project.pk}/jobs/seed/",
        {"use_gold": "true" if use_gold else "false"},
        HTTP_ACCEPT="application/json",
    )


@pytest.mark.django_db
def test_five_quick_posts_start_one_seed_job(client_for, lead, project):
    client = client_for(lead)
    answers = [seed(client, project, use_gold=i % 2 == 1) for i in range(5)]
    assert [a.status_code for a in answers] == [202] * 5
    ids = {a.json()["id"] for a in answers}
    assert len(ids) == 1
    assert list(Job.objects.filter(project=project).values_list("pk", flat=True)) == list(ids)


@pytest.mark.django_db
def test_a_running_seed_job_is_returned_and_a_finished_one_is_not(client_for, lead, project):
    client = client_for(lead)
    first = seed(client, project, use_gold=False).json()["id"]
    Job.objects.filter(pk=first).update(status=Job.Status.RUNNING)
    assert seed(client, project, use_gold=True).json()["id"] == first
    Job.objects.filter(pk=first).update(status=Job.Status.FAILED)
    second = seed(client, project, use_gold=True).json()["id"]
    assert second != first
    assert Job.objects.filter(project=project, kind="seed").count() == 2


@pytest.mark.django_db
def test_other_projects_and_other_kinds_are_not_held_back(lead, project):
    other = Project.objects.create(name="Another project")
    mine = start_seed_job(project=project, user=lead, use_gold=False)
    theirs = start_seed_job(project=other, user=lead, use_gold=False)
    assert mine.pk != theirs.pk
    selftests = {start_job(kind="selftest", project=project, user=lead).pk for _ in range(2)}
    assert len(selftests) == 2


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_concurrent_seed_requests_on_postgresql_make_one_job(lead, project):
    """Five requests at the same instant, each in its own connection and transaction: the
    project row lock makes them take turns, so exactly one job is created."""
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    barrier = threading.Barrier(5)
    ids: list[int] = []
    errors: list[BaseException] = []
    sent: list[int] = []

    class Task:  # records the dispatch instead of queueing a real seeding run
        def apply_async(self, *, args, task_id):
            sent.extend(args)

    def click() -> None:
        try:
            barrier.wait(timeout=10)
            job = start_job(kind="seed", project=project, user=lead, params={}, task=Task())
            ids.append(job.pk)
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=click) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors
    assert len(ids) == 5 and len(set(ids)) == 1
    assert sent == ids[:1]  # dispatched once, after its transaction committed
    assert Job.objects.filter(project=project, kind="seed").count() == 1


@pytest.mark.django_db
def test_a_seed_job_whose_message_was_lost_does_not_block_the_project_for_good(
    settings, client_for, lead, project
):
    """A queued job no worker ever took (Redis restarted without persistence) would be handed
    back to every click: the sweep fails it after JOB_QUEUED_MAX, and Seed works again."""
    settings.JOB_QUEUED_MAX = 3600
    client = client_for(lead)
    lost = seed(client, project, use_gold=False).json()["id"]
    fresh = Job.objects.create(kind="seed", project=Project.objects.create(name="Other"))
    Job.objects.filter(pk=lost).update(created_at=timezone.now() - timedelta(hours=2))
    assert fail_stale_jobs() == 1
    job = Job.objects.get(pk=lost)
    assert job.status == "failed" and "JOB_QUEUED_MAX" in job.error
    assert Job.objects.get(pk=fresh.pk).status == "queued"  # waiting for an hour is fine
    assert seed(client, project, use_gold=False).json()["id"] != lost
