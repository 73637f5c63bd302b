"""The app's edge of the one progress shape: ``JobReporter.as_progress()`` takes the core's
``progress(fraction, message)`` and stores percent on the Job; a work function's fractions
reach the Job through it."""

from __future__ import annotations

import pytest
from django.utils import timezone

from alignment_core.progress import part
from annotator.jobs.runner import JobReporter, run_job
from annotator.models import Job

pytestmark = pytest.mark.django_db


def stored(job: Job) -> tuple[int, str]:
    return Job.objects.values_list("progress", "message").get(pk=job.pk)


def test_as_progress_stores_fractions_as_percent():
    now = timezone.now()
    job = Job.objects.create(kind="test", status="running", started_at=now, heartbeat_at=now)
    progress = JobReporter(job.pk, min_interval=0).as_progress()
    progress(0.425, "Training HMM")
    assert stored(job) == (42, "Training HMM")
    progress(0.999, "Aligning")  # floored: never shows as done before it is
    assert stored(job) == (99, "Aligning")
    progress(1.0, "Done")
    assert stored(job) == (100, "Done")


def test_a_part_of_the_work_maps_onto_its_share_of_the_job():
    seen: list[tuple[int, str]] = []

    def work(job: Job, reporter: JobReporter) -> None:
        second_half = part(reporter.as_progress(), 0.5, 1.0)
        for fraction in (0.0, 0.5, 1.0):
            second_half(fraction, f"step {fraction}")
            seen.append(stored(job))

    job = Job.objects.create(kind="test")
    run_job(job.pk, work)
    assert seen == [(50, "step 0.0"), (75, "step 0.5"), (100, "step 1.0")]
