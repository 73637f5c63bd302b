"""Which projects, pairs and assignments a user may see through the API (reads only).

Roles per project: a lead sees everything of the project; an annotator sees the project, its
subcorpora and jobs, and only the pairs assigned to them with only their own assignment and
annotation (the blind rule); staff who are not members see what a lead sees.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from annotator.models import Assignment, Membership, Project

STAFF = "staff"  # the role shown to staff who are not members
LEAD_ROLES = (Membership.Role.LEAD, STAFF)


def project_role(*, project: Project, user: Any) -> str | None:
    """``"lead"``, ``"annotator"``, ``"staff"`` (staff, not a member) or None (no access)."""
    if not getattr(user, "is_authenticated", False):
        return None
    role = Membership.objects.filter(project=project, user=user).values_list("role", flat=True)
    role = role.first()
    if role:
        return role
    return STAFF if user.is_staff else None


def can_manage_project(*, project: Project, user: Any) -> bool:
    """Leads (and staff) start jobs and change a project; annotators do not."""
    return project_role(project=project, user=user) in (Membership.Role.LEAD, STAFF)


def get_visible_project(*, project_id: int, user: Any) -> Project | None:
    """The project if ``user`` is a member (or staff), else None."""
    project = Project.objects.filter(pk=project_id).first()
    if project is None or project_role(project=project, user=user) is None:
        return None
    return project


def visible_projects(*, user: Any) -> QuerySet[Project]:
    if not getattr(user, "is_authenticated", False):
        return Project.objects.none()
    if user.is_staff:
        return Project.objects.all()
    return Project.objects.filter(memberships__user=user).distinct()


def led_project_ids(*, user: Any) -> Any:
    """A subquery of the projects ``user`` leads (staff: every project; anonymous: none)."""
    if not getattr(user, "is_authenticated", False):
        return Project.objects.none().values("pk")
    if user.is_staff:
        return Project.objects.values("pk")
    return Membership.objects.filter(user=user, role=Membership.Role.LEAD).values("project_id")


def roles_by_project(*, user: Any) -> dict[int, str]:
    """``{project_id: "lead"|"annotator"}`` for the user's memberships (staff: see
    ``role_in``)."""
    if not getattr(user, "is_authenticated", False):
        return {}
    return dict(Membership.objects.filter(user=user).values_list("project_id", "role"))


def role_in(roles: dict[int, str], project_id: int, user: Any) -> str | None:
    role = roles.get(project_id)
    if role:
        return role
    return "staff" if getattr(user, "is_staff", False) else None


def assignment_visible(*, user: Any, prefix: str = "") -> Q:
    """Q over Assignment (or a relation to it, with ``prefix`` like ``"assignment__"``): the
    assignments ``user`` may see — all in projects they lead, else only their own (anonymous:
    none)."""
    if not getattr(user, "is_authenticated", False):
        return Q(pk__in=[])
    if user.is_staff:
        return Q()
    return Q(**{f"{prefix}pair__project_id__in": led_project_ids(user=user)}) | Q(
        **{f"{prefix}annotator": user}
    )


def pairs_with_assignment(*, user: Any, annotator: str | None, status: str | None) -> Exists:
    """EXISTS: the pair has a current (not withdrawn) assignment visible to ``user``,
    optionally of the annotator with this username and with this status."""
    assignments = Assignment.objects.filter(pair=OuterRef("pk"), withdrawn_at__isnull=True).filter(
        assignment_visible(user=user)
    )
    if annotator is not None:
        assignments = assignments.filter(annotator__username=annotator)
    if status is not None:
        assignments = assignments.filter(status=status)
    return Exists(assignments)
