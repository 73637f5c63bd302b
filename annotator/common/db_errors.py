"""Which database errors are an outage (retry later) and which are a request too big for the
database (retrying never helps).

Both SQLite and PostgreSQL raise ``OperationalError`` for either: a server restarting or a
locked SQLite file, but also a query past a limit of the engine (SQLite's "too many SQL
variables", PostgreSQL's program-limit class 54, psycopg's 65,535 parameters). Only the first
kind is a 503 with ``Retry-After``; the second is a 413 saying the request is too large, so a
client is never told to retry what will fail again.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError

# Lower-case fragments of the messages of engine limits (SQLite, PostgreSQL, psycopg).
LIMIT_MESSAGES = (
    "too many sql variables",
    "too many terms in compound select",
    "string or blob too big",
    "expression tree is too large",
    "too many columns",
    "number of parameters must be between",
    "stack depth limit exceeded",
    "cannot pass more than",
    "index row size",
)


def beyond_database_limits(exc: BaseException | None) -> bool:
    """True for an error that says the query is past a limit of the engine."""
    if not isinstance(exc, OperationalError | InterfaceError):
        return False
    cause = exc.__cause__ or exc
    if str(getattr(cause, "sqlstate", "") or "").startswith("54"):  # program_limit_exceeded
        return True
    text = str(exc).lower()
    return any(fragment in text for fragment in LIMIT_MESSAGES)


def database_unavailable(exc: BaseException | None) -> bool:
    """True for an error that means the database is away or busy for now: worth a retry."""
    return isinstance(exc, OperationalError | InterfaceError) and not beyond_database_limits(exc)
