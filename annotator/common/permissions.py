"""Per-project roles for the API, composable with DRF's ``&`` / ``|``.

Querysets are scoped to what the user may see (``get_queryset``); these classes then decide
what they may do with an object that belongs to a project.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission

from annotator.common import access
from annotator.common.access import STAFF, project_role
from annotator.models import Membership, Project


def object_project(obj: Any) -> Project | None:
    """The project an API object belongs to (a Project, or anything with ``project`` or
    ``pair.project``)."""
    if isinstance(obj, Project):
        return obj
    if getattr(obj, "project", None) is not None:
        return obj.project
    pair = getattr(obj, "pair", None)
    return getattr(pair, "project", None)


class IsProjectMember(BasePermission):
    """Any member of the object's project (or staff)."""

    message = "You are not a member of this project."

    def has_object_permission(self, request, view, obj) -> bool:
        project = object_project(obj)
        return project is not None and project_role(project=project, user=request.user) is not None


class IsProjectLead(BasePermission):
    """A lead of the object's project (or staff)."""

    message = "Only the project's leads may do this."

    def has_object_permission(self, request, view, obj) -> bool:
        project = object_project(obj)
        return project is not None and project_role(project=project, user=request.user) in (
            Membership.Role.LEAD,
            STAFF,
        )


def project_for_request(*, request: Any, project_id: Any, lead: bool = False) -> Project:
    """The project of a ``/api/projects/{id}/...`` route: 404 unless the user is a member (or
    staff), then 403 unless a lead when ``lead``. The order keeps outsiders from learning which
    project ids exist."""
    from rest_framework.exceptions import NotFound, PermissionDenied

    try:
        pk = int(project_id)
    except (TypeError, ValueError):
        raise NotFound("No such project, or you are not a member of it.") from None
    project = Project.objects.filter(pk=pk).first() if 0 < pk < 2**63 else None
    role = project_role(project=project, user=request.user) if project else None
    if project is None or role is None:
        raise NotFound("No such project, or you are not a member of it.")
    if lead and role not in (Membership.Role.LEAD, STAFF):
        raise PermissionDenied(IsProjectLead.message)
    return project


class RoleContextMixin:
    """Puts the user's roles (one query per request) into the serializer context."""

    def user_roles(self) -> dict[int, str]:
        if not hasattr(self, "_roles"):
            self._roles = access.roles_by_project(user=self.request.user)  # type: ignore[attr-defined]
        return self._roles

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()  # type: ignore[misc]
        context["roles"] = self.user_roles()
        return context
