"""Audit finding 6 (issue 30): under a long write transaction (an import), other requests
still read at once, and a second writer waits its turn instead of failing "database is locked".

SQLite: the settings' options (WAL, busy timeout, IMMEDIATE transactions; gridalign/env.py) on
a database file of the test's own (the test database is in memory, where WAL does not apply).
PostgreSQL: the same checks against the test database (MVCC gives them; kept so that both
databases are held to the same behaviour)."""

from __future__ import annotations

import copy
import threading
import time

import pytest
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils.module_loading import import_string

from gridalign.env import SQLITE_OPTIONS

pytestmark = pytest.mark.django_db

ROWS = 20_000  # enough to spill SQLite's page cache: without WAL, that locks readers out


@pytest.fixture
def open_connection(tmp_path):
    """``open_connection()``: a new connection (its own DatabaseWrapper) to one shared database
    holding a table ``probe`` with one row."""
    settings = copy.deepcopy(connections["default"].settings_dict)
    if settings["ENGINE"].endswith("sqlite3"):
        settings["NAME"] = str(tmp_path / "concurrency.sqlite3")
        assert settings["OPTIONS"] == SQLITE_OPTIONS  # the settings' own options are tested
    opened: list[BaseDatabaseWrapper] = []

    def open_one() -> BaseDatabaseWrapper:
        backend = import_string(settings["ENGINE"] + ".base.DatabaseWrapper")
        wrapper = backend(copy.deepcopy(settings), alias=f"probe{len(opened)}")
        wrapper.inc_thread_sharing()  # used from the writer thread too
        wrapper.ensure_connection()
        opened.append(wrapper)
        return wrapper

    setup = open_one()
    with setup.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS probe")
        cur.execute("CREATE TABLE probe (id integer PRIMARY KEY, body text)")
        cur.execute("INSERT INTO probe (id, body) VALUES (0, 'before')")
    yield open_one
    with setup.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS probe")
    for wrapper in opened:
        wrapper.close()


def begin(wrapper: BaseDatabaseWrapper):
    """Start a transaction as Django's atomic() does on this database (SQLite: BEGIN
    IMMEDIATE, from the settings' transaction_mode)."""
    cur = wrapper.connection.cursor()
    mode = getattr(wrapper, "transaction_mode", None)
    cur.execute(f"BEGIN {mode}" if mode else "BEGIN")
    return cur


def long_write(wrapper: BaseDatabaseWrapper, started: threading.Event, hold: float) -> None:
    cur = begin(wrapper)
    if wrapper.vendor == "sqlite":
        cur.execute("PRAGMA cache_size = 10")  # spill early, as a big import does
    mark = "?" if wrapper.vendor == "sqlite" else "%s"  # raw DB-API cursors
    cur.executemany(
        f"INSERT INTO probe (id, body) VALUES ({mark}, {mark})",
        [(k, "x" * 200) for k in range(1, ROWS + 1)],
    )
    started.set()
    time.sleep(hold)
    cur.execute("COMMIT")


@pytest.mark.sqlite
def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(open_connection):
    wrapper = open_connection()
    if wrapper.vendor != "sqlite":
        pytest.skip("SQLite's journal mode")
    with wrapper.cursor() as cur:
        cur.execute("PRAGMA journal_mode")
        assert cur.fetchone()[0] == "wal"
        cur.execute("PRAGMA busy_timeout")
        assert cur.fetchone()[0] == 20_000
    assert wrapper.transaction_mode == "IMMEDIATE"


def test_a_reader_is_not_blocked_by_a_long_write_transaction(open_connection):
    writer, reader = open_connection(), open_connection()
    started = threading.Event()
    thread = threading.Thread(target=long_write, args=(writer, started, 3.0))
    thread.start()
    try:
        assert started.wait(30), "the writer never got going"
        t0 = time.monotonic()
        with reader.cursor() as cur:
            cur.execute("SELECT count(*), min(body) FROM probe")
            seen = cur.fetchone()
        waited = time.monotonic() - t0
    finally:
        thread.join()
    assert tuple(seen) == (1, "before")  # the committed state, not the write in flight
    assert waited < 1.0, f"the read waited {waited:.1f} s for the writer"


def test_a_second_writer_waits_for_the_first_instead_of_failing(open_connection):
    first, second = open_connection(), open_connection()
    started = threading.Event()
    thread = threading.Thread(target=long_write, args=(first, started, 1.0))
    thread.start()
    try:
        assert started.wait(30)
        cur = begin(second)  # a racing save: read, then write, in one transaction
        cur.execute("SELECT body FROM probe WHERE id = 0")
        cur.execute("UPDATE probe SET body = 'after' WHERE id = 0")
        cur.execute("COMMIT")
    finally:
        thread.join()
    with second.cursor() as cur:
        cur.execute("SELECT count(*), (SELECT body FROM probe WHERE id = 0) FROM probe")
        assert tuple(cur.fetchone()) == (ROWS + 1, "after")
