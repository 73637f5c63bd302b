"""On SQLite, a login or a token request during a big import answers within a short bound.

A big import is one transaction (a failed import leaves nothing), so on SQLite it holds the one
write lock until it commits. A request that needs to write meanwhile waits at most
``SQLITE_REQUEST_WAIT_SECONDS`` (``annotator.common.sqlite_wait``) and then gets a 503 JSON
with Retry-After, instead of waiting the connection's 20 s. Real processes on a database
file of the test's own (the test database is in memory, where the lock works otherwise): one
runs ``import_file`` and holds its transaction open at a write until told to go on; another
sends the requests through the full middleware stack.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.sqlite

REPO = Path(__file__).resolve().parents[2]
WAIT_SECONDS = 2  # SQLITE_REQUEST_WAIT_SECONDS for the test: the bound asserted below
SLACK_SECONDS = 5.0  # the request's own work on a loaded 2-core machine (far below 20 s)
PASSWORD = "a long enough pass phrase 4821"

SETUP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.contrib.auth import get_user_model
get_user_model().objects.create_user("lead_user", password=PASSWORD)
"""

IMPORT = """
import sys, time, django
from pathlib import Path
django.setup()
from annotator.corpora.services.importing import import_file
from annotator.models import Project
release = Path(sys.argv[2])
held = []
def progress(fraction, message):
    if not held and message.startswith("stored"):  # the first rows are written: lock held
        held.append(1)
        print("HOLDING", flush=True)
        deadline = time.monotonic() + 120
        while not release.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
report = import_file(project=Project.objects.create(name="big"), path=sys.argv[1], fmt="tsv",
                     progress=progress)
print("DONE", report.pairs_created, flush=True)
"""

REQUESTS = """
import json, time, django
django.setup()
from django.test import Client
Client(HTTP_HOST="localhost").get("/accounts/login/")  # warm: URLs and views loaded, no write
out = []
for path, data in (
    ("/api/auth/token/", {"username": "lead_user", "password": PASSWORD, "name": "laptop"}),
    ("/accounts/login/", {"username": "lead_user", "password": PASSWORD}),
):
    client = Client(HTTP_HOST="localhost")
    t0 = time.perf_counter()
    response = client.post(path, data)
    out.append({"path": path, "status": response.status_code,
                "seconds": time.perf_counter() - t0,
                "retry_after": response.get("Retry-After"),
                "type": response.get("Content-Type", ""),
                "body": response.content.decode(errors="replace")[:400]})
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def sqlite_env(tmp_path_factory):
    """A migrated database file with one user, shared by the module's tests (a migration
    takes half a minute on a loaded machine)."""
    folder = tmp_path_factory.mktemp("sqlite_wait")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'wait.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "gridalign.settings",
        "DEBUG": "true",
        "SQLITE_REQUEST_WAIT_SECONDS": str(WAIT_SECONDS),
        "PYTHONPATH": str(REPO),
    }
    env.setdefault("SECRET_KEY", "x" * 50)
    run_python(SETUP, env=env)
    return env


def run_python(code: str, *args: str, env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-c", f"PASSWORD = {PASSWORD!r}\n{code}", *args],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def write_pairs(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for k in range(n):
            fh.write(f"p{k}\tword{k} and more\tmot{k} et plus\n")


def test_requests_during_a_big_sqlite_import_get_a_quick_503_and_the_import_commits(
    sqlite_env, tmp_path
):
    pairs = tmp_path / "pairs.tsv"
    write_pairs(pairs, 12_000)  # three chunks: the lock is held after the first
    release = tmp_path / "release"
    importer = subprocess.Popen(
        [sys.executable, "-c", IMPORT, str(pairs), str(release)],
        env=sqlite_env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert importer.stdout is not None
        assert importer.stdout.readline().strip() == "HOLDING", importer.stderr.read()
        answers = json.loads(run_python(REQUESTS, env=sqlite_env))
        assert importer.poll() is None  # the import still held its transaction throughout
    finally:
        release.touch()
        stdout, stderr = importer.communicate(timeout=300)
    assert importer.returncode == 0, stderr[-3000:]
    assert stdout.split() == ["DONE", "12000"]  # the import was not disturbed
    for answer in answers:
        assert answer["seconds"] <= WAIT_SECONDS + SLACK_SECONDS, answer
        assert answer["status"] == 503, answer["body"]
        assert answer["type"].startswith("application/json"), answer
        assert "database is unavailable" in json.loads(answer["body"])["detail"], answer
        assert answer["retry_after"], answer


def test_without_a_big_write_the_same_requests_succeed(sqlite_env):
    """The short wait costs nothing when no big write runs: both requests go through."""
    answers = json.loads(run_python(REQUESTS, env=sqlite_env))
    statuses = {a["path"]: a["status"] for a in answers}
    assert statuses == {"/api/auth/token/": 201, "/accounts/login/": 302}, answers
