"""Fixtures shared by every test folder.

Tests that need something outside the repository (the shared corpora, PostgreSQL, Redis, a
Celery worker, Chromium) call ``need(...)``: on a laptop without it they skip, but under
``CI=true`` a missing dependency is a failure, never a silent skip.
"""

from __future__ import annotations

import os
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
    if not config.getoption("--database-tests-only"):
        return
    kept = [item for item in items if uses_database(item)]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if not uses_database(item)])
        items[:] = kept


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
    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade or not tables:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return ["SET CONSTRAINTS ALL DEFERRED;"] + [
            f"DELETE FROM {self.quote_name(table)};" for table in tables
        ]

    DatabaseOperations.sql_flush = sql_flush
    yield
    DatabaseOperations.sql_flush = truncate


@pytest.fixture
def shared_data() -> Path:
    path = shared_data_dir()
    need(path.is_dir(), f"the shared corpora folder {path} (set GRIDALIGN_SHARED_DATA)")
    return path


# The session's one Chromium (tests/browser.py): defined once here so that tests/e2e and the
# fault tests share it.
from tests.browser import chromium_browser, page  # noqa: E402, F401
