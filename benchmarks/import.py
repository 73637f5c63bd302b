"""Import at the database's own speed: ``import_file`` against a bare load of the same rows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/import.py \\
        [--pairs 1000000] [--seed S]
    .venv/bin/python benchmarks/import.py --sqlite [--pairs 25000]

PostgreSQL (goal: the import at most 2x the anchor). DATABASE_URL names the server: the
benchmark makes a fresh database ``gridalign_bench_<pid>``, migrates it and drops it at the
end. ``--pairs`` synthetic TSV pairs (about 209 bytes a pair) are loaded twice into the empty
pairs table, each by a fresh process:

* the anchor, ``COPY``: a bare script streams the file's rows into psycopg2's ``COPY ... FROM
  STDIN`` (split on tabs and spaces, tokens JSON-encoded, nothing checked) in one transaction;
* the figure, ``import_file``: read + every check + write, in one transaction, as the import
  job runs it.

The table is emptied between the two (TRUNCATE), so both meet the same empty table and its six
indexes. Each process's peak resident set (``ru_maxrss``) is printed beside the other's, and
the import's beside its own baseline (Django set up, nothing imported).

SQLite (``--sqlite``, goal: time linear in the file's size): the import of ``--pairs``, 2x and
4x as many pairs, each into a fresh copy of one migrated database file, beside the anchor of
the same rows sent by one ``executemany`` in one transaction. The time per MB should stay flat
from 1x to 4x (printed: the 4x/1x ratio of the per-MB times).

Every line carries the load average of the moment (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from import_steps import SUBCORPORA  # noqa: E402
from pgadmin import postgres_server, throwaway_database  # noqa: E402

GOAL_RATIO = 2.0  # PostgreSQL: import_file / COPY
GOAL_FLAT = 1.25  # SQLite: seconds per MB at 4x over 1x
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
            sub = SUBCORPORA[k % 3]
            fh.write(f"p{k}\t{' '.join(src)}\t{' '.join(tgt)}\t{sub}\n")


def step(name: str, *args: str, env: dict[str, str]) -> dict:
    """Run one measured step (``import_steps.py``) in a fresh process; its JSON result."""
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "import_steps.py"), name, *args],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if out.returncode != 0:
        raise SystemExit(f"step {name} failed:\n{out.stdout}\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["load"] = os.getloadavg()[0]
    return result


def child_env(database_url: str | None) -> dict[str, str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "gridalign.settings", "DEBUG": "false"}
    env.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    if database_url:
        env["DATABASE_URL"] = database_url
    else:
        env.pop("DATABASE_URL", None)
    return env


def run_postgres(args: argparse.Namespace) -> int:
    server = postgres_server()
    if server is None:
        print("set DATABASE_URL=postgres://user@host:port/db (the benchmark makes its own db)")
        return 2
    with throwaway_database(server, "gridalign_bench") as url, tempfile.TemporaryDirectory() as tmp:
        env = child_env(url)
        path = Path(tmp) / "pairs.tsv"
        synthetic_tsv(path, args.pairs, args.seed)
        size_mb = path.stat().st_size / 1e6
        step("migrate", env=env)
        copy = step("copy", str(path), env=env)
        step("truncate", env=env)
        base = step("baseline", env=env)
        imp = step("import", str(path), env=env)
    n, ratio = args.pairs, imp["seconds"] / copy["seconds"]
    print(f"import benchmark: {n:,} TSV text pairs ({size_mb:.1f} MB) into PostgreSQL")
    _line("import_file (read + check + write)", imp, n)
    _line("anchor, psycopg2 COPY of the rows", copy, n)
    print(f"  ratio import / COPY: {ratio:.2f}x (goal <= {GOAL_RATIO:.0f}x)")
    print(
        f"  peak RSS: import {imp['rss_mb']:,.0f} MB (its baseline, Django set up: "
        f"{base['rss_mb']:,.0f} MB, +{imp['rss_mb'] - base['rss_mb']:,.0f} MB); "
        f"COPY {copy['rss_mb']:,.0f} MB"
    )
    verdict = "PASS" if ratio <= GOAL_RATIO else "FAIL"
    print(f"  -> {verdict}")
    return 0 if verdict == "PASS" else 1


def _line(label: str, result: dict, n: int) -> None:
    print(
        f"  {label:36s} {result['seconds']:8.2f} s {n / result['seconds']:9,.0f} pairs/s  "
        f"peak RSS {result['rss_mb']:6,.0f} MB  load {result['load']:.1f}"
    )


def run_sqlite(args: argparse.Namespace) -> int:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "template.sqlite3"
        step("migrate", env=child_env(f"sqlite:///{template}"))
        for factor in (1, 2, 4):
            n = args.pairs * factor
            path = Path(tmp) / f"pairs{factor}.tsv"
            synthetic_tsv(path, n, args.seed)
            size_mb = path.stat().st_size / 1e6
            result = {"factor": factor, "n": n, "mb": size_mb}
            for name in ("copy", "import"):
                db = Path(tmp) / f"{name}{factor}.sqlite3"
                shutil.copy(template, db)
                result[name] = step(name, str(path), env=child_env(f"sqlite:///{db}"))
                db.unlink()
            rows.append(result)
    print("import benchmark: TSV text pairs into SQLite, 1x / 2x / 4x")
    for r in rows:
        imp, anchor = r["import"], r["copy"]
        print(
            f"  {r['factor']}x {r['n']:>9,} pairs {r['mb']:6.1f} MB: import {imp['seconds']:7.2f} s "
            f"({imp['seconds'] / r['mb']:.3f} s/MB, peak {imp['rss_mb']:,.0f} MB), "
            f"executemany {anchor['seconds']:6.2f} s ({anchor['seconds'] / r['mb']:.3f} s/MB), "
            f"ratio {imp['seconds'] / anchor['seconds']:.2f}x, load {imp['load']:.1f}"
        )
    flat = (rows[-1]["import"]["seconds"] / rows[-1]["mb"]) / (
        rows[0]["import"]["seconds"] / rows[0]["mb"]
    )
    verdict = "PASS" if flat <= GOAL_FLAT else "FAIL"
    print(f"  seconds per MB, 4x over 1x: {flat:.2f} (goal <= {GOAL_FLAT}) -> {verdict}")
    return 0 if verdict == "PASS" else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sqlite", action="store_true", help="SQLite: 1x, 2x, 4x --pairs")
    args = parser.parse_args()
    if args.sqlite:
        args.pairs = args.pairs or 25_000
        return run_sqlite(args)
    args.pairs = args.pairs or 100_000
    return run_postgres(args)


if __name__ == "__main__":
    sys.exit(main())
