"""On SQLite, a request waits a short, stated time for the database's one write lock.

SQLite lets one connection write at a time. A long write transaction (a big import, which
stays one transaction so that a failed import leaves nothing) holds that lock for its whole
length, and every other writer waits its busy timeout (20 s, the settings' ``timeout``) and
then fails "database is locked", which ``DatabaseUnavailableMiddleware`` answers 503. A person
logging in meanwhile would stare at a spinner for 20 s before that 503.

So a request's connection waits at most ``settings.SQLITE_REQUEST_WAIT_SECONDS`` (5 s):
short writes (a save, a login while nothing big runs) still queue behind one another and
succeed; behind an import the request gets its 503 JSON with ``Retry-After`` within the bound.
Workers and commands never pass here and keep the settings' longer wait. PostgreSQL has no
such lock (MVCC): nothing is done there.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse


class SqliteRequestWaitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.wait_ms = int(settings.SQLITE_REQUEST_WAIT_SECONDS * 1000)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if connection.vendor == "sqlite":
            # On the driver's connection: a setting, not one of the request's queries (tests
            # count those), and it lasts as long as the connection.
            connection.ensure_connection()
            connection.connection.execute(f"PRAGMA busy_timeout = {self.wait_ms}")
        return self.get_response(request)
