"""What a locked-out login gets (django-axes' ``AXES_LOCKOUT_CALLABLE``): 429 with a message
saying why and for how long, as JSON for the API and JSON clients, else the login page's look.
``Retry-After`` gives the cool-off in seconds."""

from __future__ import annotations

import math
from typing import Any

from axes.helpers import get_cool_off
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

STATUS = 429


def lockout_message(minutes: int) -> str:
    return (
        f"Too many failed logins for this username from your address: logging in is locked "
        f"for {minutes} minute{'s' if minutes != 1 else ''}. Wait, then try again with the "
        "right password (a lead or an administrator can reset it)."
    )


def locked_out(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    cool_off = get_cool_off(request)
    seconds = int(cool_off.total_seconds()) if cool_off else 0
    message = lockout_message(max(1, math.ceil(seconds / 60)))
    wants_json = request.path.startswith("/api/") or "application/json" in request.headers.get(
        "Accept", ""
    )
    if wants_json:
        response: HttpResponse = JsonResponse({"error": message}, status=STATUS)
    else:
        context = {"message": message, "failure_limit": settings.AXES_FAILURE_LIMIT}
        response = render(request, "annotator/locked_out.html", context, status=STATUS)
    if seconds:
        response["Retry-After"] = str(seconds)
    return response
