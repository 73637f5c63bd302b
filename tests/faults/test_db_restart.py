"""PostgreSQL restarted during a burst of saves (issue 10): every client gets a clear retryable
answer (503 JSON with Retry-After, never a 500), retries, and every save that was acknowledged
with a 2xx is in the database afterwards.

The integration test runs gunicorn against a PRIVATE PostgreSQL cluster (initdb in a temporary
folder, a free loopback port) so that restarting it disturbs nobody else. The first tests check
the middleware itself on any database.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

import pytest
from django.core.handlers.exception import convert_exception_to_response
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.test import RequestFactory

from annotator.common.middleware import DatabaseUnavailableMiddleware
from tests.conftest import need
from tests.faults.processes import (
    PrivatePostgres,
    WebServer,
    app_env,
    django_script,
    postgres_bin,
    prepare,
    wait_until,
)

CLIENTS = 4
SAVES_BEFORE = 3  # acknowledged saves per client before the restart
SAVES_AFTER = 6  # ... and after the database is back


# -- the middleware -----------------------------------------------------------------------


def _raising(exc: Exception):
    def view(request):
        raise exc

    return view


@pytest.mark.parametrize(
    "exc", [OperationalError("server closed the connection"), InterfaceError("connection closed")]
)
def test_a_database_error_in_a_view_is_a_503_with_retry_after(exc):
    middleware = DatabaseUnavailableMiddleware(_raising(exc))
    request = RequestFactory().put("/api/assignments/1/annotation/")
    response = middleware.process_exception(request, exc)
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    body = json.loads(response.content)
    assert "database is unavailable" in body["detail"]
    assert body["error"] == body["detail"]  # the key every API error carries


def test_a_database_error_below_the_middleware_is_a_503_not_a_500(settings):
    """Raised in an inner middleware (the session, the user): Django has made it a 500 before
    we see it; the request is marked by the got_request_exception signal and answered 503."""
    settings.DEBUG = False
    inner = convert_exception_to_response(_raising(OperationalError("could not connect")))
    response = DatabaseUnavailableMiddleware(inner)(RequestFactory().get("/annotate/1/"))
    assert response.status_code == 503
    assert json.loads(response.content)["detail"]


def test_other_errors_are_left_alone(settings):
    settings.DEBUG = False
    inner = convert_exception_to_response(_raising(ValueError("a bug")))
    response = DatabaseUnavailableMiddleware(inner)(RequestFactory().get("/"))
    assert response.status_code == 500  # a bug stays a bug
    ok = DatabaseUnavailableMiddleware(lambda request: HttpResponse("fine"))
    assert ok(RequestFactory().get("/")).status_code == 200


# -- the real thing -----------------------------------------------------------------------

SETUP = """
import json
from django.contrib.auth import get_user_model
from annotator.models import Assignment, Membership, Project, SentencePair
from annotator.accounts.services.tokens import create_token
project = Project.objects.create(name="db restart")
out = []
for n in range({clients}):
    user = get_user_model().objects.create_user(f"ann{{n}}", password="x" * 16)
    Membership.objects.create(project=project, user=user, role="annotator")
    pair = SentencePair.objects.create(
        project=project, external_id=str(n), position=n,
        source_tokens=[f"s{{k}}" for k in range(12)], target_tokens=[f"t{{k}}" for k in range(12)],
    )
    assignment = Assignment.objects.create(pair=pair, annotator=user)
    out.append({{"assignment": assignment.pk, "token": create_token(user=user, name="t")[1]}})
print(json.dumps(out))
"""

REVISIONS = """
import json
from annotator.models import AnnotationRevision
print(json.dumps([
    [r.annotation.assignment_id, r.version, r.links]
    for r in AnnotationRevision.objects.select_related("annotation")
]))
"""


@dataclass
class Client:
    """One annotator saving again and again, as the grid's transport does: a 2xx is
    acknowledged; 503 (and a dropped connection) is retried after Retry-After; a 409 whose
    stored links are ours means our save landed but its answer was lost."""

    base: str
    assignment: int
    token: str
    version: int = 0
    acknowledged: list[tuple[int, list]] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)  # every HTTP status seen (0 = no answer)
    bad_503: list[str] = field(default_factory=list)
    error: str = ""

    def links(self, n: int) -> list[list]:
        return [[n % 12, k, "S" if (n + k) % 2 else "P"] for k in range(1 + n % 5)]

    def put(self, links: list) -> tuple[int, dict, dict]:
        request = urllib.request.Request(
            f"{self.base}/api/assignments/{self.assignment}/annotation/",
            data=json.dumps({"version": self.version, "links": links}).encode(),
            method="PUT",
            headers={"Content-Type": "application/json", "Authorization": f"Token {self.token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, dict(response.headers), json.loads(response.read())
        except urllib.error.HTTPError as exc:
            body = exc.read()
            try:
                data = json.loads(body)
            except ValueError:
                data = {"raw": body.decode(errors="replace")[:300]}
            return exc.code, dict(exc.headers), data
        except (urllib.error.URLError, OSError):
            return 0, {}, {}

    def save(self, n: int, deadline: float) -> None:
        links = self.links(n)
        while time.monotonic() < deadline:
            status, headers, data = self.put(links)
            self.answers.append(status)
            if 200 <= status < 300:
                self.version = data["version"]
                self.acknowledged.append((self.version, links))
                return
            if status == 409 and data["current"]["links"] == links:
                self.version = data["current"]["version"]  # landed; only the answer was lost
                return
            if status == 503:
                if not (headers.get("Retry-After") and data.get("detail")):
                    self.bad_503.append(json.dumps([headers, data]))
                time.sleep(min(float(headers.get("Retry-After", 1)), 1.0) / 4)
                continue
            if status == 0:
                time.sleep(0.1)
                continue
            raise AssertionError(f"save {n} answered {status}: {data}")
        raise AssertionError(f"save {n} never landed")

    def run(self, stop: threading.Event, deadline: float) -> None:
        """Save 0, 1, 2 ... one after the other, without a pause, until ``stop`` is set."""
        try:
            n = 0
            while not stop.is_set():
                self.save(n, deadline)
                n += 1
        except Exception as exc:  # reported by the test thread
            self.error = repr(exc)


@pytest.fixture
def private_postgres():
    bindir = postgres_bin()
    need(bindir is not None, "PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb)")
    cluster = PrivatePostgres(bindir)
    yield cluster
    cluster.stop()


@pytest.mark.integration
def test_postgres_restarted_during_a_burst_of_saves_loses_no_acknowledged_save(
    private_postgres, tmp_path
):
    env = app_env(database_url=private_postgres.create_database("gridalign"), var_dir=tmp_path)
    people = prepare(env, SETUP.format(clients=CLIENTS))
    server = WebServer(env, workers=2)
    server.start()
    try:
        clients = [Client(server.url, p["assignment"], p["token"]) for p in people]
        deadline = time.monotonic() + 120
        stop = threading.Event()
        threads = [threading.Thread(target=c.run, args=(stop, deadline)) for c in clients]
        for t in threads:
            t.start()
        # the clients save without a pause (a fixed burst could end before the database went
        # down), so the restart lands in the middle of their saves
        wait_until(
            lambda: all(len(c.acknowledged) >= SAVES_BEFORE for c in clients),
            timeout=60,
            what="the first saves",
        )
        private_postgres.restart()
        back = [len(c.acknowledged) for c in clients]

        def carried_on() -> bool:
            pairs = zip(clients, back, strict=True)
            return all(len(c.acknowledged) >= b + SAVES_AFTER for c, b in pairs)

        try:
            wait_until(
                lambda: any(c.error for c in clients) or carried_on(),
                timeout=max(1.0, deadline - time.monotonic()),
                what="saves acknowledged after the restart",
            )
        finally:
            stop.set()
        for t in threads:
            t.join(timeout=max(1.0, deadline - time.monotonic()))
        assert not any(t.is_alive() for t in threads), "a client never finished"
        for c in clients:
            assert not c.error, f"{c.error}\n{server.log}"

        answers = [s for c in clients for s in c.answers]
        assert 500 not in answers, server.log
        assert 503 in answers, f"no client met the restart: {sorted(set(answers))}"
        assert not [b for c in clients for b in c.bad_503], "a 503 without Retry-After/detail"
        # the clients carried on after the database came back
        assert carried_on()

        stored = {(a, v): links for a, v, links in django_script(env, REVISIONS)}
        for c in clients:
            for version, links in c.acknowledged:
                assert stored.get((c.assignment, version)) == links, (
                    f"assignment {c.assignment}: acknowledged version {version} is not stored"
                )
    finally:
        server.stop()
