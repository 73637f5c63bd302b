"""API speed: evaluate a system file of 10,000 pairs (target: at most 5 s of server time) and
the paginated pair list's p95 against a trivial DRF view in the same run (target: at most 3x).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/api.py \\
        [--pairs N] [--requests R] [--seed S] [--no-vacuum]

DATABASE_URL names the server: the benchmark creates ``gridalign_bench_api_<pid>``, migrates
it, fills it and drops it at the end, whatever happens. Requests go through Django's whole
stack in this process (middleware, token authentication, DRF), so "server time" is the time a
request spends in the server, without a network.

* evaluate: ``POST /api/projects/{id}/evaluate/`` with a JSONL file of the gold pairs, links
  perturbed; anchor: ``alignment_core``'s own scoring of the same pairs in memory (what
  ``python -m alignment_core score`` runs), no parsing, no database.
* pair list: ``GET /api/pairs/?project=&page=k`` (50 per page, random pages) against a
  trivial DRF view (``{"ok": true}``, the same authentication and permission), interleaved.
  After the fill the tables are left as a large import leaves them: the import's own
  ``VACUUM (ANALYZE)`` of the tables it wrote (``annotator.corpora.services.maintenance``), so
  index-only scans see a settled visibility map at once; ``--no-vacuum`` measures rows
  written straight into the tables with nothing after (every row checked in the heap, until
  autovacuum comes round). Printed beside the figures: SQL queries per list request and the
  load average.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export import gold_project, scratch_database  # noqa: E402

EVALUATE_TARGET_SECONDS = 5.0
LIST_TARGET_RATIO = 3.0


def system_file(project, seed: int) -> tuple[bytes, list]:
    """The gold pairs as a JSONL system file with every 5th link dropped and a few moved."""
    from alignment_core import AlignedPair, Alignment
    from alignment_core.formats import format_pairs
    from annotator.corpora.services.evaluation import gold_for_evaluation

    rng = random.Random(seed)
    gold = gold_for_evaluation(project=project)
    system = []
    for pair in gold:
        links = sorted(pair.alignment.all_links)
        kept = [(i, j) for k, (i, j) in enumerate(links) if k % 5]
        if kept and rng.random() < 0.3:
            i, j = kept.pop()
            kept.append((i, (j + 1) % len(pair.target)))
        system.append(
            AlignedPair(
                id=pair.id,
                source=pair.source,
                target=pair.target,
                alignment=Alignment.from_sets(kept, ()),
                subcorpus=pair.subcorpus,
            )
        )
    return "".join(format_pairs(system, "jsonl")).encode("utf-8"), list(
        zip(system, gold, strict=True)
    )


def core_anchor(matched: list) -> float:
    from alignment_core.agreement.batch import WORD_COLUMNS, count_pairs
    from alignment_core.agreement.phrase import phrase_scores_from_rows
    from alignment_core.agreement.word import word_scores_from_rows

    t0 = time.perf_counter()
    rows = count_pairs(
        ((ref.source, ref.target, mine.alignment, ref.alignment) for mine, ref in matched),
        include_identical=False,
        phrases=True,
    )
    word_scores_from_rows(rows[:, : len(WORD_COLUMNS)])
    phrase_scores_from_rows(rows[:, len(WORD_COLUMNS) :])
    return time.perf_counter() - t0


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


def queries_per_request(client, url: str) -> int:
    """The SQL statements one GET of ``url`` runs (counted at the connection: Django's query
    log is reset when a request starts)."""
    from django.db import connection

    statements = []

    def count(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        assert client.get(url).status_code == 200
    return len(statements)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-vacuum", action="store_true", help="measure straight after the bulk insert"
    )
    args = parser.parse_args()
    with scratch_database("gridalign_bench_api"):
        from django.test import Client, override_settings
        from django.urls import include, path
        from rest_framework.response import Response
        from rest_framework.views import APIView

        class Trivial(APIView):
            def get(self, request):
                return Response({"ok": True})

        module = sys.modules[__name__]
        module.urlpatterns = [
            path("bench/trivial/", Trivial.as_view()),
            path("", include("gridalign.urls")),
        ]

        project, key = gold_project(args.pairs, args.seed)
        if not args.no_vacuum:  # what an import of this size does once it has committed
            from annotator.corpora.services.importing import WRITTEN_BY_MODE
            from annotator.corpora.services.maintenance import settle_tables
            from annotator.models import SentencePair

            started = time.perf_counter()
            assert settle_tables(models=[SentencePair, *WRITTEN_BY_MODE["gold"]])
            print(
                f"  VACUUM (ANALYZE) of the pairs and gold, as the import runs it: "
                f"{(time.perf_counter() - started) * 1000:.0f} ms"
            )
        client = Client(HTTP_AUTHORIZATION=f"Token {key}")
        data, matched = system_file(project, args.seed)

        with override_settings(ROOT_URLCONF=__name__):
            assert client.get("/bench/trivial/").status_code == 200  # warm: imports done
            upload = io.BytesIO(data)
            upload.name = "system.jsonl"
            t0, cpu0 = time.perf_counter(), time.process_time()
            response = client.post(
                f"/api/projects/{project.pk}/evaluate/", {"file": upload, "level": "both"}
            )
            t_eval, cpu_eval = time.perf_counter() - t0, time.process_time() - cpu0
            assert response.status_code == 200, response.content[:500]
            result = response.json()
            assert result["pairs"] == args.pairs, result["pairs"]
            t_core = core_anchor(matched)

            rng = random.Random(args.seed)
            pages = max(1, args.pairs // 50)
            list_url = f"/api/pairs/?project={project.pk}&page={pages}"
            queries = queries_per_request(client, list_url)
            trivial_queries = queries_per_request(client, "/bench/trivial/")
            load_before = os.getloadavg()[0]
            lists, trivials = [], []
            for _ in range(args.requests):
                url = f"/api/pairs/?project={project.pk}&page={rng.randint(1, pages)}"
                t0 = time.perf_counter()
                ok = client.get(url).status_code == 200
                lists.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                ok &= client.get("/bench/trivial/").status_code == 200
                trivials.append(time.perf_counter() - t0)
                assert ok
            load_after = os.getloadavg()[0]

    list_p95, trivial_p95 = p95(lists), p95(trivials)
    print(f"API benchmark: {args.pairs:,} gold pairs on PostgreSQL")
    print(f"  evaluate (upload, parse, match, score): {t_eval:7.2f} s  (CPU here {cpu_eval:.2f} s)")
    print(f"  anchor, alignment_core scoring alone:   {t_core:7.2f} s")
    print(f"  ratio evaluate / core: {t_eval / t_core:.1f}x   (word F1 {result['word']['f1']:.3f})")
    print(f"  pair list p95 ({args.requests} requests, 50 per page): {list_p95 * 1000:7.1f} ms")
    print(f"  anchor, trivial DRF view p95:                  {trivial_p95 * 1000:7.1f} ms")
    med_list, med_trivial = statistics.median(lists), statistics.median(trivials)
    print(
        f"  (medians: list {med_list * 1000:.1f} ms, trivial {med_trivial * 1000:.1f} ms, "
        f"{med_list / med_trivial:.1f}x)"
    )
    print(
        f"  SQL queries per request: list {queries}, trivial {trivial_queries}; "
        f"tables {'as inserted' if args.no_vacuum else 'as an import leaves them'}; "
        f"load average (1 min) {load_before:.2f} before, {load_after:.2f} after, on {os.cpu_count()} CPUs"
    )
    ratio = list_p95 / trivial_p95
    print(f"  ratio list / trivial: {ratio:.1f}x")
    ok = t_eval <= EVALUATE_TARGET_SECONDS and ratio <= LIST_TARGET_RATIO
    print(
        f"  targets: evaluate <= {EVALUATE_TARGET_SECONDS:.0f} s, list p95 <= "
        f"{LIST_TARGET_RATIO:.0f}x trivial -> {'PASS' if ok else 'FAIL'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
