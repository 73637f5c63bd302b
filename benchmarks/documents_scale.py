"""Documents at scale: the web process during a big upload, and a zip of many document pairs
aligned by parallel Celery tasks.

    CELERY_BROKER_URL=redis://127.0.0.1:6379/5 \\
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python benchmarks/documents_scale.py [--data DIR] [--mb 19] [--pairs 1000]
        [--only upload|zip]

* upload: gunicorn (one sync worker, DEBUG off) on a fresh SQLite database; two generated
  one-sentence-per-line documents of ``--mb`` MB each (Text+Berg dev's gold beads drawn at
  random, as ``benchmarks/sentalign.py`` does) are POSTed to the documents API. The web
  worker's resident set is sampled every 20 ms; its peak during the request is printed
  beside its idle RSS after a warm-up request in the same run (the anchor), their ratio and
  difference. Goal: the web process stays <= 200 MB.
* zip: ``--pairs`` document pairs (20 to 60 sentences a side, from Text+Berg dev) in one zip,
  one member of which is corrupt, uploaded through the same API, then aligned by 1 and then
  2 Celery worker processes (concurrency 1 each) on PostgreSQL (a throwaway database on
  DATABASE_URL's server) and Redis (CELERY_BROKER_URL: use your own db number). Printed:
  the web worker's peak during the zip upload, the job's wall time with 1 worker (the
  anchor) and with 2, the speedup, how many distinct progress values the bar showed, and the
  failed member as the job's result names it. Skipped without DATABASE_URL or a Redis broker.

Each figure is printed with the load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import secrets
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import psutil
import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).parent))

from load import CeleryWorker  # noqa: E402
from pgadmin import admin, with_database  # noqa: E402
from sentalign import data_dir, read_textberg, synthetic  # noqa: E402

from tests.faults.processes import WebServer, app_env, django_script, manage  # noqa: E402

GOAL_WEB_MB = 200

SETUP = """
import json
from django.contrib.auth import get_user_model
from annotator.accounts.services.tokens import create_token
from annotator.models import Membership, Project
user = get_user_model().objects.create_user("lead", password="{password}")
project = Project.objects.create(name="documents benchmark {tag}")
Membership.objects.create(project=project, user=user, role="lead")
_, key = create_token(user=user, name="benchmark")
print(json.dumps({{"project": project.pk, "key": key}}))
"""


# The align job of the uploaded pair, run as a worker runs it, in a fresh process: its peak
# RSS beside the same process's RSS before the job (Django and the task modules loaded).
WORKER = """
import json, resource, time
import annotator.tasks  # noqa: F401 - what a worker has loaded
from annotator.jobs.runner import run_job
from annotator.models import Bead, Job
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
run_job({job})
secs = time.perf_counter() - t0
job = Job.objects.get(pk={job})
print(json.dumps({{"base_mb": base, "seconds": secs, "status": job.status,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "beads": Bead.objects.count(), "error": job.error[:300]}}))
"""


def _load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


class RssSampler:
    """Peak RSS (MB) of the gunicorn workers (the master's children), sampled every 20 ms."""

    def __init__(self, master_pid: int) -> None:
        self.master = psutil.Process(master_pid)
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def now(self) -> float:
        return max((c.memory_info().rss for c in self.master.children()), default=0) / 2**20

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            with contextlib.suppress(psutil.Error):
                self.peak = max(self.peak, self.now())

    def __enter__(self) -> RssSampler:
        self.peak = self.now()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def write_documents(folder: Path, data: Path, megabytes: float) -> tuple[Path, Path, int]:
    # drawing stops when the (longer) target side has this many sentences, ~111 bytes each
    sentences = int(megabytes * 2**20 / 112)
    src, tgt, _ = synthetic(data, sentences)
    paths = folder / "big.de", folder / "big.fr"
    for path, lines in zip(paths, (src, tgt), strict=True):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths[0], paths[1], len(src)


def make_zip(data: Path, pairs: int, seed: int = 3) -> bytes:
    src, tgt, gold = read_textberg(data)
    rng = random.Random(seed)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
        for k in range(pairs):
            de = fr = []
            while not de or not fr:  # a slice of null beads only would be an empty document
                start = rng.randrange(0, len(gold) - 60)
                beads = gold[start : start + rng.randint(20, 60)]
                de = [src[i] for a, _ in beads for i in a]
                fr = [tgt[j] for _, b in beads for j in b]
            if k == pairs // 2:
                fr[0] = "CORRUPT " + fr[0]
            z.writestr(f"doc{k:04d}.de", "\n".join(de) + "\n")
            z.writestr(f"doc{k:04d}.fr", "\n".join(fr) + "\n")
    raw = buf.getvalue()
    at = raw.index(b"CORRUPT")  # the member's CRC no longer matches its bytes
    return raw[:at] + b"c" + raw[at + 1 :]


def post(server: WebServer, who: dict, files: dict, timeout: float = 600) -> requests.Response:
    return requests.post(
        f"{server.url}/api/projects/{who['project']}/documents/",
        headers={"Authorization": f"Token {who['key']}"},
        data={"source_language": "de", "target_language": "fr"},
        files=files,
        timeout=timeout,
    )


def upload_figures(server: WebServer, who: dict, files_of, label: str) -> dict:
    requests.get(f"{server.url}/healthz", timeout=10)
    requests.get(
        f"{server.url}/api/projects/{who['project']}/documents/",
        headers={"Authorization": f"Token {who['key']}"},
        timeout=30,
    )  # warm-up: the documents API's modules are loaded
    sampler = RssSampler(server.process.pid)
    idle = sampler.now()
    with sampler:
        t0 = time.perf_counter()
        with files_of() as files:
            answer = post(server, who, files)
        secs = time.perf_counter() - t0
    ok = answer.status_code == 202
    print(
        f"  {label}: HTTP {answer.status_code} in {secs:.1f} s; web worker peak "
        f"{sampler.peak:.0f} MB, idle anchor {idle:.0f} MB (x{sampler.peak / idle:.2f}, "
        f"+{sampler.peak - idle:.0f} MB); goal <= {GOAL_WEB_MB} MB: "
        f"{'met' if ok and sampler.peak <= GOAL_WEB_MB else 'NOT met'}; load {_load()}"
    )
    return {"status": answer.status_code, "seconds": secs, "peak_mb": sampler.peak,
            "idle_mb": idle, "answer": answer.json() if ok else answer.text[:300]}  # fmt: skip


class _OpenFiles:
    def __init__(self, **paths: Path) -> None:
        self.paths = paths
        self.handles: dict = {}

    def __enter__(self) -> dict:
        self.handles = {k: (p.name, open(p, "rb")) for k, p in self.paths.items()}  # noqa: SIM115 - closed in __exit__
        return self.handles

    def __exit__(self, *exc) -> None:
        for _, fh in self.handles.values():
            fh.close()


def bench_upload(args, data: Path, folder: Path) -> dict:
    env = app_env(database_url=f"sqlite:///{folder / 'db.sqlite3'}", var_dir=folder / "var")
    print(f"upload: migrating a fresh SQLite database, writing two {args.mb} MB documents ...")
    manage(env, "migrate", "--no-input", timeout=900)  # the API needs no static files
    who = django_script(env, SETUP.format(password=secrets.token_urlsafe(12), tag="upload"))
    de, fr, n = write_documents(folder, data, args.mb)
    sizes = f"{de.stat().st_size / 2**20:.1f} + {fr.stat().st_size / 2**20:.1f} MB"
    server = WebServer(env, workers=1, access_log=False)
    server.start()
    try:
        up = upload_figures(
            server, who, lambda: _OpenFiles(source=de, target=fr),
            f"two one-sentence-per-line documents ({sizes}, {n:,} sentences a side)",
        )  # fmt: skip
    finally:
        server.stop()
    if up["status"] == 202:
        job = up["answer"]["job"]["id"]
        worker = django_script(env, WORKER.format(job=job), timeout=3600)
        print(
            f"  the align job in a worker process: {worker['status']} in {worker['seconds']:.0f} s"
            f", {worker['beads']:,} beads; peak {worker['peak_mb']:.0f} MB, the same process "
            f"before the job {worker['base_mb']:.0f} MB (x{worker['peak_mb'] / worker['base_mb']:.1f}"
            f"); goal <= 1024 MB: {'met' if worker['peak_mb'] <= 1024 else 'NOT met'}; "
            f"load {_load()} {worker['error']}"
        )
        up["worker"] = worker
    return up


def _watch(database_url: str, job_id: int, timeout: float) -> tuple[float, set[int], dict]:
    import psycopg2

    seen: set[int] = set()
    t0 = time.perf_counter()
    with psycopg2.connect(database_url) as conn:
        conn.autocommit = True
        while time.perf_counter() - t0 < timeout:
            with conn.cursor() as cur:
                cur.execute("SELECT status, progress, result FROM annotator_job WHERE id = %s",
                            [job_id])  # fmt: skip
                status, progress, result = cur.fetchone()
            seen.add(progress)
            if status in ("succeeded", "failed"):
                return time.perf_counter() - t0, seen, {"status": status, "result": result}
            time.sleep(0.1)
    return time.perf_counter() - t0, seen, {"status": "timeout"}


def bench_zip(args, data: Path, folder: Path, database_url: str, broker: str) -> dict:
    env = app_env(database_url=database_url, var_dir=folder / "var-zip", CELERY_BROKER_URL=broker)
    print(f"zip: {args.pairs} document pairs, PostgreSQL + Redis, migrating ...")
    manage(env, "migrate", "--no-input", timeout=900)  # the API needs no static files
    archive = folder / "docs.zip"
    archive.write_bytes(make_zip(data, args.pairs))
    out = {}
    server = WebServer(env, workers=1, access_log=False)
    server.start()
    try:
        for workers in (1, 2):
            who = django_script(env, SETUP.format(password="x" * 16, tag=workers).replace(
                'create_user("lead"', f'create_user("lead{workers}"'))  # fmt: skip
            size = f"{archive.stat().st_size / 2**20:.1f} MB"
            up = upload_figures(server, who, lambda: _OpenFiles(archive=archive),
                                f"zip of {args.pairs} pairs ({size})")  # fmt: skip
            started = [CeleryWorker(env) for _ in range(workers)]
            try:
                job_id = up["answer"]["job"]["id"]
                secs, seen, end = _watch(database_url, job_id, timeout=3600)
            finally:
                for w in started:
                    w.stop()
            result = end.get("result") or {}
            out[workers] = {"seconds": secs, "progress_values": len(seen), **end, "upload": up}
            print(
                f"  {workers} worker(s): job {end['status']} in {secs:.1f} s; "
                f"{result.get('aligned')} aligned, {result.get('beads')} beads, failed "
                f"{[f['document_pair'] + ': ' + f['error'] for f in result.get('failed', [])]}"
                f"; {len(seen)} distinct progress values; load {_load()}"
            )
    finally:
        server.stop()
    if all(out.get(k, {}).get("status") == "succeeded" for k in (1, 2)):
        print(f"  speedup 2 workers / 1 (the anchor): x{out[1]['seconds'] / out[2]['seconds']:.2f}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--mb", type=float, default=19.0, help="each document (<= 20 allowed)")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--only", choices=("upload", "zip"))
    ap.add_argument("--json")
    args = ap.parse_args()
    data = data_dir(args.data)
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="gridalign-documents-") as tmp:
        folder = Path(tmp)
        if args.only in (None, "upload"):
            results["upload"] = bench_upload(args, data, folder)
        database_url = os.environ.get("DATABASE_URL", "")
        broker = os.environ.get("CELERY_BROKER_URL", "")
        if args.only in (None, "zip"):
            if database_url.startswith("postgres") and broker.startswith("redis"):
                name = f"gridalign_bench_documents_{os.getpid()}"
                admin(database_url, f"CREATE DATABASE {name}")
                try:
                    url = with_database(database_url, name)
                    results["zip"] = bench_zip(args, data, folder, url, broker)
                finally:
                    admin(database_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            else:
                print("zip: skipped (needs DATABASE_URL=postgres://... and a Redis broker)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
