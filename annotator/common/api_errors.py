"""Every failure under /api/ answers with the API's JSON error, whoever produced it.

DRF's views answer their own errors through ``annotator.common.errors``; this middleware
covers the rest: a body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django raises
``RequestDataTooBig`` wherever the body is first read, and would answer an HTML 400, or its
debug page with DEBUG on), a path that is no route (Django's HTML 404), a CSRF refusal. Such a
response becomes ``{"error": ..., "detail": ...}`` with the same status. A 500 with DEBUG on
keeps Django's debug page (it is for the developer reading it).
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse

API_PREFIX = "/api/"


def too_big_message() -> str:
    return (
        f"the request body is larger than the {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes "
        "a request may carry (DATA_UPLOAD_MAX_MEMORY_SIZE); upload files as multipart "
        "form data, or send less"
    )


def json_error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message, "detail": message}, status=status)


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


class ApiJsonErrorsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        try:
            response = self.get_response(request)
        except RequestDataTooBig:  # read by a middleware below, outside any view
            return json_error(too_big_message(), 413)
        status = response.status_code
        if status < 400 or _is_json(response) or (status >= 500 and settings.DEBUG):
            return response
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "Error"
        return json_error(f"{phrase}: {request.method} {request.path}", status)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if request.path.startswith(API_PREFIX) and isinstance(exception, RequestDataTooBig):
            return json_error(too_big_message(), 413)
        return None
