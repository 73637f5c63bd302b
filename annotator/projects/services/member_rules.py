"""Who may add whom to a project, and how refusals are worded.

The rule (issue 30, finding 10):

* **Staff** may add any active account to any project, with either role.
* **A project's lead** may add, as annotator or as lead, only
  - people they already work with: members of any project the lead belongs to, and
  - accounts in no project yet (fresh accounts, which staff make in the admin for this), and
  - new annotator accounts they create on the members page (``create_annotator``).
  Anyone else, whether or not such an account exists, gets the same answer as a name nobody
  has (:data:`NOT_ADDABLE`): a lead cannot use the form to find out who uses the site, nor pull
  a stranger from another team into their project as a lead.
* ``manage.py import_corpus --lead`` runs on the server (an operator's command): unrestricted.

Refusals never name a user of another project: a reassignment to someone who is not an
annotator here is "no such annotator in this project", a removal of a non-member "no such member
in this project".
"""

from __future__ import annotations

from typing import Any

from annotator.models import Membership, Project

NOT_ADDABLE = (
    "No user with this name among the people you may add (members of your projects and "
    "accounts in no project yet): create an account below, or ask staff for one."
)
NO_SUCH_ANNOTATOR = "no such annotator in this project"
NO_SUCH_MEMBER = "no such member in this project"


def may_add(*, project: Project, by: Any, user: Any) -> bool:
    """True when ``by`` (a lead of ``project``, or staff) may add ``user`` to it."""
    if getattr(by, "is_staff", False):
        return True
    if not Membership.objects.filter(project=project, user=by, role=Membership.Role.LEAD).exists():
        return False
    theirs = Membership.objects.filter(user=user)
    if not theirs.exists():
        return True  # an account in no project yet
    mine = Membership.objects.filter(user=by).values("project_id")
    return theirs.filter(project_id__in=mine).exists()
