"""django-axes' hooks: what a locked-out login gets (``AXES_LOCKOUT_CALLABLE``: 429 with a
message saying why and for how long, as JSON for the API and JSON clients, else the login
page's look; ``Retry-After`` gives the cool-off in seconds) and whose address a login attempt
comes from (``AXES_CLIENT_IP_CALLABLE``)."""

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
        "right password (an administrator can reset a forgotten one)."
    )


def client_address(request: HttpRequest) -> str | None:
    """REMOTE_ADDR; behind ``NUM_PROXIES`` trusted proxies, the address the outermost of them
    appended to X-Forwarded-For (what DRF's throttles use: ``rest_framework.throttling``).
    Anything a client wrote into X-Forwarded-For itself sits further left and is ignored."""
    remote = request.META.get("REMOTE_ADDR")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if not settings.NUM_PROXIES or not forwarded:
        return remote
    addresses = [a.strip() for a in forwarded.split(",") if a.strip()]
    if not addresses:
        return remote
    return addresses[-min(settings.NUM_PROXIES, len(addresses))]


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
