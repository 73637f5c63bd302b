"""API tokens for scripts (``Authorization: Token <key>``).

Only a SHA-256 digest of each key is stored, so a database leak gives no usable key; the key is
returned once, when created. ``last_used_at`` is refreshed at most once a minute per token, so
a busy script costs no write per request.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from annotator.models import ApiToken

KEY_BYTES = 32  # 256 bits of randomness, ~43 URL-safe characters
PREFIX_LENGTH = 8
TOUCH_EVERY = timedelta(minutes=1)
MAX_TOKENS_PER_USER = 50


def digest_of(key: str) -> str:
    """The stored form of a key (hex SHA-256)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def create_token(*, user: Any, name: str = "") -> tuple[ApiToken, str]:
    """A new token for ``user``; returns the row and the key (shown once, never stored).

    Raises ValueError when the user already holds MAX_TOKENS_PER_USER tokens or the name is
    too long.
    """
    name = (name or "").strip()
    if len(name) > 100:
        raise ValueError("name: at most 100 characters")
    if ApiToken.objects.filter(user=user).count() >= MAX_TOKENS_PER_USER:
        raise ValueError(
            f"you already hold {MAX_TOKENS_PER_USER} tokens; revoke some on your profile page"
        )
    key = secrets.token_urlsafe(KEY_BYTES)
    token = ApiToken.objects.create(
        user=user, name=name, prefix=key[:PREFIX_LENGTH], digest=digest_of(key)
    )
    return token, key


def revoke_token(*, user: Any, token_id: int) -> bool:
    """Delete one of ``user``'s tokens; False when it is not theirs (or gone already)."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return bool(deleted)


def revoke_all_tokens(*, user: Any) -> int:
    """Delete every token of ``user`` (their password changed); returns how many."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted


def token_for_key(key: str) -> ApiToken | None:
    """The token whose key this is (with its user), or None."""
    if not key or len(key) > 200:
        return None
    return ApiToken.objects.select_related("user").filter(digest=digest_of(key)).first()


def touch_token(*, token: ApiToken, now: Any = None) -> bool:
    """Record a use: writes ``last_used_at`` only when the last one is a minute old or more.
    Returns True when it wrote."""
    now = now or timezone.now()
    if token.last_used_at is not None and now - token.last_used_at < TOUCH_EVERY:
        return False
    # The condition is repeated in SQL so that concurrent requests write once between them.
    updated = (
        ApiToken.objects.filter(pk=token.pk)
        .filter(Q(last_used_at__isnull=True) | Q(last_used_at__lte=now - TOUCH_EVERY))
        .update(last_used_at=now)
    )
    token.last_used_at = now
    return bool(updated)
