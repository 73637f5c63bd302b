"""A big project from end to end through the product: imported, seeded over Celery workers,
opened by an annotator, and its gold exported. Each step's wall time and peak RSS per process.

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://127.0.0.1:6379/N \\
      .venv/bin/python benchmarks/scale_endtoend.py --pairs 1000000 [--workers 2] [--keep]
        [--tsv PAIRS.tsv]

The steps, each in the processes that run it in production:

1. **import**: a synthetic TSV of ``--pairs`` pairs (``benchmarks/import.py``'s generator; its
   first ``--sample`` pairs in a subcorpus ``sample``, the rest in ``bulk``) through
   ``import_file``, in a fresh process (as the import job runs it);
2. **seed**: one seed job of the whole project, chunked over ``--workers`` fresh Celery workers
   (``benchmarks/scale_seeding.py``'s machinery; peak RSS of each worker's pool process);
3. **assign**: the assignment plan of the ``sample`` subcorpus to one annotator (the service the
   Assign page calls), in a fresh process;
4. **open**: the annotator opens their first pair (the grid page, then its data and seed, through
   Django's test client: the whole middleware stack) and submits ``--submit`` pairs through the
   API, each of which becomes gold, in a fresh process;
5. **export**: ``manage.py export_gold`` of the project (JSONL), in a fresh process.

Prints one line a step: seconds, peak RSS of each process, load average. Needs PostgreSQL and
Redis. The project is deleted at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

NAME = "scale end to end"
# the steps run with DEBUG off (production's settings) over plain HTTP
STEP_ENV = {"DEBUG": "false", "SECURE_SSL_REDIRECT": "false", "SESSION_COOKIE_SECURE": "false",
            "CSRF_COOKIE_SECURE": "false", "SECURE_HSTS_SECONDS": "0"}  # fmt: skip


def write_tsv(path: Path, n: int, sample: int) -> None:
    """``n`` pairs (``import.py``'s synthetic pairs); the first ``sample`` in ``sample``."""
    importlib.import_module("import").synthetic_tsv(path, n, seed=1)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    with path.open("w", encoding="utf-8") as fh:
        fh.write(lines[0])
        for k, line in enumerate(lines[1:]):
            head, _sub = line.rstrip("\n").rsplit("\t", 1)
            fh.write(f"{head}\t{'sample' if k < sample else 'bulk'}\n")


def child(step: str, *args: str) -> dict:
    """Run ``step`` of this script in a fresh process; its JSON line, with the load."""
    out = subprocess.run(
        [sys.executable, __file__, "--step", step, *args], cwd=REPO, capture_output=True,
        text=True, check=False, env={**os.environ, **STEP_ENV},
    )  # fmt: skip
    if out.returncode:
        raise SystemExit(f"step {step} failed:\n{out.stdout}\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["load"] = os.getloadavg()[0]
    return result


def step_import(path: str) -> dict:
    from annotator.corpora.services.importing import import_file
    from annotator.models import Project

    project = Project.objects.create(name=NAME)
    report = import_file(project=project, path=path, fmt="tsv")
    return {"project": project.pk, "pairs": report.pairs_created}


def step_assign(project_id: str) -> dict:
    from django.contrib.auth import get_user_model

    from annotator.models import Assignment, Membership, Project
    from annotator.projects.services.assignment import AssignmentRequest, apply_assignment

    project = Project.objects.get(pk=int(project_id))
    users = get_user_model().objects
    lead = users.create_user(f"e2e-lead-{project.pk}", password=secrets.token_urlsafe(16))
    annotator = users.create_user(f"e2e-ann-{project.pk}", password=secrets.token_urlsafe(16))
    Membership.objects.create(project=project, user=lead, role="lead")
    Membership.objects.create(project=project, user=annotator, role="annotator")
    request = AssignmentRequest(annotator_ids=(annotator.pk,), share=0.0, random_seed=1,
                                subcorpora=("sample",))  # fmt: skip
    apply_assignment(project=project, request=request, created_by=lead)
    given = Assignment.objects.filter(annotator=annotator).count()
    return {"assignments": given, "annotator": annotator.pk}


def step_open(annotator_id: str, submit: str) -> dict:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from annotator.grid.selectors.queue import resume_assignment
    from annotator.models import Project

    settings.ALLOWED_HOSTS = ["testserver"]
    settings.STORAGES = {  # no collected static files needed to render a page
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    user = get_user_model().objects.get(pk=int(annotator_id))
    project = Project.objects.get(name=NAME)
    client = Client()
    client.force_login(user)
    figures = {}
    for k in range(int(submit)):
        assignment = resume_assignment(user=user, project=project)
        times = []
        for url in (f"/annotate/{assignment.pk}/", f"/api/assignments/{assignment.pk}/",
                    f"/api/assignments/{assignment.pk}/seed/"):  # fmt: skip
            t0 = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - t0)
            assert response.status_code == 200, (url, response.status_code)
        seed = response.json()["seed"]
        links = seed["links"] if seed else []
        t0 = time.perf_counter()
        response = client.post(f"/api/assignments/{assignment.pk}/submit/",
                               {"version": 0, "links": links}, content_type="application/json")  # fmt: skip
        assert response.status_code == 200, response.content[:300]
        if k == 0:
            figures = {"grid page": times[0], "grid data": times[1], "seed": times[2],
                       "submit": time.perf_counter() - t0}  # fmt: skip
    return figures


def run_step(step: str, args: list[str]) -> None:
    """(in a fresh process) one step; prints its JSON line with seconds and peak RSS."""
    import django

    django.setup()
    t0 = time.perf_counter()
    if step == "import":
        result = step_import(*args)
    elif step == "assign":
        result = step_assign(*args)
    elif step == "open":
        result = step_open(*args)
    else:
        raise SystemExit(f"unknown step {step!r}")
    result["seconds"] = time.perf_counter() - t0
    result["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def export(out: Path) -> dict:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c",
         "import resource, sys, django; django.setup(); from django.core.management import "
         "call_command; call_command('export_gold', '--project', sys.argv[1], '-o', sys.argv[2]);"
         " print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)", NAME, str(out)],
        cwd=REPO, capture_output=True, text=True, check=False, env={**os.environ, **STEP_ENV},
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"export failed:\n{done.stdout}\n{done.stderr}")
    rss = float(done.stdout.strip().splitlines()[-1])
    lines = sum(1 for _ in out.open(encoding="utf-8"))
    return {"seconds": time.perf_counter() - t0, "rss_mb": rss, "gold": lines,
            "load": os.getloadavg()[0]}  # fmt: skip


def line(name: str, r: dict, extra: str = "") -> None:
    rss = r["rss_mb"] if isinstance(r["rss_mb"], list) else [r["rss_mb"]]
    peaks = " / ".join(f"{x:,.0f}" for x in rss)
    print(f"  {name:8} {r['seconds']:9.1f} s  peak RSS {peaks} MB  load {r['load']:.1f}  {extra}",
          flush=True)  # fmt: skip


def run(args: argparse.Namespace, work: Path) -> None:
    tsv = Path(args.tsv) if args.tsv else work / "pairs.tsv"
    t0 = time.perf_counter()
    if not tsv.exists():
        write_tsv(tsv, args.pairs, args.sample)
    size = tsv.stat().st_size / 1e6
    print(f"end to end, {args.pairs:,} pairs ({size:,.1f} MB TSV, written or found in "
          f"{time.perf_counter() - t0:.0f} s); load {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs", flush=True)  # fmt: skip
    subprocess.run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=REPO,
                   check=True)  # fmt: skip
    r = child("import", str(tsv))
    line("import", r, f"{r['pairs']:,} pairs")
    import django

    django.setup()
    import scale_seeding

    from annotator.models import Project

    project = Project.objects.get(pk=r["project"])
    chunk = args.chunk or min(50_000, max(1, -(-args.pairs // 4)))
    seeded = scale_seeding.run_workers(project, args.workers, chunk, work)
    seeded["load"] = os.getloadavg()[0]
    line("seed", seeded, f"{args.workers} workers, chunks of {chunk:,} pairs")
    r = child("assign", str(project.pk))
    line("assign", r, f"{r['assignments']:,} assignments")
    opened = child("open", str(r["annotator"]), str(args.submit))
    requests = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in opened.items()
                         if k not in ("seconds", "rss_mb", "load"))  # fmt: skip
    line("open", opened, f"{args.submit} pairs opened and submitted; the first: {requests}")
    r = export(work / "gold.jsonl")
    line("export", r, f"{r['gold']:,} gold pairs (JSONL)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--sample", type=int, default=1_000, help="pairs in 'sample' (assigned)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, help="SEED_CHUNK_PAIRS (default: pairs / 4)")
    parser.add_argument("--submit", type=int, default=20, help="pairs the annotator submits")
    parser.add_argument("--keep-db", metavar="NAME", help="use (and keep) this database")
    parser.add_argument("--tsv", help="the pairs file: written there if missing, else reused "
                        "(it must hold --pairs pairs, --sample of them in 'sample')")  # fmt: skip
    parser.add_argument("--step", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridalign.settings")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    if args.step:
        run_step(args.step, rest)
        return 0
    from pgadmin import admin, postgres_server, throwaway_database, with_database

    server = postgres_server()
    if server is None or not os.environ.get("CELERY_BROKER_URL"):
        print("set DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://...")
        return 1
    with tempfile.TemporaryDirectory(prefix="gridalign-e2e-") as work:
        if args.keep_db:
            admin(server, f'CREATE DATABASE "{args.keep_db}"')
            os.environ["DATABASE_URL"] = with_database(server, args.keep_db)
            run(args, Path(work))
        else:
            with throwaway_database(server, "gridalign_bench_e2e"):
                run(args, Path(work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
