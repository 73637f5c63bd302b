"""Reads for the home and project pages: which projects a user sees, their role, and counts of
pairs (all, trial, gold, seeded) per subcorpus."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Sum, Window
from django.db.models.functions import RowNumber

from annotator.common.access import STAFF, project_role
from annotator.models import (
    AssignmentPlan,
    GoldAlignment,
    GoldReview,
    Membership,
    PairTally,
    Project,
    SeedAlignment,
    SentencePair,
    Subcorpus,
)

NO_SUBCORPUS = ""


@dataclass
class SubcorpusCounts:
    name: str
    pairs: int = 0
    trial: int = 0
    gold: int = 0
    seeded: int = 0


@dataclass
class ProjectSummary:
    project: Project
    role: str
    subcorpora: list[SubcorpusCounts] = field(default_factory=list)

    def _total(self, attr: str) -> int:
        return sum(getattr(s, attr) for s in self.subcorpora)

    @property
    def pairs(self) -> int:
        return self._total("pairs")

    @property
    def trial(self) -> int:
        return self._total("trial")

    @property
    def gold(self) -> int:
        return self._total("gold")

    @property
    def seeded(self) -> int:
        return self._total("seeded")

    @property
    def is_lead(self) -> bool:
        return self.role in (Membership.Role.LEAD, STAFF)


def user_projects(*, user: Any) -> list[ProjectSummary]:
    """The projects ``user`` belongs to (staff: all), with role and counts per subcorpus."""
    if not getattr(user, "is_authenticated", False):
        return []
    roles = dict(Membership.objects.filter(user=user).values_list("project_id", "role"))
    projects = Project.objects.all() if user.is_staff else Project.objects.filter(pk__in=roles)
    projects = list(projects.order_by("name"))
    counts = subcorpus_counts(project_ids=[p.pk for p in projects])
    return [
        ProjectSummary(project=p, role=roles.get(p.pk, STAFF), subcorpora=counts.get(p.pk, []))
        for p in projects
    ]


def project_summary(*, project: Project, user: Any) -> ProjectSummary:
    counts = subcorpus_counts(project_ids=[project.pk])
    return ProjectSummary(
        project=project,
        role=project_role(project=project, user=user) or "",
        subcorpora=counts.get(project.pk, []),
    )


def project_members(*, project: Project) -> list[Membership]:
    return list(project.memberships.select_related("user").order_by("role", "user__username"))


def subcorpus_counts(*, project_ids: list[int]) -> dict[int, list[SubcorpusCounts]]:
    """Per project, one row per subcorpus (also empty ones) and one (name "") for pairs
    without a subcorpus, if any; sorted by name. Four grouped queries in all."""
    rows: dict[int, dict[str, SubcorpusCounts]] = defaultdict(dict)

    def row(project_id: int, name: str | None) -> SubcorpusCounts:
        name = name or NO_SUBCORPUS
        return rows[project_id].setdefault(name, SubcorpusCounts(name=name))

    names = {}
    for sub_id, project_id, name in Subcorpus.objects.filter(
        project_id__in=project_ids
    ).values_list("id", "project_id", "name"):
        names[sub_id] = name
        row(project_id, name)
    for r in _pair_counts(project_ids):
        c = row(r["project_id"], names.get(r["subcorpus_id"]))
        c.pairs, c.trial, c.seeded = int(r["pairs"]), int(r["trial"]), int(r["seeded"])
    for r in (
        GoldAlignment.objects.filter(pair__project_id__in=project_ids)
        .values("pair__project_id", "pair__subcorpus_id")
        .annotate(n=Count("*"))
        .order_by()
    ):
        row(r["pair__project_id"], names.get(r["pair__subcorpus_id"])).gold = r["n"]
    return {
        pid: sorted(by_name.values(), key=lambda c: (c.name == NO_SUBCORPUS, c.name))
        for pid, by_name in rows.items()
    }


def _pair_counts(project_ids: list[int]) -> list[dict[str, Any]]:
    """Per (project, subcorpus id): pairs, trial pairs and pairs with a seed. On PostgreSQL
    the sums of the PairTally rows its triggers keep (a few rows a subcorpus, whatever the
    project's size); on SQLite counted from the pairs."""
    if connection.vendor == "postgresql":
        return list(
            PairTally.objects.filter(project_id__in=project_ids)
            .values("project_id", "subcorpus_id")
            .annotate(pairs=Sum("pairs"), trial=Sum("trial"), seeded=Sum("seeded"))
            .filter(pairs__gt=0)
            .order_by()
        )
    seeded = Exists(SeedAlignment.objects.filter(pair=OuterRef("pk")))
    return list(
        SentencePair.objects.filter(project_id__in=project_ids)
        .values("project_id", "subcorpus_id")
        .annotate(
            pairs=Count("*"),
            trial=Count("id", filter=Q(is_trial=True)),
            seeded=Count("id", filter=Q(seeded)),
        )
        .order_by()
    )


def project_pair_total(*, project_id: int) -> int | None:
    """The number of the project's pairs from the PairTally (PostgreSQL), else None (count
    them)."""
    if connection.vendor != "postgresql":
        return None
    found = PairTally.objects.filter(project_id=project_id).aggregate(n=Sum("pairs"))["n"]
    return int(found or 0)


def pair_data(pair: SentencePair) -> dict[str, Any]:
    """The pair as the grid shows it: ids, subcorpus, trial flag and both sentences' tokens."""
    return {
        "id": pair.pk,
        "external_id": pair.external_id,
        "subcorpus": pair.subcorpus.name if pair.subcorpus_id else None,
        "is_trial": pair.is_trial,
        "source": pair.source_tokens,
        "target": pair.target_tokens,
    }


def pending_review_count(*, project: Project) -> int:
    """How many single-annotator submissions wait in the lead's review queue."""
    return GoldReview.objects.filter(
        pair__project=project, status=GoldReview.Status.PENDING
    ).count()


def numbered_plans(*, project: Project) -> QuerySet[AssignmentPlan]:
    """The project's assignment plans, newest first, each with ``number``: its place among the
    project's own plans (1 for its first), not the table-wide id a lead would read as a count."""
    first_to_last = Window(RowNumber(), order_by=[F("created_at").asc(), F("id").asc()])
    return project.assignment_plans.select_related("created_by").annotate(number=first_to_last)


def plan_number(*, plan: AssignmentPlan) -> int:
    """``plan``'s place among its project's plans (1-based), as ``numbered_plans`` gives it."""
    earlier = Q(created_at__lt=plan.created_at) | Q(created_at=plan.created_at, id__lt=plan.pk)
    return AssignmentPlan.objects.filter(earlier, project_id=plan.project_id).count() + 1
