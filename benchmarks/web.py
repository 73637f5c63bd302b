"""Server time of the grid on PostgreSQL: opening a pair (the grid page + its data endpoint)
and saving an edit (PUT with the version), beside a trivial Django JSON view.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/web.py \\
        [--pairs 1000] [--tokens 40] [--requests 300] [--queries] [--no-vacuum] [--profile DIR]

DATABASE_URL names the server (and a database to connect to while creating another): the
benchmark creates a fresh database ``gridalign_bench_web_<pid>``, migrates it, builds a
project of ``--pairs`` pairs of ``--tokens`` × ``--tokens`` tokens, each with a seed and its
posterior matrix, all assigned to one annotator, and drops the database at the end, whatever
happens.

Requests go through Django's test Client in this process, with the project's whole
middleware stack and a logged-in session (no network, no server threads: the figure is the
server's own time). Measured over ``--requests`` different pairs:

* open: ``GET /annotate/<id>/``, the grid page, which carries what changes per request (the
  pair's tokens, the annotation, the queue place: the JSON of ``GET /api/assignments/<id>/``
  without ``seed`` and ``posteriors``) and records the opening;
* the seed: ``GET /api/assignments/<id>/seed/``, which the page's script fetches (the seed and
  its posterior matrix, unchanged between aligner runs): the first fetch of a pair (200, with
  the matrix) and a revalidation with the ``If-None-Match`` of that answer (304, what every
  later opening of the pair costs the server: the browser keeps the answer);
* open, as the browser does it: the page plus the seed request, p95 of each pair's sum, for a
  first opening (seed 200) and a later one (seed 304);
* data: ``GET /api/assignments/<id>/``, the API's answer with seed and posteriors (what the
  grid reads ahead for the next pair, and the page's fallback);
* save: ``PUT /api/assignments/<id>/annotation/`` with ``{version, links}`` (an autosave:
  a locked version check, the annotation, a revision, the assignment's activity);
* anchors, through a temporary URLconf that adds two views to the project's URLs, behind the
  same middleware and logged-in session: a trivial JSON view (``{"ok": true}``, which never
  reads the session: no query at all), and the same view answering the user's name (the
  session and user lookups every logged-in request pays: two queries).

The tables are vacuumed and analysed after the build, as an import or a seeding of that size
leaves them (``--no-vacuum``: straight after the bulk insert, with no planner statistics).
``--profile DIR`` also profiles 200 opens, data requests and saves with pyinstrument
(``requirements-bench.txt``).

Goals (issue 7, issue 32): p95 of open (the page: the per-request work) and of save ≤ 3× the
trivial view's p95, and save p95 ≤ 30 ms.
The ratios are printed against both anchors; the verdict uses the logged-in one, since every
grid request is a logged-in one (against a view that touches no database, 3× is under 2 ms,
less than one PostgreSQL commit).
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import sys
import time
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pgadmin import postgres_server, throwaway_database  # noqa: E402

RATIO_GOAL = 3.0
SAVE_GOAL_MS = 30.0
URLCONF = "benchmarks_web_urls"


def install_urlconf() -> None:
    """The project's URLs plus ``/bench/trivial/`` (a JSON view doing nothing)."""
    from django.http import JsonResponse
    from django.urls import include, path

    def trivial(request):
        return JsonResponse({"ok": True})

    def trivial_user(request):
        return JsonResponse({"user": request.user.get_username()})

    module = types.ModuleType(URLCONF)
    module.urlpatterns = [
        path("bench/trivial/", trivial),
        path("bench/trivial-user/", trivial_user),
        path("", include("gridalign.urls")),
    ]
    sys.modules[URLCONF] = module


def build(n_pairs: int, n_tokens: int, seed: int):
    """One project, one annotator, ``n_pairs`` pairs with seeds and posteriors, assigned."""
    from django.contrib.auth import get_user_model

    from annotator.models import (
        AlignerRun,
        Assignment,
        Membership,
        Project,
        SeedAlignment,
        SentencePair,
    )

    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(3000)]
    project = Project.objects.create(name="bench web")
    user = get_user_model().objects.create_user("bench-annotator", password="unused-bench")
    Membership.objects.create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    run = AlignerRun.objects.create(project=project)
    pairs = SentencePair.objects.bulk_create(
        SentencePair(
            project=project,
            external_id=f"p{k}",
            position=k,
            source_tokens=rng.choices(vocab, k=n_tokens),
            target_tokens=rng.choices(vocab, k=n_tokens),
            is_trial=k < 10,
        )
        for k in range(n_pairs)
    )
    seeds = []
    for pair in pairs:
        links = [[i, i, "S"] for i in range(0, n_tokens, 2)]
        matrix = bytes(
            max(0, 250 - 60 * abs(i - j)) if abs(i - j) < 5 else rng.randrange(4)
            for i in range(n_tokens)
            for j in range(n_tokens)
        )
        seeds.append(SeedAlignment(pair=pair, aligner_run=run, links=links, posteriors=matrix))
    seeds = SeedAlignment.objects.bulk_create(seeds)
    assignments = Assignment.objects.bulk_create(
        Assignment(pair=pair, annotator=user, seed=s) for pair, s in zip(pairs, seeds, strict=True)
    )
    return user, [a.pk for a in assignments]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(fn, *args) -> tuple[float, object]:
    t0 = time.perf_counter()
    result = fn(*args)
    return (time.perf_counter() - t0) * 1000.0, result


def profile(folder: str, fresh: list[int], get, put) -> None:
    """pyinstrument over opens (page + data) and saves of ``fresh``, pairs the timed loop did
    not touch (never saved: a save based on version 0 is accepted), each kind in its own
    profile (its Python: middleware, views, serializers, JSON)."""
    from pyinstrument import Profiler

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    work = {
        "open": lambda a: get(f"/annotate/{a}/"),
        "data": lambda a: get(f"/api/assignments/{a}/"),
        "save": lambda a: put(a, 0, [[0, 0, "S"]]),
    }
    for name, fn in work.items():
        profiler = Profiler(interval=0.0002)
        profiler.start()
        for assignment_id in fresh:
            fn(assignment_id)
        profiler.stop()
        (out / f"{name}.txt").write_text(profiler.output_text(unicode=True, show_all=False))
        (out / f"{name}.html").write_text(profiler.output_html())
    print(f"  profiles of {len(fresh)} opens, data requests and saves in {out}/")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--tokens", type=int, default=40)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--queries", action="store_true", help="also print the SQL query count per request"
    )
    parser.add_argument(
        "--no-vacuum",
        action="store_true",
        help="measure straight after the bulk insert (no VACUUM (ANALYZE): no planner statistics)",
    )
    parser.add_argument(
        "--profile",
        metavar="DIR",
        help="also profile 200 opens and 200 saves with pyinstrument (requirements-bench.txt)"
        " and write the reports (text and HTML) to DIR",
    )
    args = parser.parse_args()
    server = postgres_server()
    if server is None:
        print("set DATABASE_URL=postgres://user@host:port/db (the benchmark makes its own db)")
        return 2
    with throwaway_database(server, "gridalign_bench_web"):
        os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridalign.settings")
        os.environ["DEBUG"] = "false"
        # production settings, but over plain HTTP: no HTTPS redirect, HSTS, secure cookies
        for name in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"):
            os.environ[name] = "false"
        os.environ["SECURE_HSTS_SECONDS"] = "0"
        return run(args)


def run(args: argparse.Namespace) -> int:
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    call_command("migrate", verbosity=0)
    install_urlconf()
    settings.ROOT_URLCONF = URLCONF
    settings.ALLOWED_HOSTS = ["testserver"]
    # the sources as they are: no collectstatic manifest needed to render the page
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    t0 = time.perf_counter()
    user, ids = build(args.pairs, args.tokens, args.seed)
    t_build = time.perf_counter() - t0
    if not args.no_vacuum:  # what an import or a seeding of this size leaves (settle_tables)
        from annotator.corpora.services.maintenance import settle_tables
        from annotator.models import Assignment, SeedAlignment, SentencePair

        assert settle_tables(models=[SentencePair, SeedAlignment, Assignment])

    client = Client()
    client.force_login(user)
    rng = random.Random(args.seed)
    # the last pair is the warm-up's (saved once already): never in the sample
    sample = rng.sample(ids[:-1], min(args.requests, len(ids) - 1))

    def get(url: str):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        return response

    def put(assignment_id: int, version: int, links):
        response = client.put(
            f"/api/assignments/{assignment_id}/annotation/",
            {"version": version, "links": links},
            content_type="application/json",
        )
        assert response.status_code == 200, (assignment_id, response.status_code)
        return response.json()

    # warm up every path once (imports, template compilation, the agreement kernels' import)
    get("/bench/trivial/")
    warm = ids[-1]
    get(f"/annotate/{warm}/")
    get(f"/api/assignments/{warm}/seed/")
    state = get(f"/api/assignments/{warm}/").json()
    put(warm, 0, state["seed"]["links"])

    def revalidate(assignment_id: int, etag: str):
        response = client.get(f"/api/assignments/{assignment_id}/seed/", HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 304, (assignment_id, response.status_code)
        return response

    times: dict[str, list[float]] = {
        k: [] for k in ("trivial", "trivial_user", "page", "data", "seed200", "seed304", "save")
    }
    for assignment_id in sample:
        times["trivial"].append(timed(get, "/bench/trivial/")[0])
        times["trivial_user"].append(timed(get, "/bench/trivial-user/")[0])
        times["page"].append(timed(get, f"/annotate/{assignment_id}/")[0])
        t_seed, response = timed(get, f"/api/assignments/{assignment_id}/seed/")
        times["seed200"].append(t_seed)
        times["seed304"].append(timed(revalidate, assignment_id, response["ETag"])[0])
        t_data, response = timed(get, f"/api/assignments/{assignment_id}/")
        times["data"].append(t_data)
        links = response.json()["seed"]["links"] + [[1, 0, "P"]]
        version = 0
        for _ in range(2):  # the first save of a pair, then one based on it
            t_save, result = timed(put, assignment_id, version, links)
            times["save"].append(t_save)
            version = result["version"]
            links = links + [[2, 0, "S"]]

    def version_of(assignment_id: int) -> int:
        return get(f"/api/assignments/{assignment_id}/").json()["annotation"]["version"]

    queries = {}
    if args.queries:
        probe = sample[0]
        etag = get(f"/api/assignments/{probe}/seed/")["ETag"]
        for name, fn in {
            "trivial": lambda: get("/bench/trivial/"),
            "trivial-user": lambda: get("/bench/trivial-user/"),
            "page": lambda: get(f"/annotate/{probe}/"),
            "seed 200": lambda: get(f"/api/assignments/{probe}/seed/"),
            "seed 304": lambda: revalidate(probe, etag),
            "data": lambda: get(f"/api/assignments/{probe}/"),
            "save": None,
        }.items():
            if name == "save":
                version = version_of(probe)
                fn = lambda v=version: put(probe, v, [])  # noqa: E731
            with CaptureQueriesContext(connection) as ctx:
                fn()
            queries[name] = len(ctx.captured_queries)

    if args.profile:
        touched = {*sample, ids[-1]}
        profile(args.profile, [a for a in ids if a not in touched][:200], get, put)
    return report(args, t_build, times, queries)


def report(args, t_build: float, times: dict[str, list[float]], queries: dict[str, int]) -> int:
    """Print every figure with its ratio to both same-run anchors; the verdict (exit status)."""
    bare95 = percentile(times["trivial"], 0.95)
    anchor95 = percentile(times["trivial_user"], 0.95)
    print(
        f"web benchmark: PostgreSQL, {args.pairs:,} pairs of {args.tokens}×{args.tokens} tokens "
        f"with seeds and posteriors (built in {t_build:.1f} s); {len(times['page'])} pairs "
        f"opened, {len(times['save'])} saves; tables "
        f"{'as inserted' if args.no_vacuum else 'vacuumed'}; Django test Client in-process, "
        f"logged-in session; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(f"  {'':44} {'p50 ms':>8} {'p95 ms':>8} {'/ logged-in':>12} {'/ bare':>8}")

    def row(label: str, values: list[float]) -> float:
        p95 = percentile(values, 0.95)
        print(
            f"  {label:44} {statistics.median(values):8.2f} {p95:8.2f}"
            f" {p95 / anchor95:11.1f}x {p95 / bare95:7.1f}x"
        )
        return p95

    def summed(a: str, b: str) -> list[float]:
        return [x + y for x, y in zip(times[a], times[b], strict=True)]

    row("anchor: trivial JSON view, bare", times["trivial"])
    row("anchor: trivial JSON view, logged-in", times["trivial_user"])
    open95 = row("open: the page GET /annotate/<id>/", times["page"])
    row("  seed, first fetch GET .../seed/ (200)", times["seed200"])
    row("  seed revalidated GET .../seed/ (304)", times["seed304"])
    row("  page + seed 200 (a first opening)", summed("page", "seed200"))
    row("  page + seed 304 (a later opening)", summed("page", "seed304"))
    row("data: GET /api/assignments/<id>/ (+ seed)", times["data"])
    save95 = row("save: PUT .../annotation/", times["save"])
    if queries:
        print("  SQL queries per request: " + ", ".join(f"{k} {v}" for k, v in queries.items()))
    ok_open = open95 <= RATIO_GOAL * anchor95
    ok_save = save95 <= RATIO_GOAL * anchor95 and save95 <= SAVE_GOAL_MS
    print(
        f"  goal open (the page) p95 <= {RATIO_GOAL:.0f}x anchor: {'PASS' if ok_open else 'FAIL'};"
        f"  save p95 <= {RATIO_GOAL:.0f}x anchor and <= {SAVE_GOAL_MS:.0f} ms: "
        f"{'PASS' if ok_save else 'FAIL'}"
    )
    return 0 if ok_open and ok_save else 1


if __name__ == "__main__":
    sys.exit(main())
