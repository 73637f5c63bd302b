"""Every API error is JSON with an ``error`` string that names what went wrong and where.

DRF's own shapes are kept (``detail``, or one key per field), with ``error`` added as a
one-line summary, so clients can always show ``error``. Known bad-input exceptions of the
domain (a malformed file, an import that was refused, an invalid alignment) become 400s here
rather than 500s; anything else is a bug and still propagates.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from alignment_core.formats import FormatError
from annotator.common.api_errors import too_big_message
from annotator.common.exceptions import RefusedInput
from annotator.common.json_input import printable


class BadInput(exceptions.APIException):
    """A 400 whose message is given whole (not wrapped in a field)."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "bad_input"


class TooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


def summary(detail: Any, prefix: str = "") -> list[str]:
    """Flatten DRF error details to lines ``field: message``."""
    if isinstance(detail, dict):
        lines = []
        for key, value in detail.items():
            name = "" if key in ("non_field_errors", "detail", "error") else str(key)
            lines += summary(value, f"{prefix}{name}: " if name else prefix)
        return lines
    if isinstance(detail, list | tuple):
        return [line for item in detail for line in summary(item, prefix)]
    return [f"{prefix}{detail}"]


def exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, RequestDataTooBig):
        exc = TooLarge(too_big_message())
    elif isinstance(exc, FormatError | RefusedInput):
        exc = BadInput(str(exc))
    elif isinstance(exc, OverflowError):
        # A number too large for the database (SQLite: past 64 bits), e.g. a NumberFilter's.
        exc = BadInput(f"a number in the request is out of range ({exc})")
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data = printable(response.data)  # never echo what cannot be encoded
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        return response
    message = "; ".join(summary(data)) or response.status_text
    if isinstance(data, dict):
        response.data = {"error": message, **data}
    else:
        response.data = {"error": message, "errors": data}
    return response
