"""Projects, subcorpora and sentence pairs (read-only; imports add pairs).

Pairs are scoped by role: a lead sees every pair of the project with every assignment; an
annotator sees only the pairs assigned to them, with only their own assignment (blind rule).
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import Q
from django.db.models.functions import Coalesce
from django_filters import rest_framework as filters
from drf_spectacular.utils import (
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers, viewsets

from annotator.common import access
from annotator.common.filters import BooleanFilter, IdFilter, SubcorpusFilter
from annotator.common.permissions import RoleContextMixin
from annotator.common.schema import ID_LOOKUP, read_schema
from annotator.models import (
    Assignment,
    Membership,
    PairTally,
    Project,
    SentencePair,
    Subcorpus,
)
from annotator.projects.selectors.pairs import page_rows, pair_details
from annotator.projects.selectors.projects import project_pair_total, subcorpus_counts


class CountsSerializer(serializers.Serializer):
    pairs = serializers.IntegerField()
    trial = serializers.IntegerField()
    gold = serializers.IntegerField()
    seeded = serializers.IntegerField()


class ProjectSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField(help_text="lead, annotator or staff")
    counts = serializers.SerializerMethodField()

    class Meta:
        model = Project
        fields = [
            "id",
            "name",
            "description",
            "guidelines",
            "role",
            "double_annotation_share",
            "monolingual",
            "max_tokens",
            "auto_retrain_every",
            "uncertainty_first",
            "created_at",
            "counts",
        ]

    def get_role(self, project: Project) -> str | None:
        return access.role_in(self.context["roles"], project.pk, self.context["request"].user)

    @extend_schema_field(CountsSerializer)
    def get_counts(self, project: Project) -> dict[str, int]:
        rows = self.context["counts"].get(project.pk, [])
        return {k: sum(getattr(r, k) for r in rows) for k in ("pairs", "trial", "gold", "seeded")}


PROJECT_EXAMPLE = {
    "id": 1,
    "name": "Demo: paraphrase alignment",
    "description": "English paraphrase pairs in three subcorpora",
    "guidelines": "# Aligning paraphrases ...",
    "role": "lead",
    "double_annotation_share": 0.333,
    "monolingual": True,
    "max_tokens": 250,
    "auto_retrain_every": 50,
    "uncertainty_first": False,
    "created_at": "2026-11-23T09:00:00Z",
    "counts": {"pairs": 36, "trial": 6, "gold": 12, "seeded": 0},
}


@extend_schema_view(
    **read_schema(
        ProjectSerializer,
        many=("The projects you belong to (staff: all)", "Projects"),
        one=("One project, with your role and its counts", "Project"),
        example=PROJECT_EXAMPLE,
    ),
)
class ProjectViewSet(RoleContextMixin, viewsets.ReadOnlyModelViewSet):
    lookup_value_regex = ID_LOOKUP
    serializer_class = ProjectSerializer
    filterset_fields: list[str] = []

    def get_queryset(self):
        return access.visible_projects(user=self.request.user).order_by("name", "id")

    def get_serializer(self, *args: Any, **kwargs: Any):
        objects = args[0] if args else None
        projects = (
            list(objects) if isinstance(objects, list | tuple) else [objects] if objects else []
        )
        context = self.get_serializer_context()
        context["counts"] = subcorpus_counts(project_ids=[p.pk for p in projects if p])
        kwargs["context"] = context
        return self.serializer_class(*args, **kwargs)


# -- subcorpora ----------------------------------------------------------------------------


class SubcorpusSerializer(serializers.ModelSerializer):
    pairs = serializers.IntegerField(
        source="pair_count", read_only=True, help_text="pairs in it (trial included)"
    )

    class Meta:
        model = Subcorpus
        fields = ["id", "project", "name", "pairs"]


@extend_schema_view(
    **read_schema(
        SubcorpusSerializer,
        many=("Subcorpora of the projects you belong to (?project=)", "Subcorpora"),
        one=("One subcorpus", "Subcorpus"),
        example={"id": 3, "project": 1, "name": "news", "pairs": 12},
    )
)
class SubcorpusViewSet(viewsets.ReadOnlyModelViewSet):
    lookup_value_regex = ID_LOOKUP
    serializer_class = SubcorpusSerializer
    filterset_class = SubcorpusFilter

    def get_queryset(self):
        from django.db.models import Count, OuterRef, Subquery, Sum

        if getattr(self, "swagger_fake_view", False):
            return Subcorpus.objects.none()
        # Each listed subcorpus reads its own count: on PostgreSQL the sum of its PairTally
        # rows (kept by triggers), else a correlated COUNT(*) on the pairs' (project,
        # subcorpus) index. Grouping the join counted every pair of every project before the
        # filter kept one project's rows: a 1,000-pair project's list took 0.9 s beside a
        # million-pair project.
        if connection.vendor == "postgresql":
            pairs = PairTally.objects.filter(
                project_id=OuterRef("project_id"), subcorpus_id=OuterRef("pk")
            ).values("subcorpus_id")
            pairs = pairs.annotate(n=Sum("pairs")).values("n")
        else:
            pairs = SentencePair.objects.filter(
                project_id=OuterRef("project_id"), subcorpus=OuterRef("pk")
            ).values("subcorpus")
            pairs = pairs.annotate(n=Count("*")).values("n")
        return (
            Subcorpus.objects.filter(project__in=access.visible_projects(user=self.request.user))
            .annotate(pair_count=Coalesce(Subquery(pairs), 0))
            .order_by("project_id", "name")
        )


# -- pairs ---------------------------------------------------------------------------------

PAIR_STATUSES = ("unassigned", "assigned", "in_progress", "submitted", "gold")


class PairFilter(filters.FilterSet):
    project = IdFilter(field_name="project_id")
    subcorpus = filters.CharFilter(
        method="filter_subcorpus", help_text="subcorpus name ('' or 'none': pairs without one)"
    )
    trial = BooleanFilter(field_name="is_trial", help_text="true: trial pairs only")
    external_id = filters.CharFilter(field_name="external_id")
    status = filters.ChoiceFilter(
        choices=[(s, s) for s in PAIR_STATUSES],
        method="filter_nothing",
        help_text="unassigned (leads), assigned / in_progress / submitted (an assignment in "
        "that state; annotators: their own), gold (leads: has a gold alignment)",
    )
    annotator = filters.CharFilter(
        method="filter_nothing",
        help_text="username: pairs assigned to this person (annotators: only themselves)",
    )

    class Meta:
        model = SentencePair
        fields: list[str] = []

    def get_form_class(self):
        # The form depends only on the declared filters: build it once, not per request
        # (django-filter makes a new form class, and its fields, for every filterset).
        cls = type(self)
        if "_form_class" not in cls.__dict__:
            cls._form_class = super().get_form_class()
        return cls._form_class

    def filter_subcorpus(self, queryset, name, value):
        if value in ("", "none"):
            return queryset.filter(subcorpus__isnull=True)
        return queryset.filter(subcorpus__name=value)

    def filter_nothing(self, queryset, name, value):
        return queryset  # status and annotator are applied together in filter_queryset

    def filter_queryset(self, queryset):
        queryset = super().filter_queryset(queryset)
        user = self.request.user
        status = self.form.cleaned_data.get("status") or None
        annotator = self.form.cleaned_data.get("annotator") or None
        led = Q() if user.is_staff else Q(project_id__in=access.led_project_ids(user=user))
        if status == "unassigned":
            queryset = queryset.filter(led).exclude(
                access.pairs_with_assignment(user=user, annotator=None, status=None)
            )
            status = None
        elif status == "gold":
            queryset = queryset.filter(led, gold__isnull=False)
            status = None
        if status or annotator:
            queryset = queryset.filter(
                access.pairs_with_assignment(user=user, annotator=annotator, status=status)
            )
        return queryset


class PairAssignmentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    annotator = serializers.CharField(source="annotator.username")
    status = serializers.CharField()
    slot = serializers.IntegerField(allow_null=True)
    flag = serializers.CharField()


class SentencePairSerializer(serializers.ModelSerializer):
    subcorpus = serializers.CharField(source="subcorpus.name", allow_null=True, default=None)
    source = serializers.ListField(child=serializers.CharField(), source="source_tokens")
    target = serializers.ListField(child=serializers.CharField(), source="target_tokens")
    assignments = serializers.SerializerMethodField(
        help_text="current assignments: all for leads, only your own for annotators"
    )
    has_gold = serializers.SerializerMethodField(help_text="leads only (null for annotators)")

    class Meta:
        model = SentencePair
        fields = [
            "id",
            "project",
            "external_id",
            "subcorpus",
            "is_trial",
            "position",
            "source",
            "target",
            "metadata",
            "assignments",
            "has_gold",
        ]

    def _leads(self, pair: SentencePair) -> bool:
        user = self.context["request"].user
        return access.role_in(self.context["roles"], pair.project_id, user) in access.LEAD_ROLES

    @extend_schema_field(PairAssignmentSerializer(many=True))
    def get_assignments(self, pair: SentencePair) -> list[dict[str, Any]]:
        user = self.context["request"].user
        mine = self._leads(pair)
        return [
            {
                "id": a.pk,
                "annotator": a.annotator.username,
                "status": a.status,
                "slot": a.slot,
                "flag": a.flag,
            }
            for a in pair.current_assignments
            if mine or a.annotator_id == user.pk
        ]  # PairAssignmentSerializer's fields, built directly (a serializer per pair was slow)

    def to_representation(self, pair: SentencePair) -> dict[str, Any]:
        """The fields above, built directly: DRF's field machinery was most of a page's time."""
        return {
            "id": pair.pk,
            "project": pair.project_id,
            "external_id": pair.external_id,
            "subcorpus": pair.subcorpus.name if pair.subcorpus_id else None,
            "is_trial": pair.is_trial,
            "position": pair.position,
            "source": pair.source_tokens,
            "target": pair.target_tokens,
            "metadata": pair.metadata,
            "assignments": self.get_assignments(pair),
            "has_gold": self.get_has_gold(pair),
        }

    @extend_schema_field(serializers.BooleanField(allow_null=True))
    def get_has_gold(self, pair: SentencePair) -> bool | None:
        return pair.has_gold if self._leads(pair) else None


PAIR_EXAMPLE = {
    "id": 14,
    "project": 1,
    "external_id": "news-3",
    "subcorpus": "news",
    "is_trial": False,
    "position": 13,
    "source": ["the", "talks", "ended"],
    "target": ["negotiations", "were", "over"],
    "metadata": {},
    "assignments": [
        {"id": 40, "annotator": "annotator1", "status": "submitted", "slot": 1, "flag": ""}
    ],
    "has_gold": True,
}


@extend_schema_view(
    **read_schema(
        SentencePairSerializer,
        many=("Sentence pairs, filtered and paginated", "Pairs"),
        one=("One sentence pair", "Pair"),
        example=PAIR_EXAMPLE,
    ),
)
class PairViewSet(RoleContextMixin, viewsets.ReadOnlyModelViewSet):
    lookup_value_regex = ID_LOOKUP
    serializer_class = SentencePairSerializer
    filterset_class = PairFilter

    def get_queryset(self):
        """The pairs the user may see, in import order (narrow: ids and order only)."""
        if getattr(self, "swagger_fake_view", False):
            return SentencePair.objects.none()
        user = self.request.user
        pairs = SentencePair.objects.all()
        if not user.is_staff:
            led = [pid for pid, role in self.user_roles().items() if role == Membership.Role.LEAD]
            asked = self.request.query_params.get("project", "")
            if asked.isdigit() and int(asked) in led:
                # A project the user leads: all of its pairs, a plain indexed filter.
                return pairs.filter(project_id=int(asked)).order_by("project_id", "position", "id")
            # Two uncorrelated IN lists (the led projects, the pairs assigned to the user), so
            # the database checks each row against two small hashed sets rather than running
            # a correlated subquery per row.
            mine = Assignment.objects.filter(annotator=user, withdrawn_at__isnull=True)
            pairs = pairs.filter(Q(project_id__in=led) | Q(pk__in=mine.values("pair_id")))
        return pairs.order_by("project_id", "position", "id")

    def get_object(self):
        pair = super().get_object()
        return pair_details(SentencePair.objects.filter(pk=pair.pk)).get()

    def list(self, request, *args, **kwargs):
        # One query for the page: the page's ids (a narrow sort over ids, paginated) as a
        # subquery, the rows as plain tuples with their subcorpus, gold flag and current
        # assignments. Model instances, a prefetch, DRF fields per row and then the ORM's
        # compiling of the queries were most of a page's time.
        ids = self.filter_queryset(self.get_queryset()).values("pk")
        # A plain page number: the page's statement also counts the rows (a scalar subquery),
        # so a page with rows needs no COUNT query of its own; "last", odd numbers and empty
        # pages take the paginator's usual way.
        number, rows = self.paginator.plain_page_number(request), None
        # All of one project's pairs: their number is the project's tally (PostgreSQL), not
        # a count of a million rows on every page.
        total = self._project_total(request)
        if number is not None:
            size = self.paginator.get_page_size(request)
            counted = ids if total is None else None
            rows, found = page_rows(ids[(number - 1) * size : number * size], counted=counted)
            total = found if total is None else total
        page = self.paginator.page_queryset(ids, request, view=self, count=total)
        if rows is None:
            rows, _ = page_rows(page)
        user, roles = request.user, self.user_roles()
        leads: dict[int, bool] = {}
        results = []
        for row in rows:
            project_id = row[1]
            lead = leads.get(project_id)
            if lead is None:
                lead = leads[project_id] = (
                    access.role_in(roles, project_id, user) in access.LEAD_ROLES
                )
            results.append(_pair_row(row, lead=lead, user_pk=user.pk))
        return self.paginator.get_paginated_response(results)

    # query parameters that do not narrow the list
    UNFILTERED = frozenset({"project", "page", "page_size", "format"})

    def _project_total(self, request) -> int | None:
        """The number of pairs of ``?project=`` when the list is all of them (no other
        filter, and the user leads the project or is staff), from the tally; else None."""
        asked = request.query_params.get("project", "")
        if not asked.isdigit() or not set(request.query_params) <= self.UNFILTERED:
            return None
        user = request.user
        if not user.is_staff and self.user_roles().get(int(asked)) != Membership.Role.LEAD:
            return None
        return project_pair_total(project_id=int(asked))


def _pair_row(row: tuple, *, lead: bool, user_pk: int | None) -> dict[str, Any]:
    """SentencePairSerializer's representation, built from ``page_rows``' values directly: a
    lead sees every current assignment and the gold flag; others only their own assignment."""
    pk, project_id, external_id, subcorpus, is_trial, position = row[:6]
    source, target, metadata, has_gold, assignments = row[6:]
    return {
        "id": pk,
        "project": project_id,
        "external_id": external_id,
        "subcorpus": subcorpus,
        "is_trial": is_trial,
        "position": position,
        "source": source,
        "target": target,
        "metadata": metadata,
        "assignments": [
            {"id": a_pk, "annotator": username, "status": status, "slot": slot, "flag": flag}
            for a_pk, annotator_id, username, status, slot, flag in assignments
            if lead or annotator_id == user_pk
        ],
        "has_gold": has_gold if lead else None,
    }
