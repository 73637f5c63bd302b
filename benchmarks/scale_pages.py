"""Every page and API listing of a 1,000,000-pair project beside the same request on a
1,000-pair project of the same shape, measured interleaved in one run (goal: each p95 at
1 M pairs ≤ 1.5× the 1,000-pair one).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python \\
        benchmarks/scale_pages.py [--pairs 1000000] [--anchor-pairs 1000] [--assigned 600] \\
        [--rounds 40] [--keep-db NAME] [--only queue,pairs...] [--queries]

DATABASE_URL names the server. Without ``--keep-db`` the benchmark makes a database
``gridalign_bench_scale_<pid>`` and drops it at the end; with ``--keep-db NAME`` it uses (and
keeps) the database NAME, building the two projects only if an earlier run has not
(``benchmarks/scale_project.py``: PostgreSQL writes a million pairs and their seeds in a few
minutes). The tables are vacuumed and analysed after a build.

Requests go through Django's test Client in this process (the whole middleware stack, a
logged-in session, DEBUG off): the server's own time, no network. Each round sends every
request once to each project, alternately the small one first and the big one first, so load
on the machine falls on both alike. Printed per request: median and p95 at each size, the
ratio of the p95s, and the SQL statement count at each size (``--queries``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from pgadmin import admin, postgres_server, throwaway_database, with_database  # noqa: E402

RATIO_GOAL = 1.5


@dataclass
class Target:
    """One project as the requests see it: its id, a lead, an annotator and what they open."""

    project: int
    lead: int
    annotator: int
    assignments: list[int]  # the annotator's unsubmitted assignments (saved in turn)
    pair: int  # a doubly annotated, submitted pair (pair view, adjudication)
    word: str  # a word in a pair near the end of the project (the search)
    external_id: str  # the last pair's id (a search that matches one pair or a few)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def requests_of(t: Target) -> dict[str, tuple[str, Callable[[object, int], str]]]:
    """name → (who: "lead" | "annotator", round → URL); "save" is a PUT, the rest GETs."""
    p = t.project

    def every(url: str):
        return lambda _client, _k: url

    def mine(fmt: str):
        return lambda _client, k: fmt.format(t.assignments[k % len(t.assignments)])

    return {
        "queue": ("annotator", every(f"/projects/{p}/queue/")),
        "open: grid page": ("annotator", mine("/annotate/{}/")),
        "open: seed": ("annotator", mine("/api/assignments/{}/seed/")),
        "open: grid data": ("annotator", mine("/api/assignments/{}/")),
        "save": ("annotator", mine("/api/assignments/{}/annotation/")),
        "api assignments": ("annotator", every(f"/api/assignments/?project={p}")),
        "project page": ("lead", every(f"/projects/{p}/")),
        "pair browser": ("lead", every(f"/projects/{p}/pairs/")),
        "pair browser, page 3": ("lead", every(f"/projects/{p}/pairs/?page=3")),
        "pair browser, search": ("lead", every(f"/projects/{p}/pairs/?q={t.word}")),
        "pair browser, search an id": ("lead", every(f"/projects/{p}/pairs/?q={t.external_id}")),
        "pair browser, status": ("lead", every(f"/projects/{p}/pairs/?status=submitted")),
        "pair browser, agreement": ("lead", every(f"/projects/{p}/pairs/?max_agreement=0.9")),
        "pair view": ("lead", every(f"/projects/{p}/pairs/{t.pair}/")),
        "progress": ("lead", every(f"/projects/{p}/progress/")),
        "assignment plan page": ("lead", every(f"/projects/{p}/assign/")),
        "disagreements": ("lead", every(f"/projects/{p}/disagreements/")),
        "adjudication list": ("lead", every(f"/projects/{p}/adjudicate/")),
        "export page": ("lead", every(f"/projects/{p}/export/")),
        "api project": ("lead", every(f"/api/projects/{p}/")),
        "api pairs": ("lead", every(f"/api/pairs/?project={p}")),
        "api pairs, page 10": ("lead", every(f"/api/pairs/?project={p}&page=10")),
        "api pairs, submitted": ("lead", every(f"/api/pairs/?project={p}&status=submitted")),
        "api subcorpora": ("lead", every(f"/api/subcorpora/?project={p}")),
        "api annotations": ("lead", every(f"/api/annotations/?project={p}")),
        "api jobs": ("lead", every(f"/api/jobs/?project={p}")),
        "api aligner runs": ("lead", every(f"/api/aligner-runs/?project={p}")),
    }


def target_of(built) -> Target:
    from annotator.models import Assignment, SentencePair

    annotator = built.annotator_ids[0]
    todo = Assignment.objects.filter(
        pair__project_id=built.project_id, annotator_id=annotator, status="assigned"
    ).order_by("id")
    double = (
        Assignment.objects.filter(pair__project_id=built.project_id, slot=2, status="submitted")
        .values_list("pair_id", flat=True)
        .first()
    )
    last = SentencePair.objects.filter(project_id=built.project_id).order_by("-position").first()
    return Target(
        project=built.project_id,
        lead=built.lead_id,
        annotator=annotator,
        assignments=list(todo.values_list("id", flat=True)[:200]),
        pair=double,
        word=last.source_tokens[-1],
        external_id=last.external_id,
    )


class Runner:
    """Logged-in clients and the saved versions, per project."""

    def __init__(self, targets: list[Target]):
        from django.contrib.auth import get_user_model
        from django.test import Client

        users = get_user_model().objects
        self.clients = {}
        for t in targets:
            for role, user_id in (("lead", t.lead), ("annotator", t.annotator)):
                if (role, user_id) not in self.clients:
                    client = Client()
                    client.force_login(users.get(pk=user_id))
                    self.clients[(role, user_id)] = client
        self.versions: dict[str, int] = {}

    def send(self, t: Target, name: str, who: str, url: str) -> tuple[float, int]:
        client = self.clients[(who, t.lead if who == "lead" else t.annotator)]
        t0 = time.perf_counter()
        if name == "save":
            version = self.versions.get(url, 0)
            response = client.put(
                url, {"version": version, "links": [[0, 0, "S"], [1, 1, "P"]]},
                content_type="application/json",
            )  # fmt: skip
            if response.status_code == 200:
                self.versions[url] = response.json()["version"]
        else:
            response = client.get(url)
        elapsed = (time.perf_counter() - t0) * 1000.0
        if response.status_code != 200:
            raise SystemExit(f"{name}: {url} answered {response.status_code}")
        if hasattr(response, "streaming_content"):
            b"".join(response.streaming_content)
        return elapsed, response.status_code


def measure(targets: list[Target], rounds: int, only: set[str] | None) -> dict:
    """times[name][size index] = list of ms, interleaved round by round."""
    runner = Runner(targets)
    table = [requests_of(t) for t in targets]
    names = [n for n in table[0] if not only or any(o in n for o in only)]
    times = {n: [[] for _ in targets] for n in names}
    for k in range(-1, rounds):  # round -1: warm-up, not kept
        order = list(range(len(targets)))
        if k % 2:
            order.reverse()
        for name in names:
            for i in order:
                who, url = table[i][name]
                ms, _ = runner.send(targets[i], name, who, url(None, k + 1))
                if k >= 0:
                    times[name][i].append(ms)
    return times, runner, table, names


def count_queries(runner: Runner, targets: list[Target], table, names) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = {}
    for name in names:
        counts[name] = []
        for i, t in enumerate(targets):
            who, url = table[i][name]
            with CaptureQueriesContext(connection) as ctx:
                runner.send(t, name, who, url(None, 7))
            counts[name].append(len(ctx.captured_queries))
    return counts


def report(targets: list[Target], times: dict, counts: dict, rounds: int) -> list[dict]:
    small, big = targets[0], targets[1]
    print(
        f"scale pages: {rounds} rounds, interleaved; Django test Client in-process, DEBUG off, "
        f"PostgreSQL; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    head = f"{'request':26} {'anchor p50/p95 ms':>19} {'figure p50/p95 ms':>19} {'ratio':>6}"
    print(head + ("  queries" if counts else ""))
    rows = []
    for name, (a, b) in times.items():
        a95, b95 = percentile(a, 0.95), percentile(b, 0.95)
        ratio = b95 / a95
        row = {"request": name, "anchor_p50": statistics.median(a), "anchor_p95": a95,
               "figure_p50": statistics.median(b), "figure_p95": b95, "ratio": ratio}  # fmt: skip
        rows.append(row)
        extra = f"  {counts[name][0]} / {counts[name][1]}" if counts else ""
        mark = "" if ratio <= RATIO_GOAL else "  << over"
        print(
            f"{name:26} {row['anchor_p50']:8.2f} /{a95:8.2f} {row['figure_p50']:8.2f} /"
            f"{b95:8.2f} {ratio:5.2f}x{extra}{mark}"
        )
    met = sum(r["ratio"] <= RATIO_GOAL for r in rows)
    print(
        f"anchor: the project of {small_pairs(small)}; figure: {small_pairs(big)}; "
        f"goal p95 ratio <= {RATIO_GOAL}: {met} of {len(rows)} met; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    return rows


def small_pairs(t: Target) -> str:
    from annotator.models import Project

    return Project.objects.get(pk=t.project).name.removeprefix("scale ")


def projects(args) -> list[Target]:
    import scale_project

    built, made = [], False
    for n in (args.anchor_pairs, args.pairs):
        found = scale_project.existing_project(n, args.assigned)
        if found is None:
            found, made = scale_project.build_project(n_pairs=n, assigned=args.assigned), True
        built.append(found)
    if made:
        scale_project.settle()
    return [target_of(b) for b in built]


def setup_django() -> None:
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridalign.settings")
    os.environ["DEBUG"] = "false"
    for name in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"):
        os.environ[name] = "false"
    os.environ["SECURE_HSTS_SECONDS"] = "0"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    logging.getLogger("axes").setLevel(logging.WARNING)  # a line per forced login otherwise
    logging.getLogger("django.request").setLevel(logging.ERROR)
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def run(args) -> list[dict]:
    setup_django()
    targets = projects(args)
    only = set(args.only.split(",")) if args.only else None
    times, runner, table, names = measure(targets, args.rounds, only)
    counts = count_queries(runner, targets, table, names) if args.queries else {}
    return report(targets, times, counts, args.rounds)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--anchor-pairs", type=int, default=1_000)
    parser.add_argument("--assigned", type=int, default=600, help="pairs in the annotation set")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--keep-db", metavar="NAME", help="use and keep this database")
    parser.add_argument("--only", help="comma-separated parts of request names")
    parser.add_argument("--queries", action="store_true", help="also count SQL statements")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict] | None:
    args = arguments(argv)
    server = postgres_server()
    if server is None:
        print("set DATABASE_URL=postgres://user@host:port/db (the benchmark makes its own db)")
        return None
    if args.keep_db:
        with contextlib.suppress(Exception):  # already there: reuse it
            admin(server, f'CREATE DATABASE "{args.keep_db}"')
        os.environ["DATABASE_URL"] = with_database(server, args.keep_db)
        return run(args)
    with throwaway_database(server, "gridalign_bench_scale"):
        return run(args)


if __name__ == "__main__":
    rows = main()
    sys.exit(0 if rows is not None and all(r["ratio"] <= RATIO_GOAL for r in rows) else 1)
