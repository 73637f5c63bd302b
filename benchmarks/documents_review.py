"""A long document pair's review: what one key press costs, against a short pair's.

    .venv/bin/python benchmarks/documents_review.py [--sentences 40000] [--anchor 40] [--rounds 5]
        [--browser]

Two document pairs of one sentence per bead (``--sentences`` and ``--anchor`` a side, the
beads made directly: no aligner run) in a throwaway SQLite database (or ``DATABASE_URL``'s
server, a database of its own), read through the documents API with Django's test client
in-process (DEBUG off, a lead's session): the whole review state (``GET``, the API's
default), its first page of 200 beads (``?offset=0&limit=200``, the review page's first load)
and a page halfway, one decision answered with the whole state (the API's default) and one
answered with the bead and the counts (``?answer=bead``, what the review page sends on a key
press), a merge of two sentences and the split that undoes it (each answered with its first
page). Each figure is the median of ``--rounds`` requests, the server's own time and the
answer's size, beside the same request on the short pair (the anchor), and their ratio. Then,
once each, as they fix the beads: accept every bead, and send them all to annotation (a job:
its request, then its work run in-process as the worker's task would).

``--browser``: the review page itself in headless Chromium (Debian's ``/usr/bin/chromium``)
against gunicorn (one worker, DEBUG off, a fresh SQLite database): the page's first load
until its counts and first rows are drawn, and a key press (``r`` / ``a`` on the second bead) until its row
shows the decision, on both pairs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_pages import setup_django  # noqa: E402


def make_pair(lead, sentences: int):
    from django.utils import timezone

    from annotator.models import Bead, DocumentPair, Membership, Project

    project = Project.objects.create(name=f"review {sentences}")
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    de = [
        f"Im Jahr {1900 + k % 100} wurde das Haus Nummer {k} am See gebaut."
        for k in range(sentences)
    ]
    fr = [
        f"La maison numéro {k} fut construite au bord du lac en {1900 + k % 100}."
        for k in range(sentences)
    ]
    dp = DocumentPair.objects.create(
        project=project, name="long", source_language="de", target_language="fr",
        source_filename="a.de", target_filename="a.fr", source_format="lines",
        target_format="lines", source_original="\n".join(de), target_original="\n".join(fr),
        source_sentences=de, target_sentences=fr, aligned_at=timezone.now(), created_by=lead,
        unaligned_source=0, unaligned_target=0,  # as aligning keeps them: one to one throughout
    )  # fmt: skip
    Bead.objects.bulk_create(
        [Bead(document_pair=dp, position=k, source=[k], target=[k], confidence=0.8)
         for k in range(sentences)],
        batch_size=5000,
    )  # fmt: skip
    return dp


def once(client, dp, name: str) -> tuple[float, int]:
    """One request that changes the pair for good: accept every bead, or send them."""
    base = f"/api/document-pairs/{dp.pk}/"
    start = time.perf_counter()
    if name.startswith("accept"):
        answer = client.post(f"{base}accept-above/?offset=0&limit=200", {"threshold": 0.0},
                             content_type="application/json")  # fmt: skip
    else:  # a job: its request, then its work run here as the worker's task would
        from annotator.jobs.runner import run_job
        from annotator.models import Job

        answer = client.post(f"{base}send/", {"subcorpus": f"sent {dp.pk}"},
                             content_type="application/json")  # fmt: skip
        assert answer.status_code == 202, (name, answer.status_code, answer.content[:200])
        run_job(answer.json()["id"])
        job = Job.objects.get(pk=answer.json()["id"])
        assert job.status == "succeeded" and job.result["pairs"], (job.status, job.message)
        return (time.perf_counter() - start) * 1000, len(answer.content)
    took = (time.perf_counter() - start) * 1000
    assert answer.status_code == 200, (name, answer.status_code, answer.content[:200])
    return took, len(answer.content)


def measure(client, dp, rounds: int) -> dict[str, tuple[float, int]]:
    """Median milliseconds and bytes of each request on ``dp``."""
    base = f"/api/document-pairs/{dp.pk}/"
    middle = dp.beads.count() // 400 * 200
    cut = len(dp.source_sentences[1]) + 1
    requests = {
        "the whole state (the API's default)": lambda k: client.get(base),
        "its first page (the page's first load)": lambda k: client.get(f"{base}?offset=0&limit=200"),
        "a page halfway": lambda k: client.get(f"{base}?offset={middle}&limit=200"),
        "a decision, whole state answered": lambda k: client.post(
            base + "decide/", {"bead": bead(), "decision": ("accepted", "rejected")[k % 2]},
            content_type="application/json"),
        "a decision, ?answer=bead (a key press)": lambda k: client.post(
            base + "decide/?answer=bead", {"bead": bead(), "decision": ("accepted", "rejected")[k % 2]},
            content_type="application/json"),
        # a merge of sentences 2 and 3, then the split that undoes it: each answers a page
        "a merge, its page answered": lambda k: client.post(
            f"{base}merge/?offset=0&limit=200", {"side": "source", "index": 1},
            content_type="application/json"),
        "the split undoing it, its page answered": lambda k: client.post(
            f"{base}split/?offset=0&limit=200", {"side": "source", "index": 1, "offset": cut},
            content_type="application/json"),
    }  # fmt: skip
    times = {name: [] for name in requests}
    sizes = {}
    second: list[int] = []

    def bead() -> int:
        return second[-1]

    for k in range(rounds):  # a round sends each request once, in turn (the split undoes the merge)
        # the second bead as it is now (a merge or split realigns: its beads are new rows)
        second.append(dp.beads.order_by("position").values_list("pk", flat=True)[1])
        for name, send in requests.items():
            start = time.perf_counter()
            answer = send(k)
            times[name].append((time.perf_counter() - start) * 1000)
            assert answer.status_code == 200, (name, answer.status_code, answer.content[:200])
            sizes[name] = len(answer.content)
    return {name: (statistics.median(times[name]), sizes[name]) for name in requests}


PAGE_SETUP = """
import json, sys
sys.path.insert(0, {bench!r})
from django.contrib.auth import get_user_model
from documents_review import make_pair
lead = get_user_model().objects.create_user("review_lead", password={password!r})
print(json.dumps([make_pair(lead, n).pk for n in ({anchor}, {sentences})]))
"""


def browser(args) -> None:
    """The review page in Chromium: first load and one key press, anchor and long pair."""
    import secrets

    from playwright.sync_api import sync_playwright

    from tests.faults.processes import WebServer, app_env, prepare

    password = secrets.token_urlsafe(12)
    with tempfile.TemporaryDirectory(prefix="gridalign-review-page-") as tmp:
        env = app_env(database_url=f"sqlite:///{tmp}/db.sqlite3", var_dir=Path(tmp) / "var")
        code = PAGE_SETUP.format(bench=str(Path(__file__).resolve().parent), password=password,
                                 anchor=args.anchor, sentences=args.sentences)  # fmt: skip
        pairs = prepare(env, code)
        server = WebServer(env, workers=1, access_log=False)
        server.start()
        try:
            with sync_playwright() as pw:
                chromium = pw.chromium.launch(
                    executable_path="/usr/bin/chromium", args=["--no-sandbox"]
                )
                page = chromium.new_page(viewport={"width": 1400, "height": 900})
                page.goto(server.url + "/accounts/login/")
                page.fill("input[name=username]", "review_lead")
                page.fill("input[name=password]", password)
                page.click("button[type=submit]")
                page.wait_for_url(server.url + "/")
                rows = {}
                for n, pk in zip((args.anchor, args.sentences), pairs, strict=True):
                    rows[n] = _page_figures(
                        page, f"{server.url}/documents/{pk}/review/", n, args.rounds
                    )
                chromium.close()
        finally:
            server.stop()
    print(
        f"review page, Chromium, median of {args.rounds} key presses; load {os.getloadavg()[0]:.1f}"
    )
    (la, ka), (lf, kf) = rows[args.anchor], rows[args.sentences]
    print(
        f"  first load: {la:.0f} ms ({args.anchor} sentences), {lf:.0f} ms ({args.sentences}): {lf / la:.1f}x"
    )
    print(f"  a key press until its row shows it: {ka:.0f} ms, {kf:.0f} ms: {kf / ka:.1f}x")


def _page_figures(page, url: str, beads: int, rounds: int) -> tuple[float, float]:
    start = time.perf_counter()
    page.goto(url)
    # drawn: the counts name every bead, and the table holds its first page of them
    page.locator("[data-testid=review-counts]").filter(has_text=f"{beads} beads ").wait_for(
        timeout=600_000
    )
    page.locator("[data-testid=beads] tbody tr").first.wait_for(timeout=600_000)
    loaded = (time.perf_counter() - start) * 1000
    page.keyboard.press("j")
    presses = []
    for k in range(rounds):
        key, shown = ("r", "rejected") if k % 2 == 0 else ("a", "accepted")
        start = time.perf_counter()
        page.keyboard.press(key)
        # the second row as drawn now (a decision may redraw the row as a new element)
        page.wait_for_function(
            "cls => document.querySelectorAll('[data-testid=beads] tbody tr')[1]"
            ".classList.contains(cls)",
            arg=f"decision-{shown}",
            timeout=600_000,
        )
        presses.append((time.perf_counter() - start) * 1000)
    return loaded, statistics.median(presses)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sentences", type=int, default=40_000)
    ap.add_argument("--anchor", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--browser", action="store_true", help="the review page in Chromium instead")
    args = ap.parse_args()
    if args.browser:
        browser(args)
        return 0
    with tempfile.TemporaryDirectory(prefix="gridalign-review-") as tmp:
        if not os.environ.get("DATABASE_URL"):
            os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/review.db"
        setup_django()
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client

        lead = get_user_model().objects.create_user("review_lead", password="-")
        client = Client()
        client.force_login(lead)
        short, long = make_pair(lead, args.anchor), make_pair(lead, args.sentences)
        anchor, figure = measure(client, short, args.rounds), measure(client, long, args.rounds)
        # last, as it fixes the beads: every bead accepted, then sent to annotation (once)
        for name in ("accept every bead (accept-above 0)", "send them to annotation (job)"):
            anchor[name], figure[name] = (once(client, pair, name) for pair in (short, long))
        load = os.getloadavg()[0]
        print(f"document review, {connection.vendor}, median of {args.rounds}; load {load:.1f}")
        print(f"{'request':<40} {'anchor: ' + str(args.anchor) + ' sentences':>26} "
              f"{str(args.sentences) + ' sentences':>26}  ratio (time)")  # fmt: skip
        for name in anchor:
            (ta, sa), (tf, sf) = anchor[name], figure[name]
            print(f"{name:<40} {ta:9.1f} ms {sa:>11,} B {tf:9.1f} ms {sf:>11,} B  {tf / ta:7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
