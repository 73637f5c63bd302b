"""A Celery worker killed with SIGKILL in the middle of an import and of a seed job (issue 10):
the job ends failed with a reason, nothing partial is written (no pairs, no gold, no aligner
run, no seeds), and running the same job again succeeds.

Both kills land while the job is writing inside its transaction (progress past the reading /
training stage), so "nothing partial" is tested where it could fail. Two ways a worker dies:

* the pool process running the task is killed (the OOM killer's usual victim): Celery's
  worker-lost signal fails the job at once;
* the whole worker is killed (master and pool, as a machine or container going away): nobody
  is left to say so, and the stale-job sweep (``fail_stale_jobs``, run at worker start and
  periodically) fails it once its heartbeat is older than JOB_STALE_AFTER. The test calls the
  sweep itself with a clock moved past that age rather than waiting.

Real PostgreSQL, Redis and worker processes (tests/integration/conftest.py).
"""

from __future__ import annotations

import json
import os
import random
import signal
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from annotator.corpora.services.uploads import start_import_job, store_upload
from annotator.jobs.runner import fail_stale_jobs
from annotator.models import (
    AlignerRun,
    Assignment,
    GoldAlignment,
    Job,
    Membership,
    Project,
    SeedAlignment,
    SentencePair,
)
from annotator.seeding.services import start_seed_job
from tests.integration.conftest import (  # noqa: F401 - the worker fixtures, found by name
    add_random_pairs,
    postgres_and_redis,
    start_worker,
    wait_for,
    worker_queue,
    write_pending,
)
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

IMPORT_PAIRS = 10_000
SEED_PAIRS = 2_500


def pool_children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def kill_pool_process(worker) -> None:
    children = pool_children(worker.process.pid)
    assert children, f"the prefork worker has no pool process:\n{worker.log}"
    for child in children:
        os.kill(child, signal.SIGKILL)


def kill_whole_worker(worker) -> None:
    os.killpg(worker.process.pid, signal.SIGKILL)
    worker.process.wait(timeout=10)


def writing(job: Job, table: type) -> bool:
    """True while the job's transaction holds uncommitted rows in ``table`` (its progress is
    live too, tests/integration/test_job_bookkeeping.py, but cannot say whether a write is
    pending); a job that finished first fails the test."""
    job.refresh_from_db()
    if job.is_finished:
        pytest.fail(f"the job finished ({job.status}) before it could be killed: make it bigger")
    return write_pending(table)


def corpus(n: int, *, seed: int = 7) -> bytes:
    """``n`` JSONL pairs with gold links (different words, so the aligner has work)."""
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(300)]
    lines = []
    for k in range(n):
        source = rng.choices(vocab, k=rng.randint(4, 12))
        target = [w.upper() for w in source[::-1]]
        sure = [[i, len(source) - 1 - i] for i in range(0, len(source), 2)]
        lines.append(json.dumps({"id": f"p{k}", "source": source, "target": target, "sure": sure}))
    return ("\n".join(lines) + "\n").encode()


def start_import(project: Project, user, data: bytes) -> Job:
    folder, names = store_upload(files={"file": ("corpus.jsonl", [data])})
    return start_import_job(
        project=project, user=user, folder=folder, names=names, options={"load_as": "gold"}
    )


def test_a_pool_process_killed_mid_import_fails_the_job_and_writes_nothing(
    request, django_user_model
):
    start = request.getfixturevalue("start_worker")
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    project = Project.objects.create(name="killed import")
    data = corpus(IMPORT_PAIRS)
    worker = start(pool="prefork")
    job = start_import(project, lead, data)
    # killed while the pairs are being written inside the import's transaction
    wait_for(lambda: writing(job, SentencePair), timeout=120, what="the import to write")
    kill_pool_process(worker)

    watch(job, timeout=30)
    assert job.status == "failed", worker.log
    assert job.message == "Failed: worker lost"
    assert "died" in job.error and ("SIGKILL" in job.error or "signal 9" in job.error), job.error
    assert not SentencePair.objects.filter(project=project).exists(), "pairs half-imported"
    assert not GoldAlignment.objects.filter(pair__project=project).exists()

    again = start_import(project, lead, data)  # the worker replaced its pool process
    watch(again, timeout=180)
    assert again.status == "succeeded", f"{again.error}\n{worker.log}"
    assert SentencePair.objects.filter(project=project).count() == IMPORT_PAIRS
    assert GoldAlignment.objects.filter(pair__project=project).count() == IMPORT_PAIRS


def test_a_whole_worker_killed_mid_seed_fails_the_job_and_writes_nothing(
    request, django_user_model
):
    start = request.getfixturevalue("start_worker")
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    annotator = django_user_model.objects.create_user("ann", password="x" * 12)
    project = Project.objects.create(name="killed seed")
    Membership.objects.create(project=project, user=lead, role="lead")
    add_random_pairs(project, SEED_PAIRS, seed=3)
    waiting = Assignment.objects.create(pair=SentencePair.objects.get(project=project, position=0),
                                        annotator=annotator)  # fmt: skip

    worker = start(pool="solo")
    job = start_seed_job(project=project, user=lead, use_gold=False)
    # killed while the seeds are being written inside the seeding's transaction
    wait_for(lambda: writing(job, SeedAlignment), timeout=300, what="the seeding to write")
    kill_whole_worker(worker)

    job.refresh_from_db()
    assert job.status == "running"  # nobody is left to say otherwise...
    later = timezone.now() + timedelta(seconds=settings.JOB_STALE_AFTER + 1)
    assert fail_stale_jobs(now=later) == 1  # ...until the sweep sees its heartbeat is old
    job.refresh_from_db()
    assert job.status == "failed" and job.message == "Failed: worker lost"
    assert "No heartbeat since" in job.error and "worker running this job stopped" in job.error
    assert not AlignerRun.objects.filter(project=project).exists(), "a half-written run"
    assert not SeedAlignment.objects.filter(pair__project=project).exists(), "half the seeds"
    waiting.refresh_from_db()
    assert waiting.seed_id is None

    worker = start(pool="solo")
    again = start_seed_job(project=project, user=lead, use_gold=False)
    watch(again, timeout=300)
    assert again.status == "succeeded", f"{again.error}\n{worker.log}"
    assert SeedAlignment.objects.filter(pair__project=project).count() == SEED_PAIRS
    waiting.refresh_from_db()
    assert waiting.seed.aligner_run.job_id == again.pk
