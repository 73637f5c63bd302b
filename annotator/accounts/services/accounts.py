"""People's accounts: a user with work is deactivated, never deleted.

Deleting a user would take their assignments, annotations and every revision with them (the
schema PROTECTs assignments, so the database refuses). Deactivating keeps all of it and stops
the person logging in: Django's backends refuse inactive users, so open sessions end too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet

from annotator.models import AnnotationRevision, Assignment, GoldAlignment, GoldRevision


def users_with_work(users: QuerySet[Any]) -> QuerySet[Any]:
    """Those of ``users`` who have work the project keeps: an assignment, a revision they
    saved, or a gold alignment they adjudicated or revised."""
    return users.filter(
        Exists(Assignment.objects.filter(annotator=OuterRef("pk")))
        | Exists(AnnotationRevision.objects.filter(author=OuterRef("pk")))
        | Exists(GoldRevision.objects.filter(author=OuterRef("pk")))
        | Exists(GoldAlignment.objects.filter(adjudicator=OuterRef("pk")))
    )


def deactivate_users(*, user_ids: Iterable[int]) -> int:
    """Deactivate these users (their work stays); returns how many were active."""
    User = get_user_model()
    with transaction.atomic():
        return User._default_manager.filter(pk__in=list(user_ids), is_active=True).update(
            is_active=False
        )
