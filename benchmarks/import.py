"""Import throughput: 100,000 synthetic TSV text pairs into PostgreSQL (target: under 60 s).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/import.py \\
        [--pairs N] [--seed S]

DATABASE_URL names the server (and a database to connect to while creating another): the
benchmark creates a fresh database ``gridalign_bench_<pid>``, migrates it, imports into it and
drops it at the end, whatever happens.

The figure is ``import_file`` end to end (read + parse the TSV, check, write in one
transaction). Anchors, measured in the same run on the same rows:

* ``read``: ``read_pairs`` alone (the parse step, no database);
* ``COPY``: the same rows sent by psycopg2 ``COPY ... FROM STDIN`` into the same table (the
  floor PostgreSQL itself sets for storing them, JSON encoding included).

The ratio import / COPY says how much the service costs over the raw floor.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import secrets
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pgadmin import postgres_server, throwaway_database  # noqa: E402

TARGET_SECONDS = 60.0
VOCAB_SIZE = 5000


def synthetic_tsv(path: Path, n: int, seed: int) -> None:
    """``n`` pairs of 5-40 tokens (Zipf-ish vocabulary), three subcorpora, with a header."""
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(VOCAB_SIZE)]
    weights = [1 / (k + 1) for k in range(VOCAB_SIZE)]
    with path.open("w", encoding="utf-8") as fh:
        fh.write("id\tsource\ttarget\tsubcorpus\n")
        for k in range(n):
            src = rng.choices(vocab, weights, k=rng.randint(5, 40))
            tgt = src[:]
            for _ in range(rng.randint(1, 5)):  # a paraphrase: a few substitutions
                tgt[rng.randrange(len(tgt))] = rng.choice(vocab)
            sub = ("mtc", "news", "novels")[k % 3]
            fh.write(f"p{k}\t{' '.join(src)}\t{' '.join(tgt)}\t{sub}\n")


def copy_anchor(url: str, pairs: list, project_id: int, subcorpora: dict[str, int]) -> float:
    """Seconds to COPY the same rows (JSON-encoded tokens) into annotator_sentencepair."""
    import psycopg2

    conn = psycopg2.connect(url)
    try:
        t0 = time.perf_counter()
        buf = io.StringIO()
        writer = csv.writer(buf)
        for k, p in enumerate(pairs, 1):
            writer.writerow(
                [
                    project_id,
                    subcorpora[p.subcorpus],
                    p.id,
                    k,
                    json.dumps(p.source, ensure_ascii=False),
                    json.dumps(p.target, ensure_ascii=False),
                    "f",
                    "{}",
                    "now",
                ]
            )
        buf.seek(0)
        with conn.cursor() as cur:
            cur.copy_expert(
                "COPY annotator_sentencepair (project_id, subcorpus_id, external_id, position, "
                "source_tokens, target_tokens, is_trial, metadata, created_at) "
                "FROM STDIN WITH (FORMAT csv)",
                buf,
            )
        conn.commit()
        return time.perf_counter() - t0
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    server = postgres_server()
    if server is None:
        print("set DATABASE_URL=postgres://user@host:port/db (the benchmark makes its own db)")
        return 2
    with throwaway_database(server, "gridalign_bench") as bench_url:
        os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridalign.settings")
        return run(args, bench_url)


def run(args: argparse.Namespace, bench_url: str) -> int:
    import django

    django.setup()
    from django.core.management import call_command

    from alignment_core.formats import read_pairs
    from annotator.corpora.services.importing import import_file
    from annotator.models import Project, SentencePair, Subcorpus

    call_command("migrate", verbosity=0)
    n = args.pairs
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairs.tsv"
        synthetic_tsv(path, n, args.seed)
        size_mb = path.stat().st_size / 1e6

        t0 = time.perf_counter()
        pairs = read_pairs(path, "tsv")
        t_read = time.perf_counter() - t0

        project = Project.objects.create(name="bench")
        t0 = time.perf_counter()
        report = import_file(project=project, path=path, fmt="tsv")
        t_import = time.perf_counter() - t0

    stored = SentencePair.objects.filter(project=project).count()
    assert report.pairs_created == stored == n, (report.pairs_created, stored, n)
    anchor_project = Project.objects.create(name="anchor")
    subs = {
        s: Subcorpus.objects.create(project=anchor_project, name=s).pk
        for s in ("mtc", "news", "novels")
    }
    t_copy = copy_anchor(bench_url, pairs, anchor_project.pk, subs)
    assert SentencePair.objects.filter(project=anchor_project).count() == n

    print(f"import benchmark: {n:,} TSV text pairs ({size_mb:.1f} MB) into PostgreSQL")
    print(f"  import_file (read + check + write): {t_import:7.2f} s  {n / t_import:10,.0f} pairs/s")
    print(f"  anchor, read_pairs alone:          {t_read:7.2f} s  {n / t_read:10,.0f} pairs/s")
    print(f"  anchor, psycopg2 COPY of the rows: {t_copy:7.2f} s  {n / t_copy:10,.0f} pairs/s")
    print(
        f"  ratio import / COPY: {t_import / t_copy:.1f}x;  import / read: {t_import / t_read:.1f}x"
    )
    verdict = "PASS" if t_import < TARGET_SECONDS else "FAIL"
    print(f"  target: under {TARGET_SECONDS:.0f} s -> {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
