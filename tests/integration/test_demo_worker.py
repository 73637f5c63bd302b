"""``make run``'s demo seeding through a real Celery worker (issue 34): ``setup_demo
--seed-in-worker`` queues the seed job and returns; the worker, started after it as ``rundev``
starts it, seeds the demo with the built-in English model and points every assignment at its
pair's seed."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from alignment_core.aligner.link_config import FEW_GOLD_WEIGHTS
from annotator.management.commands.setup_demo import DEMO_PROJECT
from annotator.models import AlignerRun, Assignment, Job, Project, SeedAlignment
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_the_queued_demo_seed_job_runs_in_the_worker_and_the_demo_gets_its_seeds(
    start_worker, capsys
):
    call_command("setup_demo", force=True, seed_in_worker=True)  # sent once it commits
    project = Project.objects.get(name=DEMO_PROJECT)
    job = Job.objects.get(project=project, kind="seed")
    assert not SeedAlignment.objects.filter(pair__project=project).exists()

    worker = start_worker(pool="prefork")  # after setup_demo, as in rundev
    watch(job, timeout=600)

    assert job.status == "succeeded", f"{job.error}\n{worker.log}"
    run = AlignerRun.objects.get(job=job)
    seeds = dict(SeedAlignment.objects.filter(aligner_run=run).values_list("pair_id", "id"))
    assert set(seeds) == set(project.pairs.values_list("id", flat=True))
    # English demo with 18 gold pairs: the built-in model pooled with them, its weight chosen
    # by cross-validation from the few-gold weights
    assert job.result["builtin_version"] and job.result["builtin_weight"] in FEW_GOLD_WEIGHTS
    assert job.result["model"] == "supervised" and job.result["builtin_weight_rule"]
    assignments = Assignment.objects.filter(pair__project=project)
    assert assignments.count() == job.result["assignments_reseeded"] > 0
    for pair_id, seed_id in assignments.values_list("pair_id", "seed_id"):
        assert seed_id == seeds[pair_id]
