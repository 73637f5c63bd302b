"""The SQL a request sent, as tests read it: a prepared statement's ``EXECUTE name(...)``
(annotator/common/compiled.py, on PostgreSQL) shown as the statement's own text."""

from __future__ import annotations

from django.db import connection


def statements(ctx) -> list[str]:
    """The SQL of each query ``ctx`` (a CaptureQueriesContext) captured."""
    sql = [q["sql"] for q in ctx.captured_queries]
    if connection.vendor != "postgresql" or not any(s.startswith("EXECUTE") for s in sql):
        return sql
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        prepared = {name: text.split(" AS ", 1)[1] for name, text in cursor.fetchall()}
    return [prepared.get(_name(s), s) if s.startswith("EXECUTE") else s for s in sql]


def _name(execute: str) -> str:
    return execute.split()[1].split("(")[0]
