"""The database going away is a 503 the client can retry, never a 500.

While PostgreSQL restarts (or fails over), every query raises ``OperationalError`` or
``InterfaceError``. Nothing was written by such a request (its transaction never committed), so
the honest answer is "not now, try again": 503 with ``Retry-After`` and a JSON body carrying
``detail`` and ``error`` (the key every API error has, see ``annotator.common.errors``). The grid's
offline queue (``transport.js``) keeps the edit and retries on any 5xx.

Two paths lead here: an exception from a view reaches :meth:`process_exception`; one raised
inside another middleware (the session or the user loaded from the database) has already been
turned into a 500 by Django when it reaches us, so the ``got_request_exception`` signal marks
the request and :meth:`__call__` replaces that 500. Put this middleware first in MIDDLEWARE.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from django.core.signals import got_request_exception
from django.http import HttpRequest, HttpResponse, JsonResponse

from annotator.common.db_errors import beyond_database_limits, database_unavailable

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 2
MESSAGE = "The database is unavailable for a moment; nothing was saved by this request. Retry."
_MARK = "_gridalign_database_unavailable"


TOO_LARGE = "The request is too large for the database ({reason}); retrying will not help."


def too_large_response(exc: BaseException) -> JsonResponse:
    message = TOO_LARGE.format(reason=str(exc).splitlines()[0][:200] if str(exc) else "a limit")
    return JsonResponse({"detail": message, "error": message}, status=413)


def unavailable_response() -> JsonResponse:
    response = JsonResponse({"detail": MESSAGE, "error": MESSAGE}, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


def _mark_request(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    """Called while Django handles an exception raised anywhere below us."""
    if request is not None and database_unavailable(sys.exc_info()[1]):
        setattr(request, _MARK, True)


got_request_exception.connect(_mark_request, dispatch_uid="gridalign-database-unavailable")


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 500 and getattr(request, _MARK, False):
            return unavailable_response()
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if beyond_database_limits(exception):  # a client error, never a retryable outage
            logger.warning("query past a database limit in %s: %s", request.path, exception)
            return too_large_response(exception)
        if not database_unavailable(exception):
            return None
        logger.warning(
            "database unavailable during %s %s: %s", request.method, request.path, exception
        )
        return unavailable_response()
