"""Fixtures shared by every test folder.

Tests that need something outside the repository (the shared corpora, PostgreSQL, Redis, a
Celery worker, Chromium) call ``need(...)``: on a laptop without it they skip, but under
``CI=true`` a missing dependency is a failure, never a silent skip.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis checks behaviour, not speed: on a loaded 2-core machine (CI runs four test
# processes beside Chromium and Celery workers) its per-example deadline and its "generation
# is slow" health check fail correct code. Both are off for every property test.
settings.register_profile("gridalign", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gridalign")

REPO_ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def need(available: bool, what: str) -> None:
    """Skip (or, in CI, fail) the calling test unless ``available``."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{what} is required when CI=true", pytrace=False)
    pytest.skip(f"{what} not available")


def shared_data_dir() -> Path:
    """The shared real corpora: $GRIDALIGN_SHARED_DATA, else ../shared/data beside the repo."""
    return Path(os.environ.get("GRIDALIGN_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--database-tests-only",
        action="store_true",
        help="run only the tests that use the database (CI's second pass, on SQLite: a test "
        "that never touches the database gives the same answer on either)",
    )


def uses_database(item: pytest.Item) -> bool:
    """True for a test that can reach the database: it is marked ``django_db``, or needs a
    fixture that opens it (pytest-django refuses database access to any other test)."""
    if item.get_closest_marker("django_db"):
        return True
    return bool({"_django_db_helper", "live_server"} & set(getattr(item, "fixturenames", ())))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--database-tests-only"):
        kept = [item for item in items if uses_database(item)]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[it for it in items if not uses_database(it)])
            items[:] = kept
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    if workers > 1:
        items[:] = slow_files_first(items, workers)


# The tests that take longest (seconds: setup + call, as the CI's PostgreSQL pass measured them
# with --durations=30 on the loaded 2-core machine, 2026-11-29): a file (all its tests
# together: its module fixtures are set up once) or one test (a node id).
SLOW_TESTS = {
    "tests/api/test_schemathesis.py::test_no_request_gets_a_server_error[negative]": 361,
    "tests/faults/test_deploy_numba.py": 337,
    "tests/api/test_schemathesis.py::test_no_request_gets_a_server_error[positive]": 321,
    "tests/faults/test_web_kill.py": 250,
    "tests/core/test_sentalign_memory.py": 190,
    "tests/e2e/test_lead_flow.py": 170,
    "tests/core/test_supervised_model.py": 140,
    "tests/core/test_tags.py": 128,
    "tests/core/test_thesaurus.py": 126,
    "tests/core/test_paraphrase.py": 122,
    "tests/faults/test_db_restart.py": 120,
    "tests/e2e/test_csp.py": 117,
    "tests/core/test_builtin_pooling.py": 108,
}


def _slow_key(nodeid: str) -> str | None:
    if nodeid in SLOW_TESTS:
        return nodeid
    path = nodeid.split("::", 1)[0]
    return path if path in SLOW_TESTS else None


def slow_files_first(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """The collection reordered for ``--dist worksteal`` over ``workers`` processes. It hands
    each process a contiguous share of the collection, in order (sizes as ``shares`` computes
    them), and later moves tests from the end of the longest queue to a process that is idle.
    Each slow file or test (``SLOW_TESTS``) goes to the head of one share, the longest first
    to the share with the least slow time so far: every process starts on its slow tests at
    once, and the short tests behind them are what idle processes take over at the end,
    instead of a long test starting last, alone. Every process collects the same order (xdist
    checks it)."""
    slow: dict[str, list[pytest.Item]] = {}
    rest: list[pytest.Item] = []
    for item in items:
        key = _slow_key(item.nodeid)
        (slow.setdefault(key, []) if key else rest).append(item)
    heads: list[list[pytest.Item]] = [[] for _ in range(workers)]
    load = [0] * workers
    for key in sorted(slow, key=lambda k: (-SLOW_TESTS[k], k)):
        share = load.index(min(load))
        heads[share].extend(slow[key])
        load[share] += SLOW_TESTS[key]
    ordered: list[pytest.Item] = []
    for head, size in zip(heads, shares(len(items), workers), strict=True):
        take = max(0, size - len(head))
        ordered.extend(head + rest[:take])
        rest = rest[take:]
    return ordered + rest


def shares(n_items: int, workers: int) -> list[int]:
    """The sizes of the processes' first shares of ``n_items`` tests (xdist's worksteal)."""
    sizes = []
    for i in range(workers):
        sizes.append((n_items - sum(sizes)) // (workers - i))
    return sizes


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete_on_postgresql():
    """After each transactional test Django empties every table with one ``TRUNCATE``; on
    PostgreSQL that makes new files for each of the 33 tables and their indexes, ~0.5 s per
    test (≈0.04 s for the same tables emptied by ``DELETE``). The tests leave few rows, so
    the flush deletes them instead: in one transaction with the foreign keys (all Django's,
    DEFERRABLE) checked at its commit. Sequences keep counting, as after ``TRUNCATE``."""
    try:
        from django.db.backends.postgresql.operations import DatabaseOperations
    except ImportError:  # pragma: no cover - no PostgreSQL driver: nothing to speed up
        yield
        return
    from django.db import IntegrityError, OperationalError

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade or not tables:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return ["SET CONSTRAINTS ALL DEFERRED;"] + [
            f"DELETE FROM {self.quote_name(table)};" for table in tables
        ]

    execute = DatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):
        # A browser test's last request (an autosave as the page closes) may still be writing
        # when the flush starts; its row locks and the flush's can meet in a deadlock, which
        # PostgreSQL ends by rolling one back, or its row may reference one the flush deleted,
        # which the deferred foreign keys refuse at the flush's commit (seen on a slow VM: a
        # revision of a deleted annotation). The flush is one transaction: run it again.
        for attempt in range(5):
            try:
                return execute(self, sql_list)
            except (OperationalError, IntegrityError) as exc:
                code = getattr(exc.__cause__, "pgcode", None)
                if code not in ("40P01", "23503") or attempt == 4:
                    raise
                time.sleep(0.2 * (attempt + 1))

    DatabaseOperations.sql_flush = sql_flush
    DatabaseOperations.execute_sql_flush = execute_sql_flush
    yield
    DatabaseOperations.sql_flush = truncate
    DatabaseOperations.execute_sql_flush = execute


@pytest.fixture
def shared_data() -> Path:
    path = shared_data_dir()
    need(path.is_dir(), f"the shared corpora folder {path} (set GRIDALIGN_SHARED_DATA)")
    return path


# The session's one Chromium (tests/browser.py): defined once here so that tests/e2e and the
# fault tests share it.
from tests.browser import chromium_browser, page  # noqa: E402, F401
