"""Annotations (``/api/annotations/``, read-only): leads read every annotation of their
projects; an annotator reads only their own (blind rule). Annotators edit theirs through
``/api/assignments/{id}/annotation/``."""

from __future__ import annotations

from django.db.models import Count
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_view
from rest_framework import serializers, viewsets

from annotator.common import access
from annotator.common.filters import IdFilter
from annotator.common.schema import ID_LOOKUP, read_schema
from annotator.models import Annotation


class AnnotationSerializer(serializers.ModelSerializer):
    pair = serializers.IntegerField(source="assignment.pair_id")
    external_id = serializers.CharField(source="assignment.pair.external_id")
    project = serializers.IntegerField(source="assignment.pair.project_id")
    annotator = serializers.CharField(source="assignment.annotator.username")
    status = serializers.CharField(source="assignment.status")
    slot = serializers.IntegerField(source="assignment.slot", allow_null=True)
    revisions = serializers.IntegerField(
        source="revision_count", read_only=True, help_text="saves so far"
    )

    class Meta:
        model = Annotation
        fields = ["id", "assignment", "pair", "external_id", "project", "annotator", "status"]
        fields += ["slot", "version", "links", "revisions", "created_at", "updated_at"]


ANNOTATION_EXAMPLE = {
    "id": 9,
    "assignment": 40,
    "pair": 14,
    "external_id": "news-3",
    "project": 1,
    "annotator": "annotator1",
    "status": "submitted",
    "slot": 1,
    "version": 3,
    "links": [[0, 0, "P"], [1, 0, "S"], [2, 2, "S"]],
    "revisions": 3,
    "created_at": "2026-11-23T09:00:00Z",
    "updated_at": "2026-11-23T09:05:00Z",
}


class AnnotationFilter(filters.FilterSet):
    project = IdFilter(field_name="assignment__pair__project_id")
    pair = IdFilter(field_name="assignment__pair_id")
    external_id = filters.CharFilter(field_name="assignment__pair__external_id")
    annotator = filters.CharFilter(field_name="assignment__annotator__username")
    status = filters.ChoiceFilter(
        field_name="assignment__status",
        choices=[("assigned", "assigned"), ("in_progress", "in_progress")]
        + [("submitted", "submitted")],
    )

    class Meta:
        model = Annotation
        fields: list[str] = []


@extend_schema_view(
    **read_schema(
        AnnotationSerializer,
        many=(
            "Annotations: all of your projects' for leads, your own for annotators",
            "Annotations",
        ),
        one=("One annotation (its current version)", "Annotation"),
        example=ANNOTATION_EXAMPLE,
    ),
)
class AnnotationViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = AnnotationSerializer
    filterset_class = AnnotationFilter
    lookup_value_regex = ID_LOOKUP

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Annotation.objects.none()
        user = self.request.user
        projects = access.visible_projects(user=user)
        return (
            Annotation.objects.filter(assignment__pair__project__in=projects)
            .filter(access.assignment_visible(user=user, prefix="assignment__"))
            .select_related("assignment__pair", "assignment__annotator")
            .annotate(revision_count=Count("revisions"))
            .order_by("assignment__pair__project_id", "assignment__pair__position", "id")
        )
