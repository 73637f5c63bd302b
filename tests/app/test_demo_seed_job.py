"""``setup_demo --seed-in-worker`` (what ``make run`` runs, issue 34): the demo's first seeding
is a queued job, not work done before the web server starts; a pair opened before the job has
run says so and shows the job, and takes its seed once the job has written it."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotator.jobs.runner import run_job
from annotator.management.commands.setup_demo import DEMO_PROJECT
from annotator.models import AlignerRun, Assignment, Job, Project, SeedAlignment

pytestmark = pytest.mark.django_db  # (the job is never sent: the test runs its work itself)

PENDING = "The aligner is still computing this project"


def queue_demo(capsys) -> tuple[Project, str]:
    call_command("setup_demo", force=True, seed_in_worker=True)
    return Project.objects.get(name=DEMO_PROJECT), capsys.readouterr().out


def first_pair_of(username: str) -> Assignment:
    mine = Assignment.objects.filter(annotator__username=username, pair__is_trial=False)
    return mine.select_related("annotator").order_by("pair__position", "id").first()


def test_seed_in_worker_queues_one_seed_job_and_writes_no_seed(capsys):
    project, out = queue_demo(capsys)
    job = Job.objects.get(project=project, kind="seed")
    assert job.status == "queued" and job.params == {"use_gold": True}
    assert f"Seed job {job.pk} queued" in out and "Seeded" not in out
    assert not SeedAlignment.objects.filter(pair__project=project).exists()
    assignments = Assignment.objects.filter(pair__project=project)
    assert assignments.count() > 36 and not assignments.filter(seed__isnull=False).exists()
    _, again = queue_demo(capsys)  # make run again before the worker ran it: the same job
    assert Job.objects.filter(project=project, kind="seed").count() == 1
    assert f"Seed job {job.pk} queued" in again


def test_a_pair_opened_before_the_job_shows_it_and_takes_the_seed_after(client, capsys):
    project, _ = queue_demo(capsys)
    job = Job.objects.get(project=project, kind="seed")
    assignment = first_pair_of("annotator1")
    client.force_login(assignment.annotator)
    url = reverse("annotate", args=[assignment.pk])
    before = client.get(url).content.decode()
    assert PENDING in before and f'id="job-{job.pk}"' in before
    seed_url = f"/api/assignments/{assignment.pk}/seed/"  # where the grid takes its seed from
    assert client.get(seed_url).json()["seed"] is None

    run_job(job.pk)  # the work the worker's task runs for the job

    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    run = AlignerRun.objects.get(job=job)
    seeds = SeedAlignment.objects.filter(aligner_run=run)
    assert seeds.count() == project.pairs.count()
    assert (
        job.result["assignments_reseeded"]
        == Assignment.objects.filter(pair__project=project).count()
    )  # nobody had started: every assignment now starts from its pair's seed
    after = client.get(url)
    assert PENDING not in after.content.decode()
    seed = seeds.get(pair=assignment.pair)
    assert client.get(seed_url).json()["seed"] == {"links": seed.links, "aligner_run": run.pk}
    assignment.refresh_from_db()
    assert assignment.seed_id == seed.pk


def test_without_the_flag_setup_demo_still_seeds_itself(capsys):
    call_command("setup_demo", force=True)
    project = Project.objects.get(name=DEMO_PROJECT)
    assert not Job.objects.filter(project=project).exists()
    assert SeedAlignment.objects.filter(pair__project=project).count() == project.pairs.count()
