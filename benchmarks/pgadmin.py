"""Throwaway PostgreSQL databases for the benchmarks that need their own: the URL of another
database on the same server, and one administrative statement (CREATE / DROP DATABASE) run
outside a transaction. Imported by the benchmark scripts, which run with this folder first on
``sys.path``."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


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
