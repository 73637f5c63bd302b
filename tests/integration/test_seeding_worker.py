""" "Seed with aligner" through a real Celery worker on Redis and PostgreSQL: the worker trains,
writes seeds, leaves a started annotation alone and reports progress on the Job."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotator.models import (
    AlignerRun,
    Annotation,
    Assignment,
    Membership,
    Project,
    SeedAlignment,
    SentencePair,
)
from annotator.seeding.services import start_seed_job
from tests.integration.test_worker import watch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SENTENCES = [
    ("the cat sat on the mat", "the cat was sitting on the mat"),
    ("a dog ran in the park", "a dog was running in the park"),
    ("the man bought a new car", "the man purchased a new car"),
    ("prices rose sharply last year", "prices increased sharply last year"),
]


def test_a_worker_seeds_the_project_and_leaves_started_work_alone(start_worker, django_user_model):
    project = Project.objects.create(name="seeding through a worker")
    lead = django_user_model.objects.create_user("lead", password="x" * 12)
    annotator = django_user_model.objects.create_user("ann", password="x" * 12)
    Membership.objects.create(project=project, user=lead, role="lead")
    pairs = [
        SentencePair.objects.create(
            project=project,
            external_id=str(n),
            position=n,
            source_tokens=s.split(),
            target_tokens=t.split(),
        )
        for n, (s, t) in enumerate(SENTENCES)
    ]
    started = Assignment.objects.create(
        pair=pairs[0], annotator=annotator, status="in_progress", started_at=timezone.now()
    )
    Annotation.objects.create(assignment=started, links=[[0, 0, "P"]], version=2)
    waiting = Assignment.objects.create(pair=pairs[1], annotator=annotator)

    worker = start_worker(pool="prefork")
    job = start_seed_job(project=project, user=lead, use_gold=False)
    seen = watch(job, timeout=120)

    assert job.status == "succeeded", f"{job.error}\n{worker.log}"
    assert any(status == "running" and 0 < p < 100 for status, p in seen), seen
    run = AlignerRun.objects.get(job=job)
    assert SeedAlignment.objects.filter(aligner_run=run).count() == len(pairs)
    assert job.result["aligner_run"] == run.pk and job.result["links"] > 0
    started.refresh_from_db(), waiting.refresh_from_db()
    assert started.seed_id is None and started.annotation.links == [[0, 0, "P"]]
    assert waiting.seed.aligner_run_id == run.pk
