"""A worker's pool process killed with SIGKILL in the middle of a chunked seeding's E-step
(``annotator.seeding.chunked``): its chunk is redelivered (acknowledged late, rejected back to
the queue when its worker is lost) and done again, and the job succeeds with the seeds
seeding in one task writes; or, when a chunk's worker dies more often than
SEED_TASK_MAX_ATTEMPTS allows, the job fails with the reason and leaves no run, no seed and
no work folder.

Real PostgreSQL, Redis and worker processes (tests/integration/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.models import AlignerRun, Membership, Project, SeedAlignment
from annotator.seeding.services import seed_project, start_seed_job
from tests.app.test_seeding_chunked import made_up_pairs, seeds_by_pair
from tests.faults.test_worker_kill import kill_pool_process, pool_children
from tests.integration.conftest import (  # noqa: F401 - the worker fixtures, found by name
    postgres_and_redis,
    start_worker,
    wait_for,
    worker_queue,
)
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PAIRS = 8000
CHUNK = 4000  # E-steps long enough for the kill to land inside one


def e_step_running(folder: Path) -> str | None:
    """The E-step unit a worker has started and not finished (its start is counted in
    ``attempts/``, its end marked in ``done/``), if any."""
    attempts, done = folder / "attempts", folder / "done"
    if not attempts.exists():
        return None
    for unit in attempts.iterdir():
        if unit.name.startswith("estep-") and not (done / unit.name).exists():
            return unit.name
    return None


def big_project(django_user_model) -> tuple[Project, object]:
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    project = Project.objects.create(name="killed", source_language="xx", target_language="yy")
    Membership.objects.create(project=project, user=lead, role="lead")
    made_up_pairs(project, PAIRS)
    return project, lead


def kill_during_an_e_step(worker, work_dir: Path, job, tries: int = 5) -> str:
    """Kill the worker's pool processes while an E-step unit runs, and return the unit. A unit
    that ended between being seen running and the kill (its end marked: the kill found the
    pool idle or on the next unit's start) does not count: the next running one is killed."""
    folder = work_dir / f"job-{job.pk}"
    for _ in range(tries):
        unit = wait_for(lambda: e_step_running(folder), timeout=300, interval=0.005,
                        what=f"an E-step to start:\n{worker.log}")  # fmt: skip
        kill_pool_process(worker)
        if not (folder / "done" / str(unit)).exists():
            return str(unit)
        wait_for(lambda: pool_children(worker.process.pid), timeout=60, interval=0.05,
                 what=f"the pool to be started again:\n{worker.log}")  # fmt: skip
    pytest.fail(f"every E-step ended before the kill landed ({tries} tries): make them longer")


def test_a_chunk_whose_worker_is_killed_runs_again_and_the_job_succeeds(
    request, django_user_model, tmp_path
):
    start = request.getfixturevalue("start_worker")
    project, lead = big_project(django_user_model)
    work_dir = tmp_path / "seed-work"
    worker = start(pool="prefork", SEED_CHUNK_PAIRS=str(CHUNK), SEED_WORK_DIR=str(work_dir))
    job = start_seed_job(project=project, user=lead, use_gold=False)

    killed = kill_during_an_e_step(worker, work_dir, job)

    watch(job, timeout=600)
    assert job.status == "succeeded", f"{job.error}\n{worker.log}"
    # the killed unit ran again (or, should it have finished just before the kill, the one
    # that came after it: the kill lands within milliseconds of seeing an E-step running)
    assert job.result["retried"], (killed, job.result)
    log = "\n".join(worker.lines)
    assert "WorkerLostError" in log or "signal 9" in log, worker.log
    whole = seed_project(project=project, use_gold=False, config={"chunk_pairs": CHUNK})
    assert seeds_by_pair(job.result["aligner_run"]) == seeds_by_pair(whole["aligner_run"])


def test_a_chunk_whose_worker_dies_too_often_fails_the_job_and_leaves_nothing(
    request, django_user_model, tmp_path
):
    start = request.getfixturevalue("start_worker")
    project, lead = big_project(django_user_model)
    work_dir = tmp_path / "seed-work"
    worker = start(pool="prefork", SEED_CHUNK_PAIRS=str(CHUNK), SEED_WORK_DIR=str(work_dir),
                   SEED_TASK_MAX_ATTEMPTS="1")  # fmt: skip
    job = start_seed_job(project=project, user=lead, use_gold=False)

    killed = kill_during_an_e_step(worker, work_dir, job)

    watch(job, timeout=300)
    assert job.status == "failed", worker.log
    assert "was started 2 times: its worker died each time" in job.message, (killed, job.message)
    assert not AlignerRun.objects.filter(job=job).exists()
    assert not SeedAlignment.all_runs.filter(pair__project=project).exists()
    assert not (work_dir / f"job-{job.pk}").exists()
