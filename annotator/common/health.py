"""Is the service able to work? The database answers a query and the Celery broker accepts
connections. Each check is bounded by a short timeout so /healthz answers within ~3 s even
when Redis is unreachable."""

from __future__ import annotations

import os
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.db import connections

BROKER_TIMEOUT = 1.5  # seconds, for connecting and for the reply


def check_database(*, alias: str = "default") -> dict[str, Any]:
    conn = connections[alias]
    started = time.perf_counter()
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return {"ok": False, "vendor": conn.vendor, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "vendor": conn.vendor, "ms": _ms(started)}


def check_broker(*, url: str | None = None, timeout: float = BROKER_TIMEOUT) -> dict[str, Any]:
    """Redis: a PING with connect/read timeouts and no retries. Filesystem: the queue folders
    exist and are writable. ``url`` defaults to settings.CELERY_BROKER_URL, read per call."""
    url = url or settings.CELERY_BROKER_URL
    transport = url.split("://", 1)[0].lower()
    info: dict[str, Any] = {"transport": transport, "url": redact_url(url)}
    started = time.perf_counter()
    try:
        if transport in ("redis", "rediss"):
            _ping_redis(url, timeout=timeout)
        elif transport == "filesystem":
            _check_folders(getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}))
        elif transport != "memory":
            raise ValueError(f"unsupported broker transport {transport!r}")
    except Exception as exc:
        return {"ok": False, **info, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, **info, "ms": _ms(started)}


def health() -> tuple[bool, dict[str, Any]]:
    checks = {"database": check_database(), "broker": check_broker()}
    return all(c["ok"] for c in checks.values()), checks


def redact_url(url: str) -> str:
    """The URL without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + netloc))


def _ping_redis(url: str, *, timeout: float) -> None:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    client = redis.Redis.from_url(
        url,
        socket_connect_timeout=timeout,
        socket_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
    )
    try:
        client.ping()
    finally:
        client.close()


def _check_folders(options: dict[str, Any]) -> None:
    keys = ("data_folder_in", "data_folder_out", "processed_folder")
    for key in keys:
        folder = options.get(key)
        if folder and not (os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)):
            raise OSError(f"broker folder {folder} ({key}) is missing or not writable")


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
