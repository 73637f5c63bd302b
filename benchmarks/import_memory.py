"""Peak memory of a big import (issue 30, finding 5): the web process's share of
``POST /api/projects/{id}/imports/`` and the worker's import job, on a generated TSV.

    .venv/bin/python benchmarks/import_memory.py [--mb 50] [--seed 1]

Goals: a 50 MB import with the web process at most 200 MB and the worker at most 1 GB peak.

Each figure is the peak resident set (``ru_maxrss``) of a fresh Python process that sets up
Django (SQLite file under a temporary folder, migrated once) and does one thing:

* ``baseline``: imports the same modules and does nothing: the floor (the anchor);
* ``web, today's code path``: stores the upload (as the view does, from the streamed temporary
  file Django's upload handlers write) and parses it whole, as the request did before;
* ``web, head check``: stores it and checks its head (``upload_head.check_upload``), as the
  request does now;
* ``worker``: runs the import job (dry run) on the stored upload, as a Celery worker does:
  the file is read and written ``IMPORT_CHUNK_PAIRS`` (5,000) pairs at a time, in one
  transaction;
* ``worker, real run``: the same job committing its pairs (not a dry run);
* ``worker, whole parse``: the dry-run job with the whole file as one chunk
  (``IMPORT_CHUNK_PAIRS`` = 10^9), i.e. every pair held at once as the worker did before.

Every process loads ``annotator.tasks`` as a worker does; numba, scipy and scikit-learn are
imported lazily (only by the code that runs kernels), so the baseline is an idle Django
process as a web worker runs it.

The multipart parsing of the request itself is left out (Django's handlers stream it to disk in
64 KB chunks). Printed: each figure, the baseline anchor, their ratio and difference, and
the old/new ratio for the web process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOAL_WEB_MB = 200
GOAL_WORKER_MB = 1024

CHILD = r"""
import json, resource, sys, time
import django
django.setup()
import annotator.tasks  # noqa: F401 - what a worker has loaded
from pathlib import Path
mode, path = sys.argv[1], Path(sys.argv[2])
from django.contrib.auth import get_user_model
from annotator.models import Project
from annotator.corpora.services import uploads
from annotator.corpora.services.importing import read_source
from annotator.jobs.runner import run_job
from annotator.corpora.services.upload_head import check_upload
t0 = time.perf_counter()
if mode != "baseline":

    def chunks():
        with open(path, "rb") as fh:
            while block := fh.read(64 * 1024):
                yield block

    folder, names = uploads.store_upload(files={"file": (path.name, chunks())})
    source = uploads.import_source(folder=folder, names=names, options={})
    if mode == "web-old":
        read_source(source)
    elif mode == "web-new":
        check_upload(source)
    elif mode.startswith("worker"):
        lead = get_user_model().objects.get_or_create(username="bench-lead")[0]
        project = Project.objects.get_or_create(name="bench-" + mode)[0]
        job = uploads.start_import_job(project=project, user=lead, folder=folder, names=names,
                                       options={"dry_run": mode != "worker-real"})
        run_job(job.pk)
        job.refresh_from_db()
        assert job.status == "succeeded", job.error
    uploads.delete_upload(folder)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
print(json.dumps({"peak_mb": peak, "seconds": time.perf_counter() - t0}))
"""


def synthetic_tsv(path: Path, megabytes: float, seed: int) -> int:
    """Pairs of 4-16 tokens until the file holds ``megabytes`` MB; returns how many."""
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(3000)]
    limit, size, n = int(megabytes * 1e6), 0, 0
    with path.open("w", encoding="utf-8") as fh:
        while size < limit:
            src = rng.choices(vocab, k=rng.randint(4, 16))
            tgt = src[:]
            tgt[rng.randrange(len(tgt))] = rng.choice(vocab)
            line = f"p{n}\t{' '.join(src)}\t{' '.join(tgt)}\n"
            fh.write(line)
            size += len(line)
            n += 1
    return n


def measure(mode: str, path: Path, env: dict[str, str]) -> dict:
    if mode == "worker-whole":
        env = {**env, "IMPORT_CHUNK_PAIRS": str(10**9)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{mode} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of the generated TSV")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-old", action="store_true", help="skip the whole-parse figures")
    parser.add_argument("--skip-real", action="store_true", help="skip the committing import")
    parser.add_argument("--modes", help="only these modes, comma-separated (baseline always)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gridalign-memory-") as tmp:
        tmp_path = Path(tmp)
        env = dict(os.environ)
        env.update(
            DJANGO_SETTINGS_MODULE="gridalign.settings",
            DATABASE_URL=f"sqlite:///{tmp_path / 'bench.sqlite3'}",
            GRIDALIGN_VAR_DIR=str(tmp_path / "var"),
            SECRET_KEY=secrets.token_urlsafe(50),
            DEBUG="false",
            SEED_MODEL_PRELOAD="false",
        )
        env.pop("CELERY_BROKER_URL", None)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
            cwd=REPO, env=env, check=True,
        )  # fmt: skip
        path = tmp_path / "pairs.tsv"
        pairs = synthetic_tsv(path, args.mb, args.seed)
        size = path.stat().st_size / 1e6
        print(f"input: {size:.1f} MB TSV, {pairs:,} pairs (dry-run import)")
        modes = ["baseline", "web-new", "worker"]
        modes += [] if args.skip_real else ["worker-real"]
        modes += [] if args.skip_old else ["web-old", "worker-whole"]
        if args.modes:
            modes = ["baseline", *(m for m in args.modes.split(",") if m != "baseline")]
        results = {}
        for mode in modes:
            t0 = time.perf_counter()
            results[mode] = measure(mode, path, env)
            print(f"  measured {mode}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    base = results["baseline"]["peak_mb"]
    print(f"anchor  baseline Django process      {base:8.0f} MB peak")
    rows = [
        ("web, head check (now)", "web-new", GOAL_WEB_MB),
        ("web, parse whole (before)", "web-old", GOAL_WEB_MB),
        ("worker, import job (dry run)", "worker", GOAL_WORKER_MB),
        ("worker, import job (real run)", "worker-real", GOAL_WORKER_MB),
        ("worker, whole parse (before)", "worker-whole", GOAL_WORKER_MB),
    ]
    for label, mode, goal in rows:
        if mode not in results:
            continue
        peak = results[mode]["peak_mb"]
        grows = mode != "web-new"  # the head check reads 256 KB whatever the size
        extra = base + (peak - base) * 50 / args.mb
        scaled = f", ~{extra:.0f} MB at 50 MB if linear" if args.mb != 50 and grows else ""
        print(
            f"figure  {label:30s} {peak:8.0f} MB peak  = {peak / base:.2f}x baseline "
            f"(+{peak - base:.0f} MB){scaled}; goal at 50 MB <= {goal} MB; "
            f"{results[mode]['seconds']:.1f} s"
        )
    if "web-old" in results and "web-new" in results:
        ratio = results["web-old"]["peak_mb"] / results["web-new"]["peak_mb"]
        print(f"ratio   web before / web now: {ratio:.1f}x")
    if "worker-whole" in results and "worker" in results:
        ratio = results["worker-whole"]["peak_mb"] / results["worker"]["peak_mb"]
        print(f"ratio   worker before / worker now (dry run): {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
