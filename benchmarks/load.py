"""Load: N annotators autosaving at once, against the production shape (issue 10).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/5 \\
        .venv/bin/python benchmarks/load.py [--users 50] [--duration 300] [--workers 4]

Needs ``pip install -r requirements-bench.txt`` (Locust). DATABASE_URL names the PostgreSQL
server: the benchmark creates a fresh database ``gridalign_load_<pid>``, and drops it at the
end whatever happens. It starts, on loopback, gunicorn (``--workers`` sync workers) and a
Celery worker on that database and Redis, with DEBUG off and a SECRET_KEY from the environment
(the production shape), creates a project with N annotators and ``--pairs`` assigned pairs
each, then runs Locust headless (``benchmarks/locustfile.py``): every simulated annotator
logs in through the login form, opens pairs and autosaves every 2 s with the version the
server last gave it (409s followed honestly), and asks /healthz every other tick.

Afterwards every acknowledged save (a 200 with its version and links) is looked up among the
AnnotationRevision rows. Printed: saves acknowledged, revisions found, lost saves (acknowledged
but not stored: must be 0), 5xx (must be 0), p50/p95 save latency, and the same latencies of
/healthz — a trivial view (one query, one Redis ping) under the same load — as the anchor, and
their ratio. Goal: 50 annotators for 5 minutes, 0 lost, 0 5xx, save p95 <= 100 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pgadmin import admin, with_database  # noqa: E402 - the throwaway-database helpers

from tests.faults.processes import (  # noqa: E402 - after the path is set
    WebServer,
    app_env,
    django_script,
    prepare,
    wait_until,
)

TARGET_P95_MS = 100.0

SETUP = """
import json, random
from django.contrib.auth import get_user_model
from annotator.models import Assignment, Membership, Project, SentencePair
rng = random.Random(5)
vocab = [f"w{{k}}" for k in range(2000)]
project = Project.objects.create(name="load benchmark")
User = get_user_model()
people, pairs, position = [], [], 0
for n in range({users}):
    name = f"annotator{{n:03d}}"
    user = User.objects.create_user(name, password="{password}")
    Membership.objects.create(project=project, user=user, role="annotator")
    people.append(user)
for user in people:
    for k in range({pairs}):
        source = rng.choices(vocab, k=rng.randint(12, 30))
        target = rng.choices(vocab, k=rng.randint(12, 30))
        pairs.append(SentencePair(project=project, external_id=f"p{{position}}", position=position,
                                  source_tokens=source, target_tokens=target))
        position += 1
SentencePair.objects.bulk_create(pairs, batch_size=2000)
stored = list(SentencePair.objects.filter(project=project).order_by("position"))
Assignment.objects.bulk_create(
    [Assignment(pair=pair, annotator=people[i // {pairs}]) for i, pair in enumerate(stored)],
    batch_size=2000,
)
print(json.dumps([{{"username": u.username, "password": "{password}"}} for u in people]))
"""


def stored_revisions(url: str) -> dict[tuple[int, int], list]:
    import psycopg2

    conn = psycopg2.connect(url)
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT a.assignment_id, r.version, r.links FROM annotator_annotationrevision r "
                "JOIN annotator_annotation a ON a.id = r.annotation_id"
            )
            return {(a, v): links for a, v, links in cur.fetchall()}
    finally:
        conn.close()


class CeleryWorker:
    def __init__(self, env: dict[str, str]) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "gridalign", "worker", "--concurrency", "1",
             "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()
        wait_until(
            lambda: any(" ready." in line for line in self.lines) or self.process.poll(),
            timeout=120,
            what="the Celery worker",
        )
        if self.process.poll() is not None:
            raise RuntimeError("the Celery worker exited:\n" + "\n".join(self.lines[-40:]))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip())

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)


def percentiles(values: list[float]) -> tuple[float, float]:
    import numpy as np

    if not values:
        return float("nan"), float("nan")
    p50, p95 = np.percentile(np.asarray(values), [50, 95])
    return float(p50), float(p95)


def run(args: argparse.Namespace, database_url: str, broker: str, folder: Path) -> int:
    env = app_env(
        database_url=database_url,
        var_dir=folder,
        CELERY_BROKER_URL=broker,
        SECRET_KEY=os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50),
    )
    print(f"setting up: migrate, {args.users} annotators x {args.pairs} assigned pairs ...")
    prepare(env)
    credentials = django_script(
        env, SETUP.format(users=args.users, pairs=args.pairs, password=secrets.token_urlsafe(12))
    )
    (folder / "credentials.json").write_text(json.dumps(credentials))
    worker = CeleryWorker(env)
    server = WebServer(env, workers=args.workers, access_log=False)
    server.start()
    try:
        locust_env = dict(
            env,
            LOAD_CREDENTIALS=str(folder / "credentials.json"),
            LOAD_RESULT=str(folder / "result.json"),
            LOAD_SAVE_INTERVAL=str(args.interval),
            LOAD_DURATION=str(args.duration),
        )
        load_before = os.getloadavg()
        print(
            f"running: {args.users} annotators for {args.duration} s against gunicorn "
            f"({args.workers} workers) at {server.url}; load average before {load_before[0]:.1f}"
        )
        samples: list[float] = []
        stop = threading.Event()

        def sample_load() -> None:
            while not stop.wait(10):
                samples.append(os.getloadavg()[0])

        threading.Thread(target=sample_load, daemon=True).start()
        subprocess.run(
            [sys.executable, "-m", "locust", "-f", str(REPO / "benchmarks" / "locustfile.py"),
             "--headless", "-u", str(args.users), "-r", str(args.spawn_rate),
             # the locustfile stops the run --duration s after the last login; -t is a backstop
             "-t", f"{args.duration + 900}s", "-H", server.url, "--only-summary",
             "--stop-timeout", "10", "--loglevel", "WARNING"],
            cwd=REPO, env=locust_env, check=False, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        stop.set()
    finally:
        server.stop()
        worker.stop()

    result = json.loads((folder / "result.json").read_text())
    stored = stored_revisions(database_url)
    acknowledged = result["acknowledged"]
    lost = [(a, v) for a, v, links in acknowledged if stored.get((a, v)) != links]
    statuses = result["status"]
    errors_5xx = sum(n for key, n in statuses.items() if key.split()[-1].startswith("5"))
    other = {k: n for k, n in statuses.items() if not k.split()[-1].startswith(("2", "3", "5"))}
    save_p50, save_p95 = percentiles(result["latency"].get("save", []))
    anchor_p50, anchor_p95 = percentiles(result["latency"].get("healthz", []))
    open_p50, open_p95 = percentiles(result["latency"].get("open", []))
    login_p50, _ = percentiles(result["ramp_up"].get("login", []))
    ramp_saves = len(result["ramp_up"].get("save", []))
    load_avg = sum(samples) / len(samples) if samples else os.getloadavg()[0]
    cores = os.cpu_count() or 1

    print(f"load benchmark: {args.users} annotators, autosave every {args.interval:g} s, "
          f"{args.duration} s after all logged in, gunicorn {args.workers} workers + PostgreSQL + Redis + Celery")  # fmt: skip
    measured = result["measured_seconds"] or float("nan")
    steady = len(result["latency"].get("save", []))
    print(f"  saves acknowledged:      {len(acknowledged):8d}  "
          f"({steady / measured:.1f} saves/s over {measured:.0f} s after the last login)")  # fmt: skip
    print(f"  revisions found in DB:   {len(stored):8d}")
    print(f"  lost saves:              {len(lost):8d}  (must be 0)")
    print(f"  5xx answers:             {errors_5xx:8d}  (must be 0)")
    print(f"  409s followed:           {result['conflicts']:8d};  503 retries: {result['retries']}")
    if other:
        print(f"  other answers:           {other}")
    print(f"  latencies once all {args.users} are logged in ({ramp_saves} saves during the "
          f"logins left out; login p50 {login_p50:.0f} ms: password hashing):")  # fmt: skip
    print(f"  save latency    p50 {save_p50:7.1f} ms   p95 {save_p95:7.1f} ms")
    print(f"  open pair       p50 {open_p50:7.1f} ms   p95 {open_p95:7.1f} ms")
    print(f"  anchor /healthz p50 {anchor_p50:7.1f} ms   p95 {anchor_p95:7.1f} ms")
    print(f"  ratio save / healthz: p50 {save_p50 / anchor_p50:.1f}x   p95 {save_p95 / anchor_p95:.1f}x")  # fmt: skip
    print(f"  machine: {cores} cores, load average during the run {load_avg:.1f} "
          f"(other processes share the machine; Locust runs on it too)")  # fmt: skip
    ok = not lost and errors_5xx == 0 and save_p95 <= TARGET_P95_MS
    print(
        f"  goal: 0 lost, 0 5xx, save p95 <= {TARGET_P95_MS:.0f} ms -> {'met' if ok else 'NOT met'}"
    )
    return 0 if not lost and errors_5xx == 0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=50, help="simulated annotators (50)")
    parser.add_argument("--duration", type=int, default=300, help="seconds of load (300)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers (4)")
    parser.add_argument("--pairs", type=int, default=20, help="assigned pairs per annotator")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between autosaves")
    parser.add_argument("--spawn-rate", type=float, default=10, help="users started per second")
    args = parser.parse_args()

    server_url = os.environ.get("DATABASE_URL", "")
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not server_url.startswith(("postgres://", "postgresql://")) or not broker.startswith(
        "redis://"
    ):
        print("set DATABASE_URL=postgres://... (the benchmark makes its own database) and "
              "CELERY_BROKER_URL=redis://...")  # fmt: skip
        return 2
    name = f"gridalign_load_{os.getpid()}"
    admin(server_url, f'CREATE DATABASE "{name}"')
    try:
        with tempfile.TemporaryDirectory(prefix="gridalign-load-") as folder:
            return run(args, with_database(server_url, name), broker, Path(folder))
    finally:
        admin(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    sys.exit(main())
