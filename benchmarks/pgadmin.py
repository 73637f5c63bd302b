"""Throwaway PostgreSQL databases for the benchmarks that need their own: the URL of another
database on the same server, one administrative statement (CREATE / DROP DATABASE) run
outside a transaction, and ``throwaway_database``, which makes one for a run and drops it
after. Imported by the benchmark scripts, which run with this folder first on ``sys.path``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

POSTGRES_SCHEMES = ("postgres://", "postgresql://")


def postgres_server() -> str | None:
    """``DATABASE_URL`` when it names a PostgreSQL server, else None."""
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(POSTGRES_SCHEMES) else None


def with_database(url: str, name: str) -> str:
    """``url`` with its database replaced by ``name``."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def admin(url: str, sql: str) -> None:
    """Run ``sql`` on ``url`` in autocommit (CREATE and DROP DATABASE refuse a transaction)."""
    import psycopg2

    conn = psycopg2.connect(url)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
    finally:
        conn.close()


@contextmanager
def throwaway_database(server: str, prefix: str) -> Iterator[str]:
    """A new database ``<prefix>_<pid>`` on ``server`` for the block, with ``DATABASE_URL``
    pointing at it; afterwards Django's connections (if Django was set up) are closed and the
    database is dropped, whatever happened."""
    name = f"{prefix}_{os.getpid()}"
    url = with_database(server, name)
    admin(server, f'CREATE DATABASE "{name}"')
    try:
        os.environ["DATABASE_URL"] = url
        yield url
    finally:
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # Django never set up: nothing to close
            pass
        admin(server, f'DROP DATABASE IF EXISTS "{name}"')
