"""Typed readers for settings from the environment. A bad value stops start-up with a message
naming the variable, never a silent fallback."""

from __future__ import annotations

import os
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None else value


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use true/false, 1/0, yes/no)")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        n = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None
    if minimum is not None and n < minimum:
        raise ImproperlyConfigured(f"{name}={n} must be at least {minimum}")
    return n


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# SQLite (the quick start's database; PostgreSQL for a team, see the docs): WAL, so readers are
# never blocked by a writer (a long import), writers wait up to 20 s for each other rather than
# failing at once, and every transaction takes the write lock when it begins (IMMEDIATE), so
# two racing saves queue instead of one failing to upgrade its read lock ("database is locked").
SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL;",
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
}


def parse_database_url(url: str, *, base_dir: str) -> dict:
    """``sqlite:///relative/or//absolute/path`` or ``postgres[ql]://user:pw@host:port/name``."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "sqlite":
        path = unquote(parts.path)
        if not path or path == "/":
            raise ImproperlyConfigured(f"DATABASE_URL={url!r}: no SQLite file path")
        # sqlite:////abs/file.db is absolute; sqlite:///var/file.db is relative to base_dir
        path = path[1:] if path.startswith("//") else os.path.join(base_dir, path.lstrip("/"))
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": path,
            "OPTIONS": dict(SQLITE_OPTIONS),
        }
    if scheme in ("postgres", "postgresql", "pgsql"):
        name = unquote(parts.path.lstrip("/"))
        if not name:
            raise ImproperlyConfigured(f"DATABASE_URL={url!r}: no database name")
        try:
            port = parts.port
        except ValueError:
            raise ImproperlyConfigured(f"DATABASE_URL={url!r}: bad port") from None
        options = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(port or ""),
            "OPTIONS": options,
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    raise ImproperlyConfigured(
        f"DATABASE_URL={url!r}: unsupported scheme {scheme!r} (use sqlite:/// or postgres://)"
    )
