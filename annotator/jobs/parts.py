"""Jobs spread over Celery tasks: a job's work splits into *parts*, run in parallel by a Celery
``group`` of ``annotator.tasks.run_job_part`` tasks on the existing broker (no scheduler of
our own, no result backend: each part records its outcome in a ``JobPart`` row).

    register_parts(ALIGN_JOB, Parts(run=align_one, finish=summarise))
    def work(job, reporter):                       # the job's registered work
        start_parts(job=job, keys=["4", "5", "6"], reporter=reporter)   # returns at once

Decisions:

* the job stays *running* after its work returns (``JobReporter.hand_off``); the part that
  finds every part finished records the job's success, with the kind's ``finish`` result.
  The parts' ends are serialised by a lock on the Job row (SQLite: its one writer), so
  exactly one part finishes the job;
* a part that raises fails only itself: its error (``str(exc)``: it should name what it was)
  is kept on its row and the kind's ``finish`` reports it; the other parts go on. A job
  fails only as a whole (its worker died: ``JobTask``'s worker-lost handler; the stale sweep);
  parts still queued then find the job finished and do nothing;
* progress is the share of parts finished (``Parts.message`` words it); each running part
  keeps the job's heartbeat fresh, so a long part does not look like a dead worker;
* a redelivered part message (``acks_late``) finds its part no longer queued and does nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from celery import current_app, group
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from annotator.jobs.runner import (
    MESSAGE_MAX,
    _Heartbeat,
    _succeed,
    bookkeeping_alias,
    default_heartbeat_interval,
    error_text,
)
from annotator.models import Job, JobPart

logger = logging.getLogger(__name__)

RUN_PART_TASK = "annotator.tasks.run_job_part"


def _default_message(done: int, total: int, failed: int) -> str:
    tail = f" ({failed} failed)" if failed else ""
    return f"{done} of {total} parts done{tail}"


@dataclass(frozen=True)
class Parts:
    """How a kind's parts run: ``run(job, key) -> dict`` (one part; raising fails it only),
    ``finish(job, parts) -> dict`` (the job's result from its finished ``JobPart`` rows), and
    ``message(done, total, failed)`` for the progress bar."""

    run: Callable[[Any, str], dict[str, Any]]
    finish: Callable[[Any, list[JobPart]], dict[str, Any]]
    message: Callable[[int, int, int], str] = _default_message


_PARTS: dict[str, Parts] = {}


def register_parts(kind: str, parts: Parts) -> None:
    """Let jobs of ``kind`` spread over parts (again with the same value: harmless)."""
    known = _PARTS.get(kind)
    if known is not None and known != parts:
        raise ValueError(f"job kind {kind!r} already has other parts")
    _PARTS[kind] = parts


def start_parts(*, job: Any, keys: Sequence[str], reporter: Any) -> None:
    """Create one queued part per key and send them as a Celery group; the job then ends
    when its last part does (``reporter`` is handed off, so ``run_job`` leaves the job
    running). In eager mode (tests) the parts run here, one after another."""
    if kind_parts(job.kind) is None:
        raise KeyError(f"job kind {job.kind!r} has no parts registered")
    if not keys:
        raise ValueError("a job spread over parts needs at least one part")
    JobPart.objects.bulk_create([JobPart(job_id=job.pk, key=str(k)) for k in keys])
    reporter.progress(0, kind_parts(job.kind).message(0, len(keys), 0))
    app = current_app
    if app.conf.task_always_eager and RUN_PART_TASK not in app.tasks:
        app.loader.import_default_modules()
    reporter.hand_off()
    parts = group(app.signature(RUN_PART_TASK, args=(job.pk, str(k))) for k in keys)
    queue = _queue_of_current_task()
    parts.apply_async(**({"queue": queue} if queue else {}))


def _queue_of_current_task() -> str | None:
    """The queue the running job task came from: its parts go to the same one (workers that
    serve a dedicated queue take the job's parts too). None outside a worker."""
    from celery import current_task

    request = getattr(current_task, "request", None)
    info = getattr(request, "delivery_info", None) or {}
    return info.get("routing_key") or None


def kind_parts(kind: str) -> Parts | None:
    return _PARTS.get(kind)


def run_part(job_id: int, key: str) -> None:
    """Run part ``key`` of job ``job_id`` (from the part task) and record its outcome; the
    last part to finish records the job's result. Nothing runs for a job no longer running
    or a part no longer queued."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None or job.status != Job.Status.RUNNING:
        logger.info("part %s of job %s not run: the job is not running", key, job_id)
        return
    if not JobPart.objects.filter(job_id=job_id, key=key, status=JobPart.Status.QUEUED).exists():
        logger.info("part %s of job %s not run: it is not queued", key, job_id)
        return
    spec = kind_parts(job.kind)
    if spec is None:
        raise KeyError(f"job kind {job.kind!r} has no parts registered")
    heartbeat = _Heartbeat(job_id, interval=default_heartbeat_interval(), using=bookkeeping_alias())
    heartbeat.start()
    try:
        result, status, error = spec.run(job, key), JobPart.Status.SUCCEEDED, ""
    except Exception as exc:
        logger.warning("part %s of job %s failed: %s", key, job_id, exc)
        result, status, error = None, JobPart.Status.FAILED, error_text(exc)
    finally:
        heartbeat.stop()
    _record(job, key, status=status, result=result, error=error, spec=spec)


def _record(job: Any, key: str, *, status: str, result: Any, error: str, spec: Parts) -> None:
    """The part's outcome, the job's progress, and — from the last part — the job's result,
    under a lock on the Job row so that exactly one part sees every part finished."""
    now = timezone.now()
    with transaction.atomic():
        Job.objects.select_for_update().filter(pk=job.pk).values_list("pk").first()
        JobPart.objects.filter(job_id=job.pk, key=key, status=JobPart.Status.QUEUED).update(
            status=status, result=result, error=error, finished_at=now
        )
        counts = dict(
            JobPart.objects.filter(job_id=job.pk)
            .values_list("status")
            .annotate(n=Count("id"))
            .values_list("status", "n")
        )
        total = sum(counts.values())
        waiting = counts.get(JobPart.Status.QUEUED, 0)
        failed = counts.get(JobPart.Status.FAILED, 0)
        message = spec.message(total - waiting, total, failed)[:MESSAGE_MAX]
        if waiting:
            Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(
                progress=int(100 * (total - waiting) / total), message=message, heartbeat_at=now
            )
            return
        outcome = spec.finish(job, list(JobPart.objects.filter(job_id=job.pk)))
        _succeed(job.pk, outcome, message)
