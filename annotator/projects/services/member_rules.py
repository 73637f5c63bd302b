"""Who may add whom to a project, and how refusals are worded. The one rule for the Members
page, the import's annotator load mode (page, API and job), and the server's commands.

The rule (issue 30, finding 10; second audit, finding 1):

* **Staff** may add any active account to any project, with either role.
* **A project's lead** may add, as annotator or as lead, only
  - people they already lead: members of any project the lead *leads* (being an annotator
    somewhere gives no say over that project's people), and
  - accounts in no project yet (fresh accounts, which staff make in the admin for this), and
  - new annotator accounts they create on the members page (``create_annotator``).
  Anyone else, whether or not such an account exists, gets the same answer as a name nobody
  has (:data:`NOT_ADDABLE`, :func:`not_addable_names`): a lead cannot use the form or an
  import to find out who uses the site, nor pull a stranger from another team into their
  project (and then reset their password, see ``members.reset_password``).
* ``by=None`` is the server's operator (``manage.py import_corpus``, ``setup_demo``):
  unrestricted, and an import by them creates the missing accounts.

Refusals never name a user of another project: a reassignment to someone who is not an
annotator here is "no such annotator in this project", a removal of a non-member "no such member
in this project".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model

from annotator.models import Membership, Project

NOT_ADDABLE = (
    "No user with this name among the people you may add (members of your projects and "
    "accounts in no project yet): create an account below, or ask staff for one."
)
NO_SUCH_ANNOTATOR = "no such annotator in this project"
NO_SUCH_MEMBER = "no such member in this project"


def not_addable(name: str) -> str:
    """The import's refusal of an annotator's name: the same whether or not it exists."""
    return (
        f"annotator {name!r}: no user with this name among the people you may add (members "
        "of projects you lead, and accounts in no project yet); create the account on the "
        "Members page first, or ask staff"
    )


def may_add(*, project: Project, by: Any, user: Any) -> bool:
    """True when ``by`` (a lead of ``project``, staff, or None: the server's operator) may add
    ``user`` to it."""
    if by is None:
        return True
    if not getattr(by, "is_authenticated", False):
        return False
    if by.is_staff:
        return True
    led = Membership.objects.filter(user=by, role=Membership.Role.LEAD).values("project_id")
    if not led.filter(project_id=project.pk).exists():
        return False
    theirs = Membership.objects.filter(user=user)
    if not theirs.exists():
        return True  # an account in no project yet
    return theirs.filter(project_id__in=led).exists()


def not_addable_names(*, project: Project, by: Any, names: Iterable[str]) -> list[str]:
    """The names (sorted) that ``by`` may not add to ``project``: accounts ``may_add``
    refuses and names no account has, alike. Staff and the operator (None) may add anyone,
    and their import creates the accounts that are missing."""
    if by is None or getattr(by, "is_staff", False):
        return []
    User = get_user_model()
    wanted = sorted(set(names))
    users = User._default_manager.filter(**{f"{User.USERNAME_FIELD}__in": wanted})
    found = {u.get_username(): u for u in users}
    return [
        name
        for name in wanted
        if name not in found or not may_add(project=project, by=by, user=found[name])
    ]
