"""A real Celery worker for integration tests: a subprocess of this checkout, on the test
database (PostgreSQL) and the configured Redis broker, consuming a queue of its own so that
no other worker on the same Redis takes our messages (nor we theirs)."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from gridalign.celery import app as celery_app
from tests.conftest import REPO_ROOT, need


def redis_answers(url: str) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def session_database_url() -> str:
    """DATABASE_URL of the database this test session uses (pytest-django's test_<name>)."""
    s = connection.settings_dict
    auth = quote(s["USER"] or "", safe="")
    if s["PASSWORD"]:
        auth += ":" + quote(s["PASSWORD"], safe="")
    host = f"{s['HOST'] or 'localhost'}:{s['PORT'] or 5432}"
    return f"postgres://{auth}@{host}/{quote(s['NAME'], safe='')}"


@pytest.fixture
def postgres_and_redis(transactional_db) -> None:
    need(
        connection.vendor == "postgresql",
        "PostgreSQL for the worker tests (DATABASE_URL=postgres://...)",
    )
    url = settings.CELERY_BROKER_URL
    need(
        url.startswith(("redis://", "rediss://")), "a Redis broker (CELERY_BROKER_URL=redis://...)"
    )
    need(redis_answers(url), f"Redis answering at {url}")


@pytest.fixture
def worker_queue(postgres_and_redis):
    """Route this process's tasks to a queue of their own for the test."""
    name = f"gridalign-test-{uuid.uuid4().hex[:12]}"
    before = celery_app.conf.task_routes
    celery_app.conf.task_routes = {"annotator.tasks.*": {"queue": name}}
    _reset_router()
    yield name
    celery_app.conf.task_routes = before
    _reset_router()
    _forget_queue(name)


def _reset_router() -> None:
    celery_app.amqp.flush_routes()
    celery_app.amqp.__dict__.pop("router", None)  # a cached_property: rebuilt from the routes


def _forget_queue(name: str) -> None:
    """Delete the queue and any unacknowledged message of it (a killed solo worker leaves its
    message unacked; Redis would put it back into the queue after the visibility timeout)."""
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        client.delete(name, f"_kombu.binding.{name}", f"_kombu.binding_permanent.{name}")
        for tag, value in client.hgetall("unacked").items():
            if name.encode() in value:
                client.hdel("unacked", tag)
                client.zrem("unacked_index", tag)
    finally:
        client.close()


class Worker:
    def __init__(
        self, *, queue: str, pool: str, env: dict[str, str], name: str = "", concurrency: int = 1
    ) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "gridalign",
                "worker",
                "--pool",
                pool,
                "--concurrency",
                str(concurrency),
                "--queues",
                queue,
                "--hostname",
                f"{queue}-{pool}{name}@%h",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],  # fmt: skip
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group: stopped as a whole
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip())

    @property
    def log(self) -> str:
        return "\n".join(self.lines[-60:])

    def wait_ready(self, timeout: float = 30) -> None:
        wait_for(
            lambda: any(" ready." in line for line in self.lines),
            timeout=timeout,
            what=f"the worker to start:\n{self.log}",
            unless=lambda: self.process.poll() is not None,
        )

    def stop(self) -> None:
        """Stop the worker after its test: SIGKILL to its whole process group (master and pool
        children). The test has waited for its jobs, so there is nothing to finish; Celery's
        own shutdown (SIGTERM, even SIGQUIT) took 2–3 s per worker to close its pool and
        broker connections. A message a failed test left unacknowledged goes with the queue
        (``_forget_queue``)."""
        _signal_group(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self._reader.join(timeout=5)


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, sig)


@pytest.fixture
def start_worker(worker_queue) -> Callable[..., Worker]:
    """``start_worker(pool="prefork", **env)``: a running worker (stopped after the test).
    ``name`` tells apart several workers of one test (``-b``: its node name), ``concurrency``
    its pool's processes."""
    workers: list[Worker] = []

    def start(
        *, pool: str = "prefork", name: str = "", concurrency: int = 1, **extra_env: str
    ) -> Worker:
        env = dict(os.environ)
        env.update(
            DATABASE_URL=session_database_url(),
            CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
            DEBUG="false",
            SECRET_KEY=settings.SECRET_KEY,
            PYTHONUNBUFFERED="1",
            **extra_env,
        )
        worker = Worker(queue=worker_queue, pool=pool, env=env, name=name, concurrency=concurrency)
        workers.append(worker)
        worker.wait_ready()
        return worker

    yield start
    for worker in workers:
        worker.stop()


def wait_for(
    predicate: Callable[[], object],
    *,
    timeout: float,
    what: str,
    interval: float = 0.02,
    unless: Callable[[], bool] | None = None,
) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if unless is not None and unless():
            break
        time.sleep(interval)
    pytest.fail(f"timed out waiting for {what}")


def write_pending(table: type) -> bool:
    """True while another session holds an uncommitted write on ``table`` in this database
    (a job's transaction has inserted rows there and not committed yet)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
               WHERE c.relname = %s AND l.mode = 'RowExclusiveLock' AND l.granted
                 AND l.pid <> pg_backend_pid()
                 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())""",
            [table._meta.db_table],
        )
        return cursor.fetchone() is not None


def add_random_pairs(project, n: int, *, seed: int) -> None:
    """``n`` pairs of 6–16 words from 400 made-up ones, each target the source reversed and
    upper-cased: different words on the two sides, so the aligner has real work."""
    from annotator.models import SentencePair

    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(400)]
    pairs = []
    for k in range(n):
        source = rng.choices(vocab, k=rng.randint(6, 16))
        pairs.append(
            SentencePair(
                project=project,
                external_id=str(k),
                position=k,
                source_tokens=source,
                target_tokens=[w.upper() for w in source[::-1]],
            )
        )
    SentencePair.objects.bulk_create(pairs)
