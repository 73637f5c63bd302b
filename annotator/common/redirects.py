"""Where a form may send the browser back to: only a path of this site.

A ``next`` field comes from the client, so it may name another site (``https://evil.example/``,
``//evil.example/``, ``/\\evil.example``, which browsers read as another host). Only a
relative path that ``url_has_allowed_host_and_scheme`` accepts with no host allowed is
followed; anything else gives the page's own fallback.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def site_path(target: str | None, *, request: HttpRequest, prefix: str = "/") -> str | None:
    """``target`` when it is a path of this site starting with ``prefix``, else None."""
    target = target or ""
    if not target.startswith(prefix) or target.startswith("//"):
        return None
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts=None, require_https=request.is_secure()
    ):
        return None
    return target


def next_or(request: HttpRequest, fallback: str, *, prefix: str = "/") -> str:
    """The form's ``next`` if it is a path of this site (under ``prefix``), else ``fallback``."""
    return site_path(request.POST.get("next"), request=request, prefix=prefix) or fallback
