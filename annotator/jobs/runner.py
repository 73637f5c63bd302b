"""Jobs: the live state of long tasks, kept in the ``Job`` table (writes).

Every long Celery task runs its work through :func:`run_job`, which marks the job running, keeps
its heartbeat fresh from a daemon thread and records the outcome. Pages and the API read the
table, so progress is visible whatever the Celery result backend (there is none: results are
ignored). A job whose worker dies is failed three ways: Celery's ``task_failure`` signal with
``WorkerLostError`` (prefork child killed), :func:`fail_stale_jobs` at worker start, and the same
sweep every minute from Celery beat (``CELERY_BEAT_SCHEDULE``; the backstop for a whole worker
killed). Reading a job never writes.

Decisions:

* a job is claimed atomically (``queued`` → ``running``); a redelivered message for a job that
  is running or finished does nothing, so non-idempotent work never runs twice;
* a *running* job goes stale after JOB_STALE_AFTER seconds without a heartbeat; a queued one
  may wait legitimately behind a long job, so it is failed only after JOB_QUEUED_MAX seconds
  (its message was lost, e.g. Redis restarted without persistence) — else, for a kind that runs
  one at a time per project, it would block that project's button for good. A job whose
  message could not be published is failed at once by ``services.start_job``;
* finished states are final: a late progress write cannot revive a failed job, nor can a
  success, with one exception: a job the stale-job sweep failed ("worker lost") whose work then
  returns did succeed (its transaction committed), so it is recorded as succeeded;
* progress and heartbeats are written through :func:`bookkeeping_alias`: on PostgreSQL a
  connection of their own (``settings.JOBS_DB_ALIAS``, autocommit), so they are seen live and
  hold no lock on the Job row while the work runs inside one long transaction (an import, a
  seeding); on SQLite, which has one writer at a time, the default connection as before.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, close_old_connections, connection, connections, transaction
from django.db.models import Q
from django.utils import timezone

from alignment_core.progress import Progress
from annotator.jobs.registry import Work, on_failed_for, records_success_with_work, work_for
from annotator.models import Job

logger = logging.getLogger(__name__)

MESSAGE_MAX = 500
ERROR_TAIL_LINES = 25
ERROR_MAX = 8000
# ≤ 4 progress writes per second; 100 % and a new message are always written.
PROGRESS_MIN_INTERVAL = 0.25
UNFINISHED = (Job.Status.QUEUED, Job.Status.RUNNING)
# What the stale-job sweep says of a running job it fails.
STALE_MESSAGE = "Failed: worker lost"


def bookkeeping_alias() -> str:
    """The database alias a running job's progress and heartbeat are written through.

    ``settings.JOBS_DB_ALIAS`` when it is configured (PostgreSQL): its own connection in
    autocommit, so each write commits at once whatever transaction the work holds on
    ``default``. Else ``default``: on SQLite a second connection would wait for the work's write
    lock ("database is locked"). Also ``default`` when the job runs inside a transaction already
    open on ``default`` (tests wrapped in one): its row may not be committed, so another
    connection would not see it.
    """
    alias = getattr(settings, "JOBS_DB_ALIAS", None)
    if not alias or alias not in settings.DATABASES or connection.in_atomic_block:
        return DEFAULT_DB_ALIAS
    return alias


class JobReporter:
    """Hands a job's progress to the database: ``reporter.progress(42.5, "Training HMM")``.

    Percent is 0–100 (clamped; stored as an integer, floored so 99.9 never shows as done).
    An empty message keeps the current one. Writes are throttled to one per
    ``min_interval`` seconds, except 100 % and a changed message (stage boundaries), which are
    always written. Thread-safe: the work may report from a thread of its own. Writes go
    through database alias ``using`` (see :func:`bookkeeping_alias`).
    """

    def __init__(
        self,
        job_id: int,
        *,
        min_interval: float = PROGRESS_MIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        using: str = DEFAULT_DB_ALIAS,
    ) -> None:
        self.job_id = job_id
        self.using = using
        self.min_interval = min_interval
        self.writes = 0
        self.last_percent: int | None = None
        self.last_message = ""
        self._clock = clock
        self._last_write = -math.inf
        self._lock = threading.Lock()
        # Set by ``record_success``: the job's success is written in its work's transaction.
        self.recorded = False
        # Called before that write (``run_job`` stops the heartbeat there).
        self.before_success: Callable[[], None] | None = None
        # Set by ``hand_off``: the job goes on in other tasks (a document zip's parts, a
        # chunked seeding's chords), which record its outcome.
        self.handed_off = False

    def progress(self, percent: float, message: str = "") -> bool:
        """Record progress; returns True when it was written (False: throttled or unchanged)."""
        percent = float(percent)
        if math.isnan(percent):
            raise ValueError("progress percent is NaN")
        value = int(min(100.0, max(0.0, percent)))
        message = (message or "")[:MESSAGE_MAX]
        with self._lock:
            if self.recorded:  # the Job row is the work transaction's now; it is finished
                return False
            new_message = bool(message) and message != self.last_message
            now = self._clock()
            if not new_message and value != 100:
                if value == self.last_percent or now - self._last_write < self.min_interval:
                    return False
            elif not new_message and value == self.last_percent:
                return False  # 100 already written
            fields: dict[str, Any] = {"progress": value, "heartbeat_at": timezone.now()}
            if new_message:
                fields["message"] = message
            Job.objects.using(self.using).filter(pk=self.job_id, status=Job.Status.RUNNING).update(
                **fields
            )
            self._last_write = now
            self.last_percent = value
            if new_message:
                self.last_message = message
            self.writes += 1
            return True

    def record_success(self, result: dict[str, Any] | None, message: str = "") -> None:
        """Record the job succeeded with ``result``, from inside the transaction that writes
        its work (issue 30, finding 8): the work and "succeeded" then commit together, and a
        worker killed after the commit cannot leave the job "failed" with its work done. Work
        that holds no transaction during its long part (training) calls this at the end of
        its short write. ``message`` becomes the job's last message. Later progress is ignored.
        If the job was failed meanwhile (its worker declared lost), raises, so the work's
        transaction rolls back and the job's state stays true."""
        if not connection.in_atomic_block:
            raise RuntimeError("record_success belongs inside the work's transaction")
        json.dumps(result)
        if self.before_success is not None:
            self.before_success()
        with self._lock:
            if message:
                self.last_message = message[:MESSAGE_MAX]
            if not _succeed(self.job_id, result, self.last_message):
                raise RuntimeError("the job was failed while it ran; its work is undone")
            self.recorded = True

    def hand_off(self) -> None:
        """Say the job goes on in other tasks (a zip's parts, a chunked seeding's chords): when the work
        returns, the job stays running, and those tasks beat its heartbeat, report its
        progress and record its success (:func:`succeed_job`) or failure."""
        self.handed_off = True

    def as_progress(self) -> Progress:
        """This reporter as the core's ``progress(fraction, message)`` (fraction 0–1)."""

        def report(fraction: float, message: str) -> None:
            self.progress(100 * fraction, message)

        return report


def run_job(
    job_id: int, work: Work | None = None, *, heartbeat_interval: float | None = None
) -> None:
    """Run ``work(job, reporter)`` as job ``job_id``; call this from inside a Celery task.
    Without ``work``, the work registered for the job's kind runs (``registry``).

    Marks the job running, beats its heartbeat every ``heartbeat_interval`` seconds (default a
    quarter of JOB_STALE_AFTER, at most 30 s) from a daemon thread, stores the returned dict as
    the result and marks it succeeded at 100 %; an exception marks it failed with the error and
    the tail of its traceback. A job that is not queued (already running elsewhere, or finished)
    is left alone.
    """
    job = _claim(job_id)
    if job is None:
        return
    if work is None:
        try:
            work = work_for(job.kind)
        except (KeyError, ImportError) as exc:
            fail_job(job_id=job_id, message=f"Failed: {exc}", error=error_text(exc))
            return
    using = bookkeeping_alias()
    reporter = JobReporter(job_id, using=using)
    reporter.last_message = job.message
    interval = heartbeat_interval or default_heartbeat_interval()
    heartbeat = _Heartbeat(job_id, interval=interval, using=using)
    reporter.before_success = heartbeat.stop
    heartbeat.start()
    # A kind whose work is one transaction anyway (an import) records its success in that same
    # transaction: a worker killed after the work's commit can no longer leave it "failed:
    # worker lost" with everything imported. Others (hours of training before a short write)
    # must not hold a transaction that long, so they keep the separate update below.
    together = records_success_with_work(job.kind)
    try:
        with transaction.atomic() if together else contextlib.nullcontext():
            result = work(job, reporter)
            if result is not None and not isinstance(result, dict):
                raise TypeError(f"job work must return a dict or None, got {type(result).__name__}")
            json.dumps(result)
            if together:
                heartbeat.stop()
                if not _succeed(job_id, result, reporter.last_message):
                    # failed meanwhile (its worker declared lost): undo the work too, so the
                    # job's state stays true
                    raise RuntimeError("the job was failed while it ran; its work is undone")
    except Exception as exc:
        heartbeat.stop()
        logger.exception("job %s (%s) failed", job_id, job.kind)
        fail_job(
            job_id=job_id,
            message=f"Failed: {type(exc).__name__}: {exc}",
            error=error_text(exc),
        )
        return
    except BaseException as exc:  # worker shutdown while running: record it, then let it go on
        heartbeat.stop()
        fail_job(job_id=job_id, message="Interrupted", error=error_text(exc) or repr(exc))
        raise
    heartbeat.stop()
    # recorded: by the work, in its transaction; handed off: other tasks will record it
    if not together and not reporter.recorded and not reporter.handed_off:
        _succeed(job_id, result, reporter.last_message)


@contextlib.contextmanager
def heartbeat_of(job_id: int) -> Iterator[None]:
    """Beat job ``job_id``'s heartbeat while the block runs: a task that does part of a job
    whose work was handed off (``JobReporter.hand_off``)."""
    heartbeat = _Heartbeat(job_id, interval=default_heartbeat_interval(), using=bookkeeping_alias())
    heartbeat.start()
    try:
        yield
    finally:
        heartbeat.stop()


def advance_job(*, job_id: int, percent: float, message: str) -> bool:
    """Move a running job's progress to ``percent`` (0–100) with ``message``, never backwards:
    the parts of a handed-off job finish in any order, in several processes. True if written."""
    value = int(min(100.0, max(0.0, float(percent))))
    return bool(
        Job.objects.using(bookkeeping_alias())
        .filter(pk=job_id, status=Job.Status.RUNNING, progress__lte=value)
        .update(progress=value, message=message[:MESSAGE_MAX], heartbeat_at=timezone.now())
    )


def _claim(job_id: int) -> Job | None:
    """Mark a queued job running and return it; None (logged) when it is not queued."""
    now = timezone.now()
    claimed = Job.objects.filter(pk=job_id, status=Job.Status.QUEUED).update(
        status=Job.Status.RUNNING, started_at=now, heartbeat_at=now, progress=0, message="Started"
    )
    if not claimed:
        state = Job.objects.filter(pk=job_id).values_list("status", flat=True).first()
        logger.warning("job %s not run: it is %s", job_id, state or "missing")
        return None
    return Job.objects.get(pk=job_id)


def succeed_job(*, job_id: int, result: dict[str, Any] | None, message: str) -> None:
    """Record the success of a job whose work went on in other tasks (``hand_off``), from
    inside the transaction that writes its last part, so both commit together. Raises if the
    job was failed meanwhile, so that transaction rolls back."""
    if not connection.in_atomic_block:
        raise RuntimeError("succeed_job belongs inside the work's transaction")
    json.dumps(result)
    if not _succeed(job_id, result, message[:MESSAGE_MAX]):
        raise RuntimeError("the job was failed while it ran; its work is undone")


def _succeed(job_id: int, result: dict[str, Any] | None, last_message: str) -> bool:
    """Record a job's returned result: succeeded at 100 %, its last message kept; False if the
    job had been failed meanwhile."""
    done = timezone.now()
    # A job the stale sweep failed meanwhile (no heartbeat for JOB_STALE_AFTER: the process
    # stalled, or the database was unreachable) did succeed: its work returned and committed.
    # Any other failure of a running job comes from its own process dying, which cannot get here.
    swept = Q(status=Job.Status.FAILED, message=STALE_MESSAGE, error__startswith="No heartbeat")
    updated = (
        Job.objects.filter(pk=job_id)
        .filter(Q(status=Job.Status.RUNNING) | swept)
        .update(
            status=Job.Status.SUCCEEDED,
            progress=100,
            result=result,
            message=last_message if last_message != "Started" else "Done",
            error="",
            heartbeat_at=done,
            finished_at=done,
        )
    )
    if not updated:
        logger.warning("job %s finished its work after it had been failed; result dropped", job_id)
    return bool(updated)


def fail_job(*, job_id: int, message: str, error: str) -> bool:
    """Mark an unfinished job failed (a finished one is left as it is). True if it changed."""
    unfinished = Job.objects.filter(pk=job_id, status__in=UNFINISHED)
    if not unfinished.exists():
        return False
    # cleaned up first, so a job seen failed has nothing half-written left (were it to
    # succeed meanwhile, its kind's clean-up leaves what it published alone)
    clean_up_failed(job_id)
    return bool(
        unfinished.update(
            status=Job.Status.FAILED,
            message=message[:MESSAGE_MAX],
            error=error[-ERROR_MAX:],
            finished_at=timezone.now(),
        )
    )


def clean_up_failed(job_id: int) -> None:
    """Run the failing job's kind's clean-up (``JobKind.on_failed``: a chunked seeding deletes
    its unpublished run). Logged, never raised: the job is failed whatever it does."""
    kind = Job.objects.filter(pk=job_id).values_list("kind", flat=True).first()
    clean_up = on_failed_for(kind) if kind else None
    if clean_up is None:
        return
    try:
        clean_up(job_id)
    except Exception:
        logger.exception("could not clean up after failed job %s", job_id)


def fail_stale_jobs(*, now: datetime | None = None) -> int:
    """Fail running jobs whose heartbeat is older than JOB_STALE_AFTER seconds, and queued
    jobs older than JOB_QUEUED_MAX seconds; return how many.

    The reason names the last heartbeat. Each job is updated only if its heartbeat is still the
    stale one read here, so a beat that lands meanwhile keeps the job alive.
    """
    now = now or timezone.now()
    stale_after = settings.JOB_STALE_AFTER
    cutoff = now - timedelta(seconds=stale_after)
    stale = Job.objects.filter(status=Job.Status.RUNNING).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
    )
    failed = 0
    for job_id, beat, started in stale.values_list("id", "heartbeat_at", "started_at"):
        last = beat or started
        seconds = int((now - last).total_seconds())
        error = (
            f"No heartbeat since {last.isoformat(timespec='seconds')} ({seconds} s ago; "
            f"JOB_STALE_AFTER is {stale_after} s): the worker running this job stopped "
            "(killed, out of memory, or restarted)."
        )
        swept = Job.objects.filter(pk=job_id, status=Job.Status.RUNNING, heartbeat_at=beat).update(
            status=Job.Status.FAILED, message=STALE_MESSAGE, error=error, finished_at=now
        )
        if swept:
            clean_up_failed(job_id)
        failed += swept
    failed += _fail_jobs_never_picked_up(now=now)
    if failed:
        logger.warning("failed %d stale job(s)", failed)
    return failed


def _fail_jobs_never_picked_up(*, now: datetime) -> int:
    """Queued jobs older than JOB_QUEUED_MAX seconds: no worker took their message. Should it
    still arrive, ``run_job`` finds the job no longer queued and leaves it alone."""
    limit = settings.JOB_QUEUED_MAX
    error = (
        f"No worker started this job within JOB_QUEUED_MAX ({limit} s) of its creation: its "
        "message was probably lost (the broker restarted) or no worker is running. Start it again."
    )
    return Job.objects.filter(
        status=Job.Status.QUEUED, created_at__lt=now - timedelta(seconds=limit)
    ).update(
        status=Job.Status.FAILED, message="Failed: never started", error=error, finished_at=now
    )


def default_heartbeat_interval() -> float:
    """A quarter of JOB_STALE_AFTER (so a few beats may be missed), between 1 and 30 seconds."""
    return max(1.0, min(30.0, settings.JOB_STALE_AFTER / 4))


def error_text(exc: BaseException) -> str:
    """``Type: message`` then the last lines of the traceback."""
    lines = traceback.format_exception(exc)
    tail = "".join(lines).splitlines()[-ERROR_TAIL_LINES:]
    return f"{type(exc).__name__}: {exc}\n\n" + "\n".join(tail)


class _Heartbeat:
    """A daemon thread that refreshes ``heartbeat_at`` while the job runs. It has its own
    database connection (Django's are per thread; alias ``using``) and closes it when it stops."""

    def __init__(self, job_id: int, *, interval: float, using: str = DEFAULT_DB_ALIAS) -> None:
        self.job_id = job_id
        self.using = using
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"job-{job_id}-heartbeat")
        self._thread.daemon = True

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    close_old_connections()
                    Job.objects.using(self.using).filter(
                        pk=self.job_id, status=Job.Status.RUNNING
                    ).update(heartbeat_at=timezone.now())
                except Exception:  # a missed beat is survivable; the next one may land
                    logger.warning("heartbeat of job %s failed", self.job_id, exc_info=True)
        finally:
            connections.close_all()
