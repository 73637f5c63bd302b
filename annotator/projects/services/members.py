"""A project's members (issue 8 §1): leads add and remove annotators and leads.

Removing a member never deletes work: the membership goes, their unstarted assignments are
withdrawn (so the next plan gives those pairs to someone else) and everything they started or
submitted stays, with its revisions. A project always keeps at least one lead.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from annotator.models import Membership, Project
from annotator.projects.services.assignment import withdraw_unstarted
from annotator.projects.services.member_rules import NO_SUCH_MEMBER


class MemberError(ValueError):
    """A membership change that cannot be made (the message says why)."""


@dataclass
class NewAccount:
    user: Any
    password: str  # shown to the lead once; only its hash is stored


def add_member(*, project: Project, user: Any, role: str) -> Membership:
    """Add ``user`` with ``role`` ("lead" or "annotator"), or change their role."""
    if role not in Membership.Role.values:
        raise MemberError(f"role must be one of {', '.join(Membership.Role.values)}, not {role!r}")
    if not user.is_active:
        raise MemberError(f"{user.get_username()} is deactivated; activate the account first")
    with transaction.atomic():
        current = Membership.objects.select_for_update().filter(project=project, user=user).first()
        if current is None:
            return Membership.objects.create(project=project, user=user, role=role)
        if current.role == Membership.Role.LEAD and role != Membership.Role.LEAD:
            _keep_a_lead(project, leaving=user)
        current.role = role
        current.save(update_fields=["role"])
        return current


def remove_member(*, project: Project, user: Any) -> int:
    """Remove ``user`` from ``project``; returns how many unstarted assignments were withdrawn."""
    with transaction.atomic():
        current = Membership.objects.select_for_update().filter(project=project, user=user).first()
        if current is None:
            raise MemberError(NO_SUCH_MEMBER)  # never a name: they may be another project's
        if current.role == Membership.Role.LEAD:
            _keep_a_lead(project, leaving=user)
        current.delete()
        return withdraw_unstarted(project=project, user=user)


def create_annotator(*, project: Project, username: str, email: str = "") -> NewAccount:
    """A new account with a random one-time password, made an annotator of ``project``;
    ``email`` (optional) is where a forgotten-password link goes when the site sends mail."""
    User = get_user_model()
    username = (username or "").strip()
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise MemberError(
            f"username {username!r}: use letters, digits and @ . + - _ only"
        ) from None
    if not username or len(username) > 150:
        raise MemberError("a username of 1 to 150 characters is needed")
    if User.objects.filter(username__iexact=username).exists():
        raise MemberError(f"a user named {username!r} exists already: add them instead")
    password = secrets.token_urlsafe(12)
    with transaction.atomic():
        user = User.objects.create_user(username=username, password=password, email=email)
        Membership.objects.create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    return NewAccount(user=user, password=password)


def reset_password(*, project: Project, user: Any, by: Any) -> NewAccount:
    """A new random one-time password for an annotator of ``project`` (their old one stops
    working), reset by ``by``. A lead may reset only annotators of their own project who lead
    no project, are not staff, and work in no project ``by`` does not lead: a lead never takes
    over another lead's or an administrator's account, nor an account another team uses."""
    _check_may_reset(project=project, user=user, by=by)
    password = secrets.token_urlsafe(12)
    user.set_password(password)
    user.save(update_fields=["password"])
    return NewAccount(user=user, password=password)


def reset_token(*, project: Project, user: Any, by: Any) -> tuple[str, str]:
    """The (uidb64, token) of a one-time link where the annotator chooses a new password
    themselves (Django's password-reset confirmation page: it stops working once used, once
    the password changes otherwise, and after PASSWORD_RESET_TIMEOUT), for ``by`` to hand over
    when the site sends no mail. The same rule as ``reset_password``; the password stays."""
    _check_may_reset(project=project, user=user, by=by)
    return urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user)


def _check_may_reset(*, project: Project, user: Any, by: Any) -> None:
    """Raises MemberError unless ``by`` may reset ``user``'s password (``reset_password``)."""
    membership = Membership.objects.filter(project=project, user=user).first()
    if membership is None or membership.role != Membership.Role.ANNOTATOR:
        raise MemberError("no such annotator in this project")
    if (
        user.is_staff
        or user.is_superuser
        or Membership.objects.filter(user=user, role=Membership.Role.LEAD).exists()
    ):
        raise MemberError(
            f"{user.get_username()} leads a project or runs the site: only staff may reset "
            "their password (in the admin)"
        )
    if not getattr(by, "is_staff", False) and _works_beyond(user, by):
        raise MemberError(
            f"{user.get_username()} also works in projects you do not lead: only staff may "
            "reset their password (in the admin)"
        )


def _works_beyond(user: Any, by: Any) -> bool:
    """True when ``user`` is a member of a project that ``by`` does not lead."""
    led = Membership.objects.filter(user=by, role=Membership.Role.LEAD).values("project_id")
    return Membership.objects.filter(user=user).exclude(project_id__in=led).exists()


def _keep_a_lead(project: Project, *, leaving: Any) -> None:
    others = Membership.objects.filter(project=project, role=Membership.Role.LEAD).exclude(
        user=leaving
    )
    if not others.exists():
        raise MemberError("a project needs at least one lead: add another lead first")
