"""Seeding a project with the aligner (issue 4 §6): seeds written in bulk under a new run,
started annotations left alone, re-runs safe, progress reported, leads only."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotator.links import parse_links
from annotator.models import (
    AlignerRun,
    Annotation,
    Assignment,
    GoldAlignment,
    Job,
    Membership,
    SeedAlignment,
)
from annotator.seeding.services import seed_project
from annotator.tasks import run_job_task as seed_task
from tests.app.conftest import identity_links

pytestmark = pytest.mark.django_db


def test_seeding_writes_one_valid_seed_per_pair_and_reports_progress(project, corpus):
    seen: list[tuple[float, str]] = []
    result = seed_project(
        project=project, use_gold=False, progress=lambda p, m: seen.append((p, m))
    )

    run = AlignerRun.objects.get(pk=result["aligner_run"])
    assert run.kind == "aligner" and run.gold_pairs == 0
    assert run.config["identity_lexicon"] is True  # the demo-like project is monolingual
    seeds = SeedAlignment.objects.filter(aligner_run=run)
    assert seeds.count() == len(corpus) == result["pairs"]
    total = 0
    for seed in seeds.select_related("pair"):
        alignment = parse_links(seed.links, *seed.pair.shape)  # in range, no duplicates
        total += len(alignment)
    assert total == result["links"] > 0
    # identical words are aligned: "the cat ... mat" pair has the→the, cat→cat
    first = seeds.get(pair=corpus[0])
    assert [0, 0, "S"] in first.links and [1, 1, "S"] in first.links

    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] >= 0
    assert seen[-1] == (1.0, f"Wrote {len(corpus)} seeds ({total} links); 0 assignments reseeded")
    messages = " ".join(m for _, m in seen).lower()
    assert "hmm" in messages and "ibm" in messages  # per model and iteration


def test_started_annotations_keep_their_seed_and_unstarted_ones_get_the_new_one(
    project, corpus, annotator, make_user
):
    first = seed_project(project=project, use_gold=False)
    old_seed = {
        s.pair_id: s for s in SeedAlignment.objects.filter(aligner_run_id=first["aligner_run"])
    }

    other = make_user("second_annotator")
    Membership.objects.create(project=project, user=other, role=Membership.Role.ANNOTATOR)
    started = Assignment.objects.create(
        pair=corpus[0],
        annotator=annotator,
        status=Assignment.Status.IN_PROGRESS,
        seed=old_seed[corpus[0].pk],
        started_at=timezone.now(),
    )
    edited_links = [[1, 1, "S"], [2, 2, "P"]]
    annotation = Annotation.objects.create(assignment=started, links=edited_links, version=3)
    unstarted = Assignment.objects.create(
        pair=corpus[0], annotator=other, seed=old_seed[corpus[0].pk]
    )
    fresh = Assignment.objects.create(pair=corpus[1], annotator=annotator)

    second = seed_project(project=project, use_gold=False)

    assert second["aligner_run"] != first["aligner_run"]
    assert second["assignments_reseeded"] == 2 and second["assignments_kept"] == 1
    started.refresh_from_db(), unstarted.refresh_from_db(), fresh.refresh_from_db()
    annotation.refresh_from_db()
    assert started.seed_id == old_seed[corpus[0].pk].pk  # the seed it began from
    assert annotation.links == edited_links and annotation.version == 3
    assert unstarted.seed.aligner_run_id == second["aligner_run"]
    assert fresh.seed.aligner_run_id == second["aligner_run"] and fresh.seed.pair_id == corpus[1].pk
    # the first run's seeds are kept unchanged (κ_C's chance model needs them)
    assert SeedAlignment.objects.filter(aligner_run_id=first["aligner_run"]).count() == len(corpus)


def test_retraining_uses_gold_but_not_trial_gold(project, corpus):
    # declared Dutch: the HMM path (an English project's few gold pairs go to the built-in
    # model, tests/app/test_seeding_builtin.py)
    project.source_language = project.target_language = "nl"
    project.save()
    for pair in corpus[:3] + [corpus[9]]:  # corpus[9] is a trial pair
        GoldAlignment.objects.create(pair=pair, origin="imported", links=identity_links(pair))
    result = seed_project(project=project, use_gold=True)
    assert result["gold_pairs"] == 3
    assert AlignerRun.objects.get(pk=result["aligner_run"]).note == "retrained with gold"


def test_an_empty_project_fails_clearly_and_writes_nothing(project):
    with pytest.raises(ValueError, match="no sentence pairs"):
        seed_project(project=project)
    assert not AlignerRun.objects.exists()


def test_the_task_runs_the_service_and_records_the_result_on_its_job(project, corpus, lead):
    job = Job.objects.create(
        kind="seed", project=project, created_by=lead, params={"use_gold": False}
    )
    seed_task(job.pk)  # in-process: the same code a worker runs
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert job.progress == 100
    assert job.result["pairs"] == len(corpus)
    assert AlignerRun.objects.get(pk=job.result["aligner_run"]).job_id == job.pk


def test_only_leads_start_seeding(
    project, corpus, lead, annotator, client_for, django_capture_on_commit_callbacks
):
    url = f"/projects/{project.pk}/jobs/seed/"
    response = client_for(annotator).post(
        url, {"use_gold": "false"}, HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 403
    response = client_for(lead).post(url, {"use_gold": "maybe"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and "use_gold" in response.json()["error"]
    assert not Job.objects.exists()

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for(lead).post(url, {"use_gold": "true"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    assert job.kind == "seed" and job.params == {"use_gold": True} and job.status == "queued"
    assert len(callbacks) == 1  # dispatched only once the transaction commits


def test_the_project_page_offers_seeding_to_leads_only(project, lead, annotator, client_for):
    page = client_for(lead).get(f"/projects/{project.pk}/").content.decode()
    assert "Seed with aligner" in page and "Retrain with gold" in page
    page = client_for(annotator).get(f"/projects/{project.pk}/").content.decode()
    assert "Seed with aligner" not in page
