"""Refuses, before any view runs, request fields the database cannot store.

PostgreSQL stores no NUL character in text (SQLite keeps it silently), so a NUL in a query
field, a form field (a discussion message, a name, any free text) or the path would reach a
query or a row and fail there with a 500 on one database and pass on the other. Every such
field is refused here with a 400 naming it: JSON for /api/, plain text for pages. JSON bodies
are checked by ``annotator.common.json_input.StrictJSONParser``; uploaded files' contents by
their readers, which name the file and line.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, QueryDict

from annotator.common.api_errors import API_PREFIX, json_error, too_big_message
from annotator.common.json_input import storable_problem

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def field_problem(where: str, fields: QueryDict) -> str | None:
    """Why one of ``fields`` (names or values) cannot be stored, naming it; or None."""
    for name, values in fields.lists():
        if problem := storable_problem(name):
            return f"the name of a {where} field {problem}"
        for value in values:
            if problem := storable_problem(value):
                return f"the {where} field {name!r} {problem}"
    return None


def request_problem(request: HttpRequest, *, api: bool) -> str | None:
    if problem := storable_problem(request.path):
        return f"the path {problem}"
    if problem := field_problem("query", request.GET):
        return problem
    if request.method != "POST" or request.content_type not in FORM_TYPES:
        return None
    if api and request.content_type == "multipart/form-data":
        # An upload to the API is parsed once its sender is known (DRF authenticates in the
        # view), not here for anyone; its serializers' fields refuse a NUL themselves.
        return None
    return field_problem("form", request.POST)


class UnstorableInputMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        api = request.path.startswith(API_PREFIX)
        try:
            problem = request_problem(request, api=api)
        except RequestDataTooBig:
            if api:
                return json_error(too_big_message(), 413)
            raise
        if problem is None:
            return self.get_response(request)
        message = f"Refused: {problem}. Nothing was saved."
        if api:
            return json_error(message, 400)
        return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
