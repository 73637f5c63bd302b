"""The job machinery in-process: run_job's success and failure paths, the reporter's
throttling, stale detection, redelivered messages, and dispatch through Celery (eager)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from billiard.exceptions import WorkerLostError
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotator.jobs import registry, selftest
from annotator.jobs import runner as jobs
from annotator.jobs.runner import (
    JobReporter,
    bookkeeping_alias,
    fail_stale_jobs,
    run_job,
)
from annotator.jobs.selectors import get_job, job_state
from annotator.jobs.services import start_job
from annotator.models import Job, Project
from annotator.signals import (
    fail_job_of_failed_task,
    fail_stale_jobs_at_worker_start,
    preload_seed_model,
)
from annotator.tasks import fail_stale_jobs_task, run_job_task
from gridalign.celery import app as celery_app

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager():
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before


def queued(**fields) -> Job:
    return Job.objects.create(kind="test", **fields)


def running(*, beat_ago: float, **fields) -> Job:
    beat = timezone.now() - timedelta(seconds=beat_ago)
    return Job.objects.create(
        kind="test", status="running", started_at=beat, heartbeat_at=beat, **fields
    )


# --- run_job -----------------------------------------------------------------------------


def test_run_job_records_progress_result_and_success():
    job = queued()
    seen = {}

    def work(job, reporter):
        seen["status"] = Job.objects.get(pk=job.pk).status
        reporter.progress(50, "Half-way")
        seen["progress"] = Job.objects.values_list("progress", "message").get(pk=job.pk)
        return {"answer": 42}

    run_job(job.pk, work)
    job.refresh_from_db()
    assert seen == {"status": "running", "progress": (50, "Half-way")}
    assert (job.status, job.progress, job.result, job.error) == (
        "succeeded",
        100,
        {"answer": 42},
        "",
    )
    assert job.message == "Half-way"
    assert job.started_at <= job.finished_at and job.heartbeat_at is not None


def test_run_job_without_result_or_message_says_done():
    job = queued()
    run_job(job.pk, lambda job, reporter: None)
    job.refresh_from_db()
    assert (job.status, job.result, job.message) == ("succeeded", None, "Done")


def test_run_job_failure_records_error_and_traceback_tail():
    job = queued()

    def broken_step(job, reporter):
        reporter.progress(30, "Reading")
        raise ValueError("bad token on line 3")

    run_job(job.pk, broken_step)
    job.refresh_from_db()
    assert job.status == "failed"
    assert job.message == "Failed: ValueError: bad token on line 3"
    assert job.error.startswith("ValueError: bad token on line 3")
    assert "broken_step" in job.error  # the traceback's tail names where it happened
    assert job.progress == 30 and job.finished_at is not None


def test_run_job_fails_a_result_that_is_not_json():
    job = queued()
    run_job(job.pk, lambda job, reporter: {"when": timezone.now()})
    job.refresh_from_db()
    assert job.status == "failed" and "TypeError" in job.error


@pytest.mark.parametrize("status", ["succeeded", "failed", "running"])
def test_a_job_that_is_not_queued_is_not_run_again(status):
    job = queued(status=status, progress=100 if status == "succeeded" else 10, result={"n": 1})
    calls = []
    run_job(job.pk, lambda job, reporter: calls.append(1))
    job.refresh_from_db()
    assert calls == []
    assert (job.status, job.result) == (status, {"n": 1})


def test_a_missing_job_is_ignored():
    run_job(10**9, lambda job, reporter: pytest.fail("ran"))


# --- JobReporter -------------------------------------------------------------------------


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_reporter_throttles_but_always_writes_100_and_stage_messages():
    job = running(beat_ago=0)
    clock = FakeClock()
    reporter = JobReporter(job.pk, min_interval=0.25, clock=clock)
    written = []
    for step in range(1001):  # a tight loop: the clock does not move
        if reporter.progress(step / 10, "Training" if step < 500 else "Writing"):
            written.append(step / 10)
    # the first call, the stage change at 50 % and the final 100 %
    assert written == [0.0, 50.0, 100.0]
    assert reporter.writes == 3
    job.refresh_from_db()
    assert (job.progress, job.message) == (100, "Writing")


def test_reporter_writes_at_most_once_per_interval():
    job = running(beat_ago=0)
    clock = FakeClock()
    reporter = JobReporter(job.pk, min_interval=0.25, clock=clock)
    for step in range(101):
        clock.now = step * 0.05  # 20 calls per second
        reporter.progress(step)
    assert 20 <= reporter.writes <= 22  # ≤ 4 per second over 5 s, plus the final 100
    assert Job.objects.get(pk=job.pk).progress == 100


def test_reporter_clamps_floors_and_keeps_message_when_empty():
    job = running(beat_ago=0, message="Aligning")
    reporter = JobReporter(job.pk, min_interval=0)
    reporter.progress(99.9)
    assert Job.objects.values_list("progress", "message").get(pk=job.pk) == (99, "Aligning")
    reporter.progress(250)
    assert Job.objects.get(pk=job.pk).progress == 100
    reporter.progress(-5)
    assert Job.objects.get(pk=job.pk).progress == 0
    with pytest.raises(ValueError):
        reporter.progress(float("nan"))


def test_reporter_never_revives_a_finished_job():
    job = queued(status="failed", progress=40, message="Failed: worker lost")
    JobReporter(job.pk).progress(100, "Done")
    job.refresh_from_db()
    assert (job.status, job.progress, job.message) == ("failed", 40, "Failed: worker lost")


@pytest.mark.django_db(transaction=True, databases="__all__")  # "jobs" too, on PostgreSQL
def test_reporter_works_from_another_thread_and_the_heartbeat_beats():
    job = queued()
    beats = []

    def work(job, reporter):
        first = Job.objects.get(pk=job.pk).heartbeat_at
        thread = threading.Thread(target=reporter.progress, args=(60, "From a thread"))
        thread.start()
        thread.join()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # a long step, e.g. numpy, that reports nothing
            beat = Job.objects.get(pk=job.pk).heartbeat_at
            if beat > first:
                beats.append(beat)
                break
            time.sleep(0.02)
        return {}

    run_job(job.pk, work, heartbeat_interval=0.05)
    job.refresh_from_db()
    assert beats, "the heartbeat thread did not refresh heartbeat_at"
    assert (job.status, job.message) == ("succeeded", "From a thread")


def read_from_another_connection(job_id: int) -> tuple[int, str]:
    """The job's (progress, message) as a fresh connection (another thread's) sees it."""
    out = []

    def read() -> None:
        try:
            out.append(Job.objects.values_list("progress", "message").get(pk=job_id))
        finally:
            connections.close_all()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    return out[0]


@pytest.mark.django_db(transaction=True, databases="__all__")
def test_progress_goes_through_a_connection_of_its_own_on_postgresql_only(settings):
    postgres = connection.vendor == "postgresql"
    assert ("jobs" in settings.DATABASES) is postgres  # SQLite: one writer, one connection
    assert bookkeeping_alias() == ("jobs" if postgres else "default")
    with transaction.atomic():  # a job run inside an open transaction: its row may be new
        assert bookkeeping_alias() == "default"


@pytest.mark.django_db(transaction=True, databases="__all__")
def test_progress_reported_inside_the_works_transaction_is_stored():
    job = queued()
    seen = {}

    def work(job, reporter):
        with transaction.atomic():  # as an import or a seeding writes
            Project.objects.create(name="written by the work")
            reporter.progress(40, "Writing")
            seen["work"] = Job.objects.values_list("progress", "message").get(pk=job.pk)
            if connection.vendor == "postgresql":
                seen["elsewhere"] = read_from_another_connection(job.pk)
        return {}

    run_job(job.pk, work)
    job.refresh_from_db()
    assert job.status == "succeeded"
    assert seen["work"] == (40, "Writing")
    if connection.vendor == "postgresql":  # live, before the work's transaction commits
        assert seen["elsewhere"] == (40, "Writing")


def test_a_job_the_sweep_failed_while_its_work_ran_is_recorded_as_succeeded(settings):
    settings.JOB_STALE_AFTER = 60
    job = queued()

    def work(job, reporter):  # the heartbeat stalled (e.g. database unreachable) for too long
        later = timezone.now() + timedelta(seconds=3600)
        assert fail_stale_jobs(now=later) == 1
        assert Job.objects.get(pk=job.pk).status == "failed"
        reporter.progress(80, "Still writing")  # not written: the job is failed
        return {"rows": 3}

    run_job(job.pk, work)
    job.refresh_from_db()
    assert (job.status, job.progress, job.result, job.error) == ("succeeded", 100, {"rows": 3}, "")


def test_a_job_failed_otherwise_while_its_work_ran_stays_failed():
    job = queued()

    def work(job, reporter):
        jobs.fail_job(job_id=job.pk, message="Failed: stopped by hand", error="stopped")
        return {"rows": 3}

    run_job(job.pk, work)
    job.refresh_from_db()
    assert (job.status, job.message, job.result) == ("failed", "Failed: stopped by hand", None)


# --- stale jobs --------------------------------------------------------------------------


def test_stale_running_job_is_failed_with_a_reason_naming_its_last_heartbeat(settings):
    settings.JOB_STALE_AFTER = 60
    dead = running(beat_ago=600)
    alive = running(beat_ago=5)
    waiting = queued()  # queued jobs may wait behind a long job: never stale
    assert fail_stale_jobs() == 1
    dead.refresh_from_db()
    assert dead.status == "failed" and dead.finished_at is not None
    assert dead.heartbeat_at.isoformat(timespec="seconds") in dead.error
    assert "JOB_STALE_AFTER is 60 s" in dead.error
    assert dead.message == "Failed: worker lost"
    assert Job.objects.get(pk=alive.pk).status == "running"
    assert Job.objects.get(pk=waiting.pk).status == "queued"
    assert fail_stale_jobs() == 0


def test_stale_check_takes_now(settings):
    settings.JOB_STALE_AFTER = 60
    job = running(beat_ago=0)
    assert fail_stale_jobs(now=timezone.now() + timedelta(seconds=30)) == 0
    assert fail_stale_jobs(now=timezone.now() + timedelta(seconds=90)) == 1
    assert Job.objects.get(pk=job.pk).status == "failed"


def test_polling_a_stale_job_writes_nothing(settings, client_for, lead, project):
    """Selectors read, never write: the job JSON and the project page show a dead worker's job
    as it is; failing it is the sweep's business (worker start, Celery beat)."""
    settings.JOB_STALE_AFTER = 60
    job = running(beat_ago=600, project=project)
    client = client_for(lead)
    with CaptureQueriesContext(connection) as queries:
        state = client.get(f"/jobs/{job.pk}/").json()
        assert client.get(f"/projects/{project.pk}/").status_code == 200
        assert get_job(job_id=job.pk, user=lead).status == "running"
    writes = [
        q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT"))
    ]
    assert [w for w in writes if "annotator_job" in w] == []
    assert state["status"] == "running"
    assert Job.objects.get(pk=job.pk).status == "running"


def test_the_periodic_sweep_fails_a_stale_job_with_a_reason(settings, lead, project):
    settings.JOB_STALE_AFTER = 60
    job = running(beat_ago=600, project=project)
    assert fail_stale_jobs_task.apply().get() == 1  # the task beat sends, run in-process
    state = job_state(job=get_job(job_id=job.pk, user=lead), user=lead)
    assert state["status"] == "failed" and state["finished"] is True
    assert "No heartbeat since" in state["error"] and "worker" in state["reason"]


def test_beat_schedules_the_sweep_every_minute():
    schedule = celery_app.conf.beat_schedule
    entries = [e for e in schedule.values() if e["task"] == fail_stale_jobs_task.name]
    assert len(entries) == 1
    assert 0 < float(entries[0]["schedule"]) <= 60
    assert fail_stale_jobs_task.name in celery_app.tasks


def test_worker_start_fails_stale_jobs(settings):
    settings.JOB_STALE_AFTER = 60
    job = running(beat_ago=600)
    fail_stale_jobs_at_worker_start(sender=None)
    assert Job.objects.get(pk=job.pk).status == "failed"


def test_worker_start_preloads_the_seed_model_unless_turned_off(settings, monkeypatch, caplog):
    from alignment_core.aligner import link_model

    calls = []
    monkeypatch.setattr(link_model, "preload", lambda: calls.append(1) or {"sklearn": 0.5})
    settings.SEED_MODEL_PRELOAD = False
    assert preload_seed_model(sender=None) is None and calls == []
    settings.SEED_MODEL_PRELOAD = True
    with caplog.at_level("INFO", logger="annotator.signals"):
        assert preload_seed_model(sender=None) == {"sklearn": 0.5} and calls == [1]
    assert "seed model preloaded in" in caplog.text and "sklearn 0.5 s" in caplog.text


def test_a_resource_that_fails_to_preload_does_not_stop_the_worker(settings, monkeypatch, caplog):
    from alignment_core.aligner import link_model

    def broken():
        raise ValueError("vectors.npy: not a NumPy file")

    monkeypatch.setattr(link_model, "preload", broken)
    settings.SEED_MODEL_PRELOAD = True
    assert preload_seed_model(sender=None) is None
    assert "could not preload" in caplog.text and "not a NumPy file" in caplog.text


def test_worker_lost_signal_fails_the_job_of_a_killed_task():
    job = running(beat_ago=1)
    lost = WorkerLostError("Worker exited prematurely: signal 9 (SIGKILL) Job: 0.")
    fail_job_of_failed_task(sender=run_job_task, exception=lost, args=(job.pk,), kwargs={})
    job.refresh_from_db()
    assert job.status == "failed"
    assert "died" in job.error and "SIGKILL" in job.error
    other = running(beat_ago=1)
    fail_job_of_failed_task(sender=object(), exception=lost, args=(other.pk,), kwargs={})
    assert Job.objects.get(pk=other.pk).status == "running"  # not a job task: left alone


# --- dispatch ----------------------------------------------------------------------------


def test_start_job_dispatches_after_commit_and_runs_eagerly(
    eager, django_capture_on_commit_callbacks, lead, project
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = selftest.start_selftest_job(project=project, user=lead, steps=5, delay=0)
    assert Job.objects.get(pk=job.pk).status == "queued"  # nothing runs before the commit
    assert job.created_by == lead and job.params == {"steps": 5, "delay": 0}
    assert job.celery_task_id
    for callback in callbacks:
        callback()
    job.refresh_from_db()
    assert (job.status, job.progress, job.result["steps"]) == ("succeeded", 100, 5)
    assert job.message == "Counted to 5"


def test_selftest_failure_is_recorded(eager, django_capture_on_commit_callbacks, project):
    with django_capture_on_commit_callbacks(execute=True):
        job = selftest.start_selftest_job(project=project, user=None, steps=4, delay=0, fail_at=3)
    job.refresh_from_db()
    assert job.status == "failed"
    assert "self-test failure requested at step 3" in job.error


def test_selftest_refuses_to_kill_a_process_that_is_not_a_worker(
    eager, django_capture_on_commit_callbacks, project
):
    with django_capture_on_commit_callbacks(execute=True):
        job = selftest.start_selftest_job(project=project, user=None, steps=3, delay=0, die_at=2)
    job.refresh_from_db()
    assert job.status == "failed" and "refusing to end a process" in job.error


@pytest.mark.parametrize(
    "bad", [{"steps": 0}, {"steps": 10**6}, {"delay": -1}, {"delay": 60}, {"die_how": "x"}]
)
def test_selftest_parameters_are_checked(project, bad):
    with pytest.raises(ValueError):
        selftest.start_selftest_job(project=project, user=None, **bad)


def test_a_job_the_broker_refuses_is_failed_at_once(django_capture_on_commit_callbacks):
    class UnreachableBroker:
        def apply_async(self, **kwargs):
            raise ConnectionRefusedError("[Errno 111] Connection refused")

    with django_capture_on_commit_callbacks(execute=True):
        job = start_job(kind="test", task=UnreachableBroker(), params={"a": 1})
    job.refresh_from_db()
    assert (job.status, job.message) == ("failed", "Could not be queued")
    assert "Connection refused" in job.error


def test_start_job_refuses_parameters_that_are_not_json():
    with pytest.raises(TypeError):
        start_job(kind="test", task=run_job_task, params={"when": timezone.now()})
    assert not Job.objects.exists()


def test_every_job_kind_names_work_that_exists():
    assert set(registry.registered_kinds()) >= {"selftest", "seed", "import", "report"}
    for kind in registry.registered_kinds():
        assert callable(registry.work_for(kind)), kind


def test_an_unknown_job_kind_is_refused_before_anything_is_queued():
    with pytest.raises(KeyError, match="no work registered for job kind 'nonsense'"):
        start_job(kind="nonsense")
    assert not Job.objects.exists()


def test_the_selftest_reports_progress_as_a_fraction_like_every_job(project):
    """Every job's work reports ``progress(fraction, message)``; the self-test no longer
    hands the reporter percents."""
    seen: list[tuple[float, str]] = []

    class Recorder:
        def as_progress(self):
            return lambda fraction, message: seen.append((fraction, message))

        def progress(self, *args):  # the percent interface: must not be used
            raise AssertionError("the self-test reported a percent")

    job = Job(kind="selftest", project=project, params={"steps": 4, "delay": 0})
    result = selftest.selftest_work(job, Recorder())
    assert result["steps"] == 4
    assert [f for f, _ in seen] == [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]
    assert seen[0][1] == "Counting to 4" and seen[-1][1] == "Counted to 4"
