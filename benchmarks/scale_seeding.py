"""Seeding a big synthetic project over 1 and 2 Celery workers (the chunked seeding of
``annotator.seeding.chunked``), beside seeding it in one process.

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://127.0.0.1:6379/N \\
      .venv/bin/python benchmarks/scale_seeding.py --pairs 100000 [--chunk 25000] [--workers 1,2]
    # a million pairs, two workers, no one-process anchor (it would hold every pair at once):
    ... benchmarks/scale_seeding.py --pairs 1000000 --no-anchor --workers 2
    # an English project (declared): the built-in English model seeds, in chunks too
    ... benchmarks/scale_seeding.py --pairs 20000 --languages en,en
    # 200 gold pairs: the supervised link model (fitted once on the gold and a sample of
    # SEED_SAMPLE_PAIRS pairs; set it below --pairs to measure the sample's path)
    ... benchmarks/scale_seeding.py --pairs 20000 --gold 200

Needs PostgreSQL and Redis (the workers' shape in production). The script:

1. writes a project of ``--pairs`` synthetic pairs (a Zipfian vocabulary of ``--vocab`` made-up
   words, 15–25 words a sentence; each target the source with every word replaced by one of
   two synonyms, some neighbours swapped), streamed into the database in batches;
2. the anchor: ``seed_project`` in one fresh process (the one-task path, with the same
   ``chunk_pairs``, so it writes the same seeds), its wall time and peak RSS;
3. for each worker count W: W fresh ``celery worker --concurrency 1`` processes on a queue of
   their own, one seed job; its wall time from start to success, and each worker's pool
   process's peak RSS (VmHWM);
4. prints each figure beside the anchor and their ratio (the chunking's cost: 1 worker against
   one process; the speedup: 1 worker against W), whether every run wrote the same seeds
   (a digest of links, posteriors and uncertainty, pair by pair), and the load average.

The project is deleted at the end (``--keep`` keeps it). This machine has 2 cores shared with
other work: read the figures beside the load average printed with them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridalign.settings")
    import django

    django.setup()


def synthetic_batches(n: int, *, vocab: int, seed: int, batch: int = 20_000):
    """(source tokens, target tokens, true links) lists of ``batch`` pairs at a time (see the
    module notes; a link ``[i, j, "S"]``: source word i became target word j)."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, vocab + 1)
    weights /= weights.sum()
    for start in range(0, n, batch):
        lengths = rng.integers(15, 26, size=min(batch, n - start))
        ends = np.cumsum(lengths)
        words = rng.choice(vocab, size=int(ends[-1]), p=weights)  # one draw per batch: fast
        synonym = rng.integers(0, 2, size=len(words))
        rows = []
        for lo, hi in zip(ends - lengths, ends, strict=True):
            source = [f"w{w}" for w in words[lo:hi]]
            target = [f"s{w}{'ab'[k]}" for w, k in zip(words[lo:hi], synonym[lo:hi], strict=True)]
            origin = list(range(len(target)))
            for i in np.flatnonzero(rng.random(len(target) - 1) < 0.1):
                target[i], target[i + 1] = target[i + 1], target[i]
                origin[i], origin[i + 1] = origin[i + 1], origin[i]
            rows.append((source, target, [[i, j, "S"] for j, i in enumerate(origin)]))
        yield rows


def make_project(
    n: int, vocab: int, seed: int, languages: tuple[str, str] = ("xx", "yy"), gold: int = 0
):
    """The project of ``n`` synthetic pairs; its first ``gold`` pairs' true links as gold."""
    from annotator.models import GoldAlignment, Project, SentencePair

    project = Project.objects.create(
        name=f"scale seeding {uuid.uuid4().hex[:8]}", source_language=languages[0],
        target_language=languages[1], monolingual=False,
    )  # fmt: skip
    position = 0
    for rows in synthetic_batches(n, vocab=vocab, seed=seed):
        made = SentencePair.objects.bulk_create(
            [SentencePair(project=project, external_id=str(position + k), position=position + k,
                          source_tokens=s, target_tokens=t) for k, (s, t, _) in enumerate(rows)],
            batch_size=5000,
        )  # fmt: skip
        wanted = max(0, min(gold - position, len(rows)))
        GoldAlignment.objects.bulk_create(
            GoldAlignment(pair=pair, origin="imported", links=links)
            for pair, (_, _, links) in zip(made[:wanted], rows[:wanted], strict=True)
        )
        position += len(rows)
    return project


def seeds_digest(run_id: int) -> str:
    """A digest of a run's seeds in pair order: equal digests, bit-identical seeds."""
    from annotator.models import SeedAlignment

    digest = hashlib.sha256()
    rows = SeedAlignment.all_runs.filter(aligner_run_id=run_id).order_by("pair__position")
    for links, post, unc in rows.values_list("links", "posteriors", "uncertainty").iterator(
        chunk_size=5000
    ):
        digest.update(json.dumps(sorted(map(tuple, links))).encode())
        digest.update(bytes(post or b""))
        digest.update(repr(unc).encode())
    return digest.hexdigest()[:16]


def anchor_child(project_id: int, chunk: int, use_gold: bool) -> None:
    """(in a fresh process) seed the project in one task; print its figures as JSON."""
    django_setup()
    from annotator.models import Project
    from annotator.seeding.services import seed_project

    t0 = time.perf_counter()
    result = seed_project(project=Project.objects.get(pk=project_id), use_gold=use_gold,
                          config={"chunk_pairs": chunk})  # fmt: skip
    seconds = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "rss_mb": rss, "run": result["aligner_run"],
                      "model": result["model"]}))  # fmt: skip


def run_anchor(project_id: int, chunk: int, use_gold: bool) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--anchor-child", str(project_id), "--chunk", str(chunk),
         *(["--gold", "1"] if use_gold else [])],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if out.returncode:
        raise SystemExit(f"the one-process anchor failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def pool_children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def peak_rss_mb(pid: int) -> float:
    """VmHWM (peak resident set) of a live process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start_workers(n: int, queue: str, env: dict[str, str]) -> list[subprocess.Popen]:
    workers = []
    for k in range(n):
        cmd = [sys.executable, "-m", "celery", "-A", "gridalign", "worker", "--pool", "prefork",
               "--concurrency", "1", "--queues", queue, "--hostname", f"{queue}-{k}@%h",
               "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
               "--without-heartbeat"]  # fmt: skip
        workers.append(subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True))  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(pool_children(w.pid) for w in workers):
        time.sleep(0.2)
    time.sleep(2)  # the pool processes connect to the broker
    return workers


def stop_workers(workers: list[subprocess.Popen]) -> None:
    import signal

    for w in workers:
        os.killpg(w.pid, signal.SIGKILL)
        w.wait(timeout=10)


def run_workers(project, n: int, chunk: int, work_dir: Path, use_gold: bool) -> dict:
    from annotator.models import Job
    from annotator.seeding.services import start_seed_job
    from gridalign.celery import app

    queue = f"scale-seeding-{uuid.uuid4().hex[:8]}"
    # no preloaded seed-model resources (~280 MB the HMM seeding never reads): the workers'
    # peaks are then the seeding's, as the anchor's is
    env = dict(os.environ, SEED_CHUNK_PAIRS=str(chunk), SEED_WORK_DIR=str(work_dir),
               SEED_MODEL_PRELOAD="false", PYTHONUNBUFFERED="1")  # fmt: skip
    workers = start_workers(n, queue, env)
    app.conf.task_routes = {"annotator.tasks.*": {"queue": queue}}
    app.amqp.flush_routes()
    app.amqp.__dict__.pop("router", None)
    try:
        t0 = time.perf_counter()
        job = start_seed_job(project=project, user=None, use_gold=use_gold)
        peaks: dict[int, float] = {}
        while True:
            time.sleep(0.5)
            for w in workers:  # a child's VmHWM dies with it: read it while it lives
                for child in pool_children(w.pid):
                    peaks[child] = max(peaks.get(child, 0.0), peak_rss_mb(child))
            job = Job.objects.get(pk=job.pk)
            if job.is_finished:
                break
        seconds = time.perf_counter() - t0
    finally:
        stop_workers(workers)
    if job.status != "succeeded":
        raise SystemExit(f"the {n}-worker seeding failed: {job.message}\n{job.error}")
    return {"seconds": seconds, "rss_mb": sorted(peaks.values(), reverse=True)[:n],
            "run": job.result["aligner_run"], "retried": job.result.get("retried"),
            "model": job.result["model"], "sample": job.result.get("sample_pairs")}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--chunk", type=int,
                    help="SEED_CHUNK_PAIRS (default: a quarter of --pairs, at most 50,000)")  # fmt: skip
    ap.add_argument("--vocab", type=int, default=100_000)
    ap.add_argument("--workers", default="1,2", help="worker counts to run, e.g. 1,2")
    ap.add_argument("--no-anchor", action="store_true", help="skip the one-process seeding")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--languages", default="xx,yy",
                    help="the project's declared languages; en,en seeds with the built-in "
                         "English model (over made-up words: its lexical lookups miss)")  # fmt: skip
    ap.add_argument("--gold", type=int, default=0,
                    help="the first N pairs' true links as gold: from 20 on (or 2 with en,en) "
                         "the supervised link model seeds")  # fmt: skip
    ap.add_argument("--keep", action="store_true", help="keep the project afterwards")
    ap.add_argument("--anchor-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    chunk = args.chunk or min(50_000, max(1, -(-args.pairs // 4)))
    if args.anchor_child:
        anchor_child(args.anchor_child, chunk, bool(args.gold))
        return 0
    django_setup()
    return report(args, chunk)


def report(args, chunk: int) -> int:
    import tempfile

    from django.conf import settings

    if not settings.CELERY_BROKER_URL.startswith("redis"):
        raise SystemExit("set CELERY_BROKER_URL=redis://... (and DATABASE_URL=postgres://...)")
    print(f"load average at start: {os.getloadavg()}; cores: {os.cpu_count()}")
    t0 = time.perf_counter()
    languages = tuple(args.languages.split(","))
    project = make_project(args.pairs, args.vocab, args.seed, languages, args.gold)
    use_gold = bool(args.gold)
    print(f"{args.pairs} pairs written in {time.perf_counter() - t0:.1f} s; chunks of {chunk}")
    rows: list[tuple[str, dict]] = []
    try:
        if not args.no_anchor:
            rows.append(("one process (anchor)", run_anchor(project.pk, chunk, use_gold)))
            print(f"  anchor done, load {os.getloadavg()}")
        with tempfile.TemporaryDirectory(prefix="scale-seeding-") as tmp:
            for n in [int(w) for w in args.workers.split(",")]:
                work = Path(tmp) / str(n)
                rows.append((f"{n} worker(s)", run_workers(project, n, chunk, work, use_gold)))
                print(f"  {n} worker(s) done, load {os.getloadavg()}")
        print_table(rows, args.pairs, chunk)
    finally:
        if not args.keep:
            drop_project(project)
    return 0


def drop_project(project) -> None:
    """Delete the benchmark's project by plain DELETEs (Django's cascade would load its million
    pairs and seeds first): it has seeds, runs, jobs and pairs, nothing else."""
    from annotator.models import AlignerRun, GoldAlignment, Job, SeedAlignment, SentencePair

    for qs in (SeedAlignment.all_runs.filter(pair__project=project),
               GoldAlignment.objects.filter(pair__project=project),
               SentencePair.objects.filter(project=project)):  # fmt: skip
        qs._raw_delete(qs.db)
    AlignerRun.objects.filter(project=project).delete()
    Job.objects.filter(project=project).delete()
    project.delete()


def print_table(rows: list[tuple[str, dict]], pairs: int, chunk: int) -> None:
    anchor = rows[0][1] if rows[0][0].startswith("one process") else None
    one = next((r for name, r in rows if name == "1 worker(s)"), None)
    print(f"\n{pairs} pairs, chunks of {chunk}; load average now {os.getloadavg()}")
    print(f"{'':24}{'model':>11}{'wall s':>9}{'÷ anchor':>10}{'÷ 1 worker':>12}"
          f"{'peak RSS MB':>20}  same seeds")  # fmt: skip
    digests = {name: seeds_digest(r["run"]) for name, r in rows}
    first = next(iter(digests.values()))
    for name, r in rows:
        ratio = f"{r['seconds'] / anchor['seconds']:.2f}" if anchor else "n/a"
        speed = f"{one['seconds'] / r['seconds']:.2f}×" if one and name != rows[0][0] else ""
        rss = r["rss_mb"] if isinstance(r["rss_mb"], list) else [r["rss_mb"]]
        shown = " / ".join(f"{m:.0f}" for m in rss)
        print(f"{name:24}{r['model']:>11}{r['seconds']:>9.1f}{ratio:>10}{speed:>12}{shown:>20}  "
              f"{'yes' if digests[name] == first else 'NO'} ({digests[name]})")  # fmt: skip
    sampled = {r.get("sample") for _, r in rows} - {None}
    if sampled:
        print(f"the supervised model's fit read a sample of {sampled.pop()} pairs")
    if one:
        print("÷ anchor of 1 worker: what the chunking (tasks, files, per-chunk writes) costs; "
              "÷ 1 worker (as speedup): what the second worker gives.")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
