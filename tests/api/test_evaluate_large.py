"""Audit finding 7 (issue 30): evaluating a file with more ids than the database takes in one
query works (the lookup is split under SQLite's variable limit), and a query past an engine's
limit is never reported as a retryable outage (503 "Retry"), only as a request too large."""

from __future__ import annotations

import json
import sqlite3

import pytest
from django.db import OperationalError, connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from annotator.common.db_errors import beyond_database_limits, database_unavailable
from annotator.common.middleware import DatabaseUnavailableMiddleware
from annotator.corpora.services.evaluation import ID_CHUNK
from tests.api.helpers import upload

pytestmark = pytest.mark.django_db

UNKNOWN = 2 * ID_CHUNK + 17  # ids of the file without gold: three lookups


@pytest.fixture
def low_variable_limit():
    """On SQLite, allow no more variables per statement than one lookup needs (a build with
    the old default of 999 is not far off), so one query of every id would fail."""
    if connection.vendor != "sqlite":
        yield
        return
    connection.ensure_connection()
    raw = connection.connection
    old = raw.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, ID_CHUNK + 10)
    yield
    raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, old)


def line(pid, source, target, sure):
    return json.dumps({"id": pid, "source": source, "target": target, "sure": sure})


def test_a_file_with_more_ids_than_one_query_takes_is_evaluated(
    api, lead, project, corpus, low_variable_limit
):
    lines = [line("p1", "the cat sat", "a cat was sitting", [[1, 1]])]
    lines += [line(f"x{k}", "a b", "c d", [[0, 0]]) for k in range(UNKNOWN)]
    with CaptureQueriesContext(connection) as queries:
        response = api(lead).post(
            f"/api/projects/{project.pk}/evaluate/",
            {"file": upload("system.jsonl", "\n".join(lines) + "\n")},
            format="multipart",
        )
    assert response.status_code == 200, response.content[:500]
    result = response.json()
    assert result["pairs"] == 1
    assert len(result["unmatched"]) == UNKNOWN
    assert {u["reason"] for u in result["unmatched"]} == {"no pair with this id in the project"}
    lookups = [
        q for q in queries.captured_queries if "external_id" in q["sql"] and " IN " in q["sql"]
    ]
    assert len(lookups) == 3


@pytest.mark.parametrize(
    "message",
    [
        "too many SQL variables",
        "sending query and params failed: number of parameters must be between 0 and 65535",
        "stack depth limit exceeded",
    ],
)
def test_a_query_past_a_limit_is_413_not_a_retryable_503(message):
    exc = OperationalError(message)
    assert beyond_database_limits(exc) and not database_unavailable(exc)
    middleware = DatabaseUnavailableMiddleware(lambda request: None)
    response = middleware.process_exception(RequestFactory().post("/api/x/"), exc)
    assert response.status_code == 413
    assert "Retry-After" not in response
    body = json.loads(response.content)
    assert "retrying will not help" in body["error"] and "Retry." not in body["error"]


def test_an_outage_is_still_a_retryable_503():
    for message in ("database is locked", "server closed the connection unexpectedly"):
        exc = OperationalError(message)
        assert database_unavailable(exc) and not beyond_database_limits(exc)
        response = DatabaseUnavailableMiddleware(lambda r: None).process_exception(
            RequestFactory().get("/api/x/"), exc
        )
        assert response.status_code == 503 and response["Retry-After"]
