"""A new password ends the account's API tokens, whatever set it: the password change and reset
pages, a lead's reset on the Members page, the admin, ``manage.py changepassword``.

Every one of these calls ``set_password`` and saves the user, so the check sits on the user's
save (``pre_save`` notes a new secret, ``post_save`` revokes once it is stored). Django ends
the other sessions itself (the session carries a hash of the password); tokens carry none, so
they are deleted here, and when the password is made unusable. A hash upgrade at login (the
same password, a stronger hasher) keeps them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.hashers import check_password, is_password_usable
from django.db.models.signals import post_save, pre_save

from annotator.accounts.services.tokens import revoke_all_tokens

_CHANGED = "_gridalign_password_changed"


def _secret_changed(user: Any, stored: str | None) -> bool:
    if stored is None or stored == user.password:
        return False
    raw = getattr(user, "_password", None)  # set by set_password until the save
    if raw is None:  # a hash upgrade at login (Django clears it first), or made unusable
        return not is_password_usable(user.password)
    return not check_password(raw, stored)


def note_new_password(sender: Any, instance: Any, update_fields: Any = None, **_: Any) -> None:
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    stored = (
        sender._default_manager.filter(pk=instance.pk).values_list("password", flat=True).first()
    )
    setattr(instance, _CHANGED, _secret_changed(instance, stored))


def revoke_tokens_of_new_password(sender: Any, instance: Any, **_: Any) -> None:
    if getattr(instance, _CHANGED, False):
        setattr(instance, _CHANGED, False)
        revoke_all_tokens(user=instance)


def connect() -> None:
    uid = "gridalign-password-change"
    pre_save.connect(note_new_password, sender=settings.AUTH_USER_MODEL, dispatch_uid=uid)
    post_save.connect(
        revoke_tokens_of_new_password, sender=settings.AUTH_USER_MODEL, dispatch_uid=uid
    )
