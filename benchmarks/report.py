"""Agreement report speed: 1,000 doubly annotated pairs with J = 1,000 through the report job's
code path (target: under 30 s on this machine).

    .venv/bin/python benchmarks/report.py [--pairs 1000] [--samples 1000] [--anchor-samples 10]
        [--data DIR]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/report.py

With a PostgreSQL DATABASE_URL the benchmark creates a database ``gridalign_bench_<pid>`` on
that server and drops it at the end; without one it uses a temporary SQLite file. Either way it
migrates the fresh database and writes the project straight to it: ``--pairs`` pairs, each
with a seed and two submitted annotations (slots 1 and 2, one submit revision each), in the
subcorpora of their source.

Pairs: annotator A is the Edinburgh++ gold (train then test, ``edinburgh/gold.*.sure+poss.json``
with the sure files, the first ``--pairs`` of 1,020); B is A perturbed and the seed an
intersection-like subset of A's sure links (``benchmarks/agreement.py``'s ``perturb`` and
``seed_of``). Without the data folder the lengths are N, M ~ round(Normal(23, 9)) clipped to
[4, 50] with near-diagonal links (the same fallback as benchmarks/agreement.py).

The figure is the report job as the worker runs it: a ``report`` Job, then ``run_job`` (read the
final annotations and seeds, fingerprint them, ``build_report``, store the AgreementReport, the
job's progress and heartbeat) — what the Celery task calls, minus the broker. Anchors measured
in the same run on the same data:

* the same job with J = ``--anchor-samples`` (the cost of everything but the sampling);
* ``alignment_core.agreement.build_report`` alone on the same records with J = ``--samples``
  (the core's own time; the ratio says what the database and the job add).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.agreement import base_pairs, data_dir, perturb, seed_of  # noqa: E402
from benchmarks.pgadmin import POSTGRES_SCHEMES, throwaway_database  # noqa: E402

TARGET_SECONDS = 30.0


def edinburgh_pairs(folder: Path, count: int, rng: np.random.Generator) -> tuple[list, str]:
    """(id, subcorpus, source, target, Alignment A) and where they came from."""
    root = folder / "edinburgh"
    files = [(root / f"gold.{s}.sure+poss.json", root / f"gold.{s}.sure.json") for s in ("train", "test")]  # fmt: skip
    if all(both.is_file() and sure.is_file() for both, sure in files):
        from alignment_core.formats import read_pairs

        out = []
        for both, sure in files:
            for p in read_pairs(both, "edinburgh", sure_path=sure):
                out.append((p.id, p.subcorpus or "", p.source, p.target, p.alignment))
        out = out[:count]
        return out, f"Edinburgh++ gold (train + test, {root}), {len(out)} pairs"
    triples, source = base_pairs(folder, count, rng)  # benchmarks/agreement.py's fallback
    subs = ("mtc", "news", "novels")
    return [(f"p{k}", subs[k % 3], s, t, a) for k, (s, t, a) in enumerate(triples)], source


def write_project(pairs: list, rng: np.random.Generator):
    """The project with a seed and two submitted annotations per pair; returns (project,
    the PairAnnotations records as the report should see them)."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from alignment_core.agreement import PairAnnotations
    from annotator.models import (
        AlignerRun,
        Annotation,
        AnnotationRevision,
        Assignment,
        Project,
        SeedAlignment,
        SentencePair,
        Subcorpus,
    )

    User = get_user_model()
    now = timezone.now()
    with transaction.atomic():
        project = Project.objects.create(name="report benchmark")
        amy, bob = (User.objects.create_user(n) for n in ("amy", "bob"))
        run = AlignerRun.objects.create(project=project)
        subs = {
            s: Subcorpus.objects.create(project=project, name=s)
            for s in sorted({p[1] for p in pairs if p[1]})
        }
        rows = SentencePair.objects.bulk_create(
            [
                SentencePair(
                    project=project,
                    subcorpus=subs.get(sub),
                    external_id=pid,
                    position=k,
                    source_tokens=src,
                    target_tokens=tgt,
                )
                for k, (pid, sub, src, tgt, _a) in enumerate(pairs)
            ]  # fmt: skip
        )
        sides, seeds = [], []
        for (_pid, _sub, src, tgt, a), _row in zip(pairs, rows, strict=True):
            n, m = len(src), len(tgt)
            sides.append((a, perturb(a, n, m, rng)))
            seeds.append(seed_of(a, n, m, rng))
        seed_rows = SeedAlignment.objects.bulk_create(
            [
                SeedAlignment(pair=row, aligner_run=run, links=seed.to_links())
                for row, seed in zip(rows, seeds, strict=True)
            ]
        )
        assignments = Assignment.objects.bulk_create(
            [
                Assignment(
                    pair=row,
                    annotator=who,
                    slot=slot,
                    seed=seed_row,
                    status=Assignment.Status.SUBMITTED,
                    started_at=now,
                    submitted_at=now,
                )
                for row, seed_row in zip(rows, seed_rows, strict=True)
                for who, slot in ((amy, 1), (bob, 2))
            ]  # fmt: skip
        )
        links = [side.to_links() for pair_sides in sides for side in pair_sides]
        annotations = Annotation.objects.bulk_create(
            [
                Annotation(assignment=asg, links=lk, version=1)
                for asg, lk in zip(assignments, links, strict=True)
            ]
        )
        AnnotationRevision.objects.bulk_create(
            [
                AnnotationRevision(
                    annotation=ann,
                    version=1,
                    kind=AnnotationRevision.Kind.SUBMIT,
                    links=lk,
                    author=asg.annotator,
                    elapsed_seconds=30.0,
                )
                for ann, asg, lk in zip(annotations, assignments, links, strict=True)
            ],  # fmt: skip
            batch_size=2000,
        )
    records = [
        PairAnnotations(str(row.pk), sub, src, tgt, seed, {"amy": a, "bob": b})
        for (_pid, sub, src, tgt, _x), row, seed, (a, b) in zip(
            pairs, rows, seeds, sides, strict=True
        )
    ]
    return project, records


def run_report_job(project, samples: int) -> tuple[float, float, dict]:
    """Wall and CPU seconds of the report job as the worker runs it (``run_job``), and its
    report. CPU: this process's time (the job computes in this thread; the heartbeat thread
    only sleeps and writes a timestamp)."""
    from annotator.jobs.runner import run_job
    from annotator.models import AgreementReport, Job
    from annotator.reports.services import clean_params

    job = Job.objects.create(
        kind="report", project=project, params=clean_params({"samples": samples})
    )
    t0, c0 = time.perf_counter(), time.process_time()
    run_job(job.pk)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    job.refresh_from_db()
    if job.status != "succeeded":
        raise SystemExit(f"the report job failed: {job.error}")
    return seconds, cpu, AgreementReport.objects.get(job=job).result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--anchor-samples", type=int, default=10)
    parser.add_argument("--data", default=None)
    args = parser.parse_args()
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridalign.settings")
    return run_with_database(args, os.environ.get("DATABASE_URL", ""))


def run_with_database(args: argparse.Namespace, server: str) -> int:
    if server.startswith(POSTGRES_SCHEMES):
        with throwaway_database(server, "gridalign_bench") as url:
            name = urlsplit(url).path.lstrip("/")
            return run(args, f"PostgreSQL ({name} on {urlsplit(server).hostname})")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
        return run(args, "SQLite (a temporary file)")


def run(args: argparse.Namespace, where: str) -> int:
    import django

    django.setup()
    from django.core.management import call_command

    from alignment_core.agreement import build_report

    call_command("migrate", verbosity=0)
    rng = np.random.default_rng(1)
    pairs, source = edinburgh_pairs(data_dir(args.data), args.pairs, rng)
    project, records = write_project(pairs, rng)

    load = os.getloadavg()[0]
    t_job, c_job, result = run_report_job(project, args.samples)
    t_small, c_small, _ = run_report_job(project, args.anchor_samples)
    t0, c0 = time.perf_counter(), time.process_time()
    core = build_report(records, samples=args.samples, rng_seed=0, pairwise_kappa_c=False)
    t_core, c_core = time.perf_counter() - t0, time.process_time() - c0
    same = {k: v for k, v in result.items() if k != "inputs"} == core

    n = len(pairs)
    print(f"report benchmark: {n:,} doubly annotated pairs, J = {args.samples:,}, {where}")
    print(f"  pairs: {source}")
    print(f"  load average at the start: {load:.1f} on {os.cpu_count()} CPUs")
    print(f"  {'':62}{'wall':>9}{'CPU':>9}")
    rows = [
        ("report job (run_job: read, fingerprint, build_report, store)", t_job, c_job),
        (f"anchor: the same job, J = {args.anchor_samples}", t_small, c_small),
        (f"anchor: build_report alone, J = {args.samples:,}", t_core, c_core),
    ]
    for label, wall, cpu in rows:
        print(f"  {label:<62}{wall:8.2f}s{cpu:8.2f}s")
    print(
        f"  ratio job / job J={args.anchor_samples}: {t_job / t_small:.1f}x wall, "
        f"{c_job / c_small:.1f}x CPU;  job / build_report alone: {t_job / t_core:.2f}x wall, "
        f"{c_job / c_core:.2f}x CPU"
    )
    print(f"  stored report equals build_report on the same records: {same}")
    verdict = "PASS" if t_job < TARGET_SECONDS and same else "FAIL"
    print(f"  target: under {TARGET_SECONDS:.0f} s wall -> {verdict}")
    if verdict == "FAIL" and c_job < TARGET_SECONDS and load > (os.cpu_count() or 1):
        print(f"  (the job's own CPU time is {c_job:.1f} s: the machine was busy)")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
