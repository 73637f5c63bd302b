"""A job's live state is seen while its work writes inside one long transaction (PostgreSQL, a
real worker): progress and heartbeats go through a connection of their own (``jobs`` alias),
so a poll from another connection sees them move before the work commits, the stale-job sweep
leaves such a job alone, and a job the sweep failed all the same is recorded as succeeded when
its work commits.

"Inside the transaction" is told by PostgreSQL's lock table: another session holds a write lock
on the table the work fills (as in tests/faults/test_worker_kill.py).
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from annotator.jobs.runner import fail_stale_jobs
from annotator.models import Job, Membership, Project, SeedAlignment, SentencePair
from annotator.seeding.services import SEED_CHUNK, start_seed_job
from tests.faults.test_worker_kill import IMPORT_PAIRS, corpus, start_import
from tests.integration.conftest import add_random_pairs, wait_for, write_pending
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

STALE_AFTER = 5  # seconds (the least allowed): the worker beats every 1.25 s
LATER = timedelta(days=10)  # later than any heartbeat could be old
SEED_PAIRS = 3 * SEED_CHUNK  # three chunks written (and reported) inside the transaction


def seed_project_of(n: int, lead) -> Project:
    project = Project.objects.create(name="live seeding")
    Membership.objects.create(project=project, user=lead, role="lead")
    add_random_pairs(project, n, seed=5)
    return project


def test_progress_and_heartbeat_move_while_a_seed_job_writes(
    start_worker, django_user_model, settings
):
    settings.JOB_STALE_AFTER = STALE_AFTER  # for the sweep run here
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    project = seed_project_of(SEED_PAIRS, lead)
    worker = start_worker(pool="solo", JOB_STALE_AFTER=str(STALE_AFTER))
    job = start_seed_job(project=project, user=lead, use_gold=False)
    wait_for(
        lambda: write_pending(SeedAlignment),
        timeout=300,
        what=f"the seeding to write\n{worker.log}",
    )

    seen: list[tuple[str, int, str, object]] = []  # read while the seeds were uncommitted
    swept = []
    while write_pending(SeedAlignment):
        state = Job.objects.filter(pk=job.pk).values_list(
            "status", "progress", "message", "heartbeat_at"
        )[0]
        if not write_pending(SeedAlignment):
            break  # committed meanwhile: this state may be after the commit
        if seen and state[3] > seen[0][3] and not swept:
            # the heartbeat was just seen moving: the sweep must find this job alive
            swept.append(fail_stale_jobs())
        seen.append(state)
        time.sleep(0.05)

    assert seen, f"the seeding finished writing before a poll: make it bigger\n{worker.log}"
    assert {status for status, *_ in seen} == {"running"}, seen
    progress = [p for _, p, _, _ in seen]
    assert progress == sorted(progress) and len(set(progress)) >= 2, seen
    assert any("aligned and wrote" in message for _, _, message, _ in seen), seen
    beats = sorted({beat for *_, beat in seen})
    assert len(beats) >= 2, f"heartbeat_at did not move while the job wrote: {beats}"
    assert swept == [0], "the sweep failed a job whose heartbeat is fresh"

    watch(job, timeout=120)
    assert job.status == "succeeded", f"{job.error}\n{worker.log}"
    assert SeedAlignment.objects.filter(pair__project=project).count() == SEED_PAIRS


def test_an_import_the_sweep_failed_mid_write_is_recorded_as_succeeded(
    start_worker, django_user_model
):
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    project = Project.objects.create(name="swept import")
    worker = start_worker(pool="solo")
    job = start_import(project, lead, corpus(IMPORT_PAIRS))
    wait_for(
        lambda: write_pending(SentencePair), timeout=120, what=f"the import to write\n{worker.log}"
    )

    # as if its heartbeat had stopped (a stalled process, an unreachable database)
    later = timezone.now() + LATER
    assert fail_stale_jobs(now=later) == 1
    job.refresh_from_db()
    assert (job.status, job.message) == ("failed", "Failed: worker lost")

    wait_for(lambda: Job.objects.get(pk=job.pk).status == "succeeded", timeout=180,
             what=f"the import to be recorded as succeeded\n{worker.log}")  # fmt: skip
    job.refresh_from_db()
    assert (job.progress, job.error) == (100, ""), job.error
    assert job.result["pairs_created"] == IMPORT_PAIRS, job.result
    assert SentencePair.objects.filter(project=project).count() == IMPORT_PAIRS
