"""Automatic retraining through a real Celery worker on Redis and PostgreSQL (issue 11): gold
written through the gold service starts a seed job once ``auto_retrain_every`` pairs are new
gold; the worker trains the supervised model on them, reports it, reseeds only the
assignments nobody started, and stores each seed's uncertainty."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotator.gold.services.gold import set_gold_many
from annotator.models import (
    AlignerRun,
    Annotation,
    Assignment,
    Job,
    Project,
    SeedAlignment,
    SentencePair,
)
from annotator.seeding.services import seed_project
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ANIMALS = ["cat", "dog", "bird", "horse", "goat", "mouse"]
PLACES = [("mat", "rug"), ("log", "trunk"), ("sofa", "couch"), ("hill", "slope")]


def sentences():
    for n, animal in enumerate(ANIMALS):
        for place, other in PLACES:
            yield (
                f"the {animal} sat on the {place} .",
                f"the {animal} was sitting on the {other if n % 2 else place} .",
            )


def identity_links(src: list[str], tgt: list[str]) -> list[list]:
    links = [[i, j, "S"] for i, w in enumerate(src) for j, v in enumerate(tgt) if w == v]
    return [link for link in links if abs(link[0] - link[1]) <= 2]


def test_new_gold_retrains_the_seeds_automatically_in_a_worker(start_worker, django_user_model):
    project = Project.objects.create(name="auto retrain", auto_retrain_every=20)
    annotator = django_user_model.objects.create_user("ann", password="x" * 12)
    pairs = [
        SentencePair.objects.create(
            project=project,
            external_id=str(n),
            position=n,
            source_tokens=s.split(),
            target_tokens=t.split(),
        )
        for n, (s, t) in enumerate(sentences())
    ]
    first = seed_project(project=project, use_gold=False)
    assert first["model"] == "builtin"  # an English project without gold (issue 34)
    started = Assignment.objects.create(
        pair=pairs[-1],
        annotator=annotator,
        status="in_progress",
        started_at=timezone.now(),
        seed=SeedAlignment.objects.get(pair=pairs[-1]),
    )
    Annotation.objects.create(assignment=started, links=[[0, 0, "S"]], version=2)
    waiting = Assignment.objects.create(
        pair=pairs[-2], annotator=annotator, seed=SeedAlignment.objects.get(pair=pairs[-2])
    )

    worker = start_worker(pool="prefork")
    # the worker read the model's resources before its pool forked (SEED_MODEL_PRELOAD)
    assert "seed model preloaded in" in worker.log, worker.log
    gold = {p.pk: identity_links(p.source_tokens, p.target_tokens) for p in pairs[:19]}
    set_gold_many(links_by_pair=gold, origin="imported")
    assert not Job.objects.filter(project=project).exists()  # 19 new gold pairs < 20

    last = pairs[19]
    set_gold_many(
        links_by_pair={last.pk: identity_links(last.source_tokens, last.target_tokens)},
        origin="imported",
    )
    job = Job.objects.get(project=project, kind="seed")
    watch(job, timeout=240)

    assert job.status == "succeeded", f"{job.error}\n{worker.log}"
    assert job.result["model"] == "supervised" and job.result["gold_pairs"] == 20
    assert job.result["builtin_version"] == "en-paraphrase-1"  # pooled with its gold
    assert job.result["cv"]["edits_per_pair"] is not None
    run = AlignerRun.objects.get(job=job)
    assert run.gold_pairs == 20 and run.config["model_kind"] == "supervised"
    assert not SeedAlignment.objects.filter(aligner_run=run, uncertainty__isnull=True).exists()
    started.refresh_from_db(), waiting.refresh_from_db()
    assert waiting.seed.aligner_run_id == run.pk  # reseeded
    assert started.seed.aligner_run_id == first["aligner_run"]  # its annotator's work kept
    assert Job.objects.filter(project=project).count() == 1  # one job, no more
