"""``/healthz``: 200 when the database and the Celery broker answer, else 503. No login."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from annotator.selectors.health import health


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    ok, checks = health()
    return JsonResponse(checks, status=200 if ok else 503)
