"""``/healthz``: 200 when the database and the Celery broker answer, else 503. No login.

Anonymous callers (load balancers, uptime probes) get a bare ``{"status": "ok"}`` or
``{"status": "unavailable"}``: naming the database vendor, the broker URL or an error message
would tell an attacker what runs behind the site. Staff see each check's details."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from annotator.common.health import health


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    ok, checks = health()
    body: dict = {"status": "ok" if ok else "unavailable"}
    if request.user.is_authenticated and request.user.is_staff:
        body.update(checks)
    return JsonResponse(body, status=200 if ok else 503)
