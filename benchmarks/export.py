"""Gold export through the API: 100,000 gold pairs as JSONL (targets: at most 20 s and under
100 MB of memory growth).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/export.py \\
        [--pairs N] [--seed S]

DATABASE_URL names the server: the benchmark creates ``gridalign_bench_export_<pid>``,
migrates it, fills it and drops it at the end, whatever happens.

The figure is ``GET /api/projects/{id}/export/?format=jsonl`` through Django's whole stack
(middleware, token authentication, the streaming response), every byte consumed as a client
would, in seconds and in peak RSS growth (sampled every 5 ms from /proc while streaming). The
anchor is psycopg2 ``COPY (SELECT <the same columns of the same rows, same order>) TO STDOUT``:
the floor PostgreSQL itself sets for reading those rows out.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pgadmin import postgres_server, throwaway_database  # noqa: E402

TARGET_SECONDS = 20.0
TARGET_MB = 100.0
VOCAB = [f"w{k}" for k in range(5000)]


@contextmanager
def scratch_database(prefix: str):
    """A fresh PostgreSQL database for the run (DATABASE_URL points at it meanwhile)."""
    server = postgres_server()
    if server is None:
        raise SystemExit("set DATABASE_URL=postgres://user@host:port/db (a db is made per run)")
    with throwaway_database(server, prefix) as url:
        os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridalign.settings")
        os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        yield url


def gold_project(n: int, seed: int, name: str = "bench"):
    """A project with ``n`` gold pairs (5-40 tokens, ~1 link per token, 3 subcorpora), a lead
    and a token for them. Returns (project, token key)."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from annotator.accounts.services.tokens import create_token
    from annotator.models import GoldAlignment, Membership, Project, SentencePair, Subcorpus

    rng = random.Random(seed)
    project = Project.objects.create(name=name)
    lead = get_user_model().objects.create_user(username=f"{name}-lead", password=None)
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    subs = [Subcorpus.objects.create(project=project, name=s) for s in ("mtc", "news", "novels")]
    for start in range(0, n, 5000):
        pairs, golds = [], []
        for k in range(start, min(n, start + 5000)):
            src = rng.choices(VOCAB, k=rng.randint(5, 40))
            tgt = src[:]
            for _ in range(rng.randint(1, 4)):
                tgt[rng.randrange(len(tgt))] = rng.choice(VOCAB)
            pairs.append(
                SentencePair(
                    project=project,
                    subcorpus=subs[k % 3],
                    external_id=f"p{k}",
                    position=k,
                    source_tokens=src,
                    target_tokens=tgt,
                )
            )
            links = [[i, i, "S" if rng.random() < 0.8 else "P"] for i in range(len(src))]
            golds.append(links)
        created = SentencePair.objects.bulk_create(pairs)
        GoldAlignment.objects.bulk_create(
            GoldAlignment(pair=p, links=links, origin="imported")
            for p, links in zip(created, golds, strict=True)
        )
    _, key = create_token(user=lead, name="bench")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as autovacuum would: planner statistics for the new rows
    return project, key


class RssSampler:
    """Peak resident set size while running, sampled from /proc/self/statm."""

    def __init__(self, every: float = 0.005) -> None:
        self.every, self.peak, self._stop = every, 0, threading.Event()
        self._page = os.sysconf("SC_PAGE_SIZE")

    def rss(self) -> int:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * self._page

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.rss())
            time.sleep(self.every)

    def __enter__(self):
        self.start = self.rss()
        self.peak = self.start
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.rss())

    @property
    def growth_mb(self) -> float:
        return (self.peak - self.start) / 1e6


class NullSink:
    def __init__(self) -> None:
        self.bytes = 0

    def write(self, data) -> int:
        self.bytes += len(data)
        return len(data)


def copy_anchor(url: str, project_id: int) -> tuple[float, int]:
    """Seconds and bytes of COPY (the export's query, in SQL) TO STDOUT into a null sink."""
    import psycopg2

    conn = psycopg2.connect(url)
    try:
        sink = NullSink()
        t0 = time.perf_counter()
        with conn.cursor() as cur:
            cur.copy_expert(
                "COPY (SELECT p.external_id, s.name, p.source_tokens, p.target_tokens, "
                "p.is_trial, p.metadata, g.links FROM annotator_goldalignment g "
                "JOIN annotator_sentencepair p ON p.id = g.pair_id "
                "LEFT JOIN annotator_subcorpus s ON s.id = p.subcorpus_id "
                f"WHERE p.project_id = {int(project_id)} AND NOT p.is_trial "
                "ORDER BY p.position, p.id) TO STDOUT",
                sink,
            )
        return time.perf_counter() - t0, sink.bytes
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with scratch_database("gridalign_bench_export") as url:
        from django.test import Client

        t0 = time.perf_counter()
        project, key = gold_project(args.pairs, args.seed)
        print(
            f"export benchmark: {args.pairs:,} gold pairs (made in {time.perf_counter() - t0:.0f} s)"
        )

        client = Client(HTTP_AUTHORIZATION=f"Token {key}")
        assert client.get("/api/projects/").status_code == 200  # a server is warm: imports done
        with RssSampler() as memory:
            t0, cpu0 = time.perf_counter(), time.process_time()
            response = client.get(f"/api/projects/{project.pk}/export/?format=jsonl")
            assert response.status_code == 200 and response.streaming, response
            size = lines = 0
            for piece in response.streaming_content:
                size += len(piece)
                lines += piece.count(b"\n")
            t_api, cpu_api = time.perf_counter() - t0, time.process_time() - cpu0
        assert lines == args.pairs, (lines, args.pairs)
        t_copy, copy_bytes = copy_anchor(url, project.pk)

    print(f"  API export, JSONL streamed:        {t_api:7.2f} s  {size / 1e6:7.1f} MB")
    print(f"    (of which CPU time in this process: {cpu_api:.2f} s)")
    print(f"  anchor, psycopg2 COPY ... TO:      {t_copy:7.2f} s  {copy_bytes / 1e6:7.1f} MB")
    print(f"  ratio API / COPY: {t_api / t_copy:.1f}x")
    print(f"  peak RSS growth while streaming: {memory.growth_mb:.1f} MB")
    ok = t_api <= TARGET_SECONDS and memory.growth_mb < TARGET_MB
    print(
        f"  targets: <= {TARGET_SECONDS:.0f} s and < {TARGET_MB:.0f} MB -> "
        f"{'PASS' if ok else 'FAIL'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
