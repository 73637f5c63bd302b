"""A project's life in the browser (issue 31): create it, change its settings and guidelines,
archive and restore it. Who may create a project: staff, and anyone who already leads one
(a lead starts their next project without an administrator); the creator becomes its lead."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotator.models import Membership, Project

SETTINGS_FIELDS = (
    "name", "description", "guidelines", "source_language", "target_language", "monolingual",
    "double_annotation_share", "auto_retrain_every", "uncertainty_first", "max_tokens",
    "single_gold_policy",
)  # fmt: skip


class ProjectError(ValueError):
    """A project change that cannot be made (the message says why)."""


def may_create_projects(*, user: Any) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if user.is_staff:
        return True
    return Membership.objects.filter(user=user, role=Membership.Role.LEAD).exists()


def create_project(*, user: Any, **settings: Any) -> Project:
    """A new project with ``settings`` (any of ``SETTINGS_FIELDS``); ``user`` becomes its lead."""
    if not may_create_projects(user=user):
        raise ProjectError("Only staff and project leads may create projects.")
    unknown = set(settings) - set(SETTINGS_FIELDS)
    if unknown:
        raise ProjectError(f"unknown project settings: {', '.join(sorted(unknown))}")
    try:
        with transaction.atomic():
            project = Project(created_by=user, **settings)
            project.full_clean()
            project.save()
            Membership.objects.create(project=project, user=user, role=Membership.Role.LEAD)
    except ValidationError as exc:
        raise ProjectError(_message(exc)) from None
    except IntegrityError:
        raise ProjectError(f"a project named {settings.get('name')!r} exists already") from None
    return project


def _message(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
    return " ".join(exc.messages)


def update_project(*, project: Project, **settings: Any) -> Project:
    unknown = set(settings) - set(SETTINGS_FIELDS)
    if unknown:
        raise ProjectError(f"unknown project settings: {', '.join(sorted(unknown))}")
    for field, value in settings.items():
        setattr(project, field, value)
    try:
        with transaction.atomic():
            project.full_clean()
            project.save(update_fields=list(settings))
    except ValidationError as exc:
        raise ProjectError(_message(exc)) from None
    except IntegrityError:
        raise ProjectError(f"a project named {project.name!r} exists already") from None
    return project


def set_archived(*, project: Project, archived: bool) -> Project:
    """Archive (or restore) a project: it leaves (or rejoins) the home list. Its pairs, work,
    gold and history stay as they are."""
    project.archived_at = timezone.now() if archived else None
    project.save(update_fields=["archived_at"])
    return project
