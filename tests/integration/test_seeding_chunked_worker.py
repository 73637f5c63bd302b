"""A big project seeded over real Celery workers (Redis, PostgreSQL): the chain of chords of
``annotator.seeding.chunked`` on one worker, then on two, writes the same seeds, bit for bit,
as seeding in one task in this process — the M-step sums the chunks' counts in chunk order,
whichever worker made them and whenever they arrived; an English project's seeds, from the
built-in English model in each worker (with gold: the supervised model pooled with it), are
the one task's too."""

from __future__ import annotations

import pytest

from annotator.models import AlignerRun, Membership, Project
from annotator.seeding.services import seed_project, start_seed_job
from tests.app.test_seeding_chunked import made_up_pairs, seeds_by_pair
from tests.integration.conftest import wait_for
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PAIRS = 900
CHUNK = 200  # five chunks, the last one short


def chunk_settings(tmp_path) -> dict[str, str]:
    """The workers' chunk size and shared work folder (one path for all: as on one machine)."""
    return {"SEED_CHUNK_PAIRS": str(CHUNK), "SEED_WORK_DIR": str(tmp_path / "seed-work")}


def parts_done(worker, name: str) -> int:
    """How many ``seed_<name>`` tasks the worker finished."""
    mark = f"annotator.tasks.seed_{name}["
    return sum(1 for line in worker.lines if mark in line and " succeeded in " in line)


def test_one_and_two_workers_write_the_seeds_one_task_writes(
    start_worker, django_user_model, tmp_path
):
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    project = Project.objects.create(name="big", source_language="xx", target_language="yy")
    Membership.objects.create(project=project, user=lead, role="lead")
    made_up_pairs(project, PAIRS)
    whole = seeds_by_pair(
        seed_project(project=project, use_gold=False, config={"chunk_pairs": CHUNK})["aligner_run"]
    )

    first = start_worker(name="-a", **chunk_settings(tmp_path))
    alone = start_seed_job(project=project, user=lead, use_gold=False)
    seen = watch(alone, timeout=300)
    assert alone.status == "succeeded", f"{alone.error}\n{first.log}"
    assert len({p for status, p in seen if status == "running"}) > 3, seen  # a live bar
    assert alone.result["align_chunks"] == 5
    assert seeds_by_pair(alone.result["aligner_run"]) == whole

    second = start_worker(name="-b", **chunk_settings(tmp_path))
    before = parts_done(first, "estep")
    shared = start_seed_job(project=project, user=lead, use_gold=False)
    watch(shared, timeout=300)
    assert shared.status == "succeeded", f"{shared.error}\n{first.log}\n{second.log}"
    assert seeds_by_pair(shared.result["aligner_run"]) == whole
    # both workers did E-step chunks of the second job
    assert parts_done(first, "estep") > before and parts_done(second, "estep") > 0, second.log
    assert AlignerRun.objects.filter(project=project, published=True).count() == 3
    # the work folder goes just after the publish commits
    folder = tmp_path / "seed-work" / f"job-{shared.pk}"
    wait_for(lambda: not folder.exists(), timeout=10, what=f"{folder} to be removed")


@pytest.mark.parametrize(("gold_pairs", "model"), [(0, "builtin"), (3, "supervised")])
def test_two_workers_seed_an_english_project_with_the_model_one_task_trains(
    start_worker, django_user_model, tmp_path, gold_pairs, model
):
    """An English project in chunks: each worker's align chunks load the built-in model and
    its resources, and, with gold, the supervised model the fit task wrote to the shared
    folder; the seeds are those of the one task (the same model over the HMM of the same
    chunking)."""
    from alignment_core.aligner.builtin import load_builtin
    from alignment_core.aligner.installed import installed_resources
    from alignment_core.aligner.link_training import builtin_problem
    from annotator.models import GoldAlignment
    from tests.app.test_seeding_chunked import english_pairs
    from tests.conftest import need

    need(builtin_problem(load_builtin(), installed_resources()) is None,
         "the seeding resources (make resources)")  # fmt: skip
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    project = Project.objects.create(name="english", source_language="en", target_language="en")
    Membership.objects.create(project=project, user=lead, role="lead")
    for pair in english_pairs(project, 150)[:gold_pairs]:
        links = [[i, i, "S"] for i in range(len(pair.source_tokens))]
        GoldAlignment.objects.create(pair=pair, origin="imported", links=links)
    one_task = seed_project(project=project, use_gold=True, config={"chunk_pairs": 50})
    assert one_task["model"] == model

    settings = {"SEED_CHUNK_PAIRS": "50", "SEED_WORK_DIR": str(tmp_path / "seed-work")}
    workers = [start_worker(name=f"-{k}", **settings) for k in "ab"]
    job = start_seed_job(project=project, user=lead, use_gold=True)
    watch(job, timeout=300)
    logs = "\n".join(w.log for w in workers)
    assert job.status == "succeeded", f"{job.error}\n{logs}"
    assert job.result["model"] == model and job.result["align_chunks"] == 3
    assert job.result["gold_pairs"] == gold_pairs
    assert seeds_by_pair(job.result["aligner_run"]) == seeds_by_pair(one_task["aligner_run"])
