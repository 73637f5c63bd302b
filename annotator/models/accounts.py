"""API tokens (only their hash is stored)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

User = settings.AUTH_USER_MODEL


class ApiToken(models.Model):
    """A token for scripts (``Authorization: Token <key>``). Only a SHA-256 digest of the key is
    stored; the key is shown once, when created. A user may hold several and revoke each."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(
        max_length=8, help_text="First characters of the key, to tell keys apart."
    )
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"token {self.prefix}… of {self.user}"
