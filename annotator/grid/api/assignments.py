"""``/api/assignments/``: the grid's data endpoints (see the grid contract).

Only the assignment's own annotator reaches an assignment here; anyone else, and everyone for
a withdrawn assignment, gets 404 (the queryset is scoped to the requesting user). Session
authentication with CSRF (header ``X-CSRFToken``).

- ``GET  /api/assignments/?project=&status=``  the user's queue, paginated, in queue order
- ``GET  /api/assignments/{id}/``              pair, seed, posteriors, annotation, queue, feedback
- ``POST /api/assignments/{id}/open/``         the same, recording that the annotator opened it
  (what the grid page does on GET; the page uses it to move to the next pair without reloading)
- ``GET|PUT /api/assignments/{id}/annotation/`` the annotation; PUT = autosave (409 when stale)
- ``POST /api/assignments/{id}/submit/``       save as submitted, answer with the next pair
- ``POST|DELETE /api/assignments/{id}/flag/``  flag for the lead, or clear
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.http.response import HttpResponseBase
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.http import http_date
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.grid import services as annotation_services
from annotator.grid.api.assignments_schema import documented
from annotator.grid.selectors.assignments import (
    GRID_RELATED,
    annotation_state,
    get_own_assignment,
    own_assignments,
    trial_feedback,
)
from annotator.grid.selectors.grid import (
    flag_data,
    grid_payload,
    page_url,
    seed_data,
    seed_validator,
)
from annotator.grid.selectors.queue import counted_queue_rows, order_queue, queue_place
from annotator.models import AnnotationRevision, Assignment, Project

# --- serializers -------------------------------------------------------------------------


class PairSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    external_id = serializers.CharField()
    subcorpus = serializers.CharField(allow_null=True)
    is_trial = serializers.BooleanField()


class PairSerializer(PairSummarySerializer):
    source = serializers.ListField(child=serializers.CharField())
    target = serializers.ListField(child=serializers.CharField())


class FlagSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=Assignment.Flag.choices, allow_blank=True)
    note = serializers.CharField(
        max_length=annotation_services.FLAG_NOTE_MAX,
        allow_blank=True,
        required=False,
        default="",
        trim_whitespace=True,
    )


class AnnotationStateSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=0)
    links = serializers.JSONField(help_text='[[i, j, "S"|"P"], ...], 0-based')
    updated_at = serializers.DateTimeField(allow_null=True)


class AnnotationInputSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        min_value=0, help_text="The version this edit is based on (0 if never saved)."
    )
    links = serializers.JSONField(help_text='[[i, j, "S"|"P"], ...], 0-based')


class SeedSerializer(serializers.Serializer):
    links = serializers.JSONField()
    aligner_run = serializers.IntegerField()


class PosteriorsSerializer(serializers.Serializer):
    rows = serializers.IntegerField()
    cols = serializers.IntegerField()
    scale = serializers.IntegerField()
    data = serializers.CharField(help_text="base64 of rows×cols bytes, row-major, p≈byte/scale")


class SeedDataSerializer(serializers.Serializer):
    seed = SeedSerializer(allow_null=True)
    posteriors = PosteriorsSerializer(allow_null=True)


class QueuePlaceSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="1-based")
    total = serializers.IntegerField()
    submitted = serializers.IntegerField()
    next = serializers.IntegerField(allow_null=True)
    previous = serializers.IntegerField(allow_null=True)


class FeedbackSerializer(serializers.Serializer):
    reference = serializers.JSONField()
    word = serializers.JSONField(help_text="word-level scores, identical-word links left out")
    word_all_links = serializers.JSONField(help_text="word-level scores over every link")


class AssignmentUrlsSerializer(serializers.Serializer):
    annotation = serializers.CharField()
    submit = serializers.CharField()
    flag = serializers.CharField()
    page = serializers.CharField()
    seed = serializers.CharField(help_text="the seed and posteriors, with an ETag (GET .../seed/)")
    queue = serializers.CharField()
    guidelines = serializers.CharField()
    next_page = serializers.CharField(allow_null=True)
    previous_page = serializers.CharField(allow_null=True)


class AssignmentDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    project = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Assignment.Status.choices)
    flag = FlagSerializer(allow_null=True)
    pair = PairSerializer()
    seed = SeedSerializer(allow_null=True)
    posteriors = PosteriorsSerializer(allow_null=True)
    annotation = AnnotationStateSerializer(allow_null=True)
    queue = QueuePlaceSerializer()
    feedback = FeedbackSerializer(allow_null=True)
    urls = AssignmentUrlsSerializer()


class AssignmentListSerializer(serializers.ModelSerializer):
    """One row of the queue (no tokens or links: the detail has them)."""

    project = serializers.IntegerField(source="pair.project_id")
    pair = serializers.SerializerMethodField()
    flag = serializers.SerializerMethodField()
    page = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = [
            "id",
            "project",
            "status",
            "flag",
            "pair",
            "started_at",
            "submitted_at",
            "last_activity_at",
            "page",
        ]

    @extend_schema_field(PairSummarySerializer)
    def get_pair(self, obj: Assignment) -> dict[str, Any]:
        pair = obj.pair
        return {
            "id": pair.pk,
            "external_id": pair.external_id,
            "subcorpus": pair.subcorpus.name if pair.subcorpus_id else None,
            "is_trial": pair.is_trial,
        }

    @extend_schema_field(FlagSerializer(allow_null=True))
    def get_flag(self, obj: Assignment) -> dict[str, str] | None:
        return flag_data(obj)

    @extend_schema_field(serializers.CharField())
    def get_page(self, obj: Assignment) -> str:
        return reverse("annotate", args=[obj.pk])


class SaveResultSerializer(AnnotationStateSerializer):
    status = serializers.ChoiceField(choices=Assignment.Status.choices)


class SubmitResultSerializer(SaveResultSerializer):
    next = serializers.IntegerField(allow_null=True)
    next_page = serializers.CharField(allow_null=True)
    feedback = FeedbackSerializer(allow_null=True)


class FlagResultSerializer(serializers.Serializer):
    flag = FlagSerializer(allow_null=True)


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField()


class ConflictSerializer(ErrorSerializer):
    current = AnnotationStateSerializer()


class LinksErrorSerializer(ErrorSerializer):
    links = serializers.ListField(child=serializers.CharField())


# --- the viewset -------------------------------------------------------------------------


class AssignmentFilter(django_filters.FilterSet):
    project = django_filters.NumberFilter(field_name="pair__project_id")
    status = django_filters.ChoiceFilter(choices=Assignment.Status.choices)

    class Meta:
        model = Assignment
        fields = ["project", "status"]


class AssignmentPagination(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


NOT_FOUND = "No Assignment matches the given query."  # what DRF's get_object answers


def _assignment_id(pk: str) -> int:
    """The URL's id as a number; anything else names no assignment (404)."""
    try:
        return int(pk)
    except ValueError:
        raise NotFound(NOT_FOUND) from None


def _error(message: str, code: int, **extra: Any) -> Response:
    return Response({"error": message, **extra}, status=code)


@documented(
    annotation_input=AnnotationInputSerializer,
    annotation_state=AnnotationStateSerializer,
    detail=AssignmentDetailSerializer,
    row=AssignmentListSerializer,
    conflict=ConflictSerializer,
    flag=FlagSerializer,
    flag_result=FlagResultSerializer,
    links_error=LinksErrorSerializer,
    save_result=SaveResultSerializer,
    submit_result=SubmitResultSerializer,
    seed_data=SeedDataSerializer,
)
class AssignmentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The requesting annotator's own assignments and the grid's saves."""

    permission_classes = [IsAuthenticated]
    pagination_class = AssignmentPagination
    filterset_class = AssignmentFilter
    serializer_class = AssignmentListSerializer

    # the writes (save, submit, flag) read only the assignment and its pair's tokens (the
    # shape): no seed row with its posterior matrix, no subcorpus (the lock reads what it needs)
    WRITE_ACTIONS = frozenset({"annotation", "submit", "flag"})

    def get_queryset(self):
        assignments = own_assignments(user=self.request.user)
        if self.action in self.WRITE_ACTIONS and self.request.method != "GET":
            return assignments.select_related("pair")
        if self.action == "list":
            return order_queue(assignments.select_related("pair", "pair__subcorpus"))
        # the grid's data: everything it shows, read with the assignment in one query
        return assignments.select_related(*GRID_RELATED)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """The queue, a page at a time. Filtered to one project in import order, the page is
        read from the queue's two runs in the pairs' order index and counted by its
        QueueTally (the queue page's reads): the same rows, order and count as the queue
        sorted whole by :func:`order_queue`, which every other list still is."""
        rows = self._one_queue_rows(request)
        if rows is None:
            return super().list(request, *args, **kwargs)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def _one_queue_rows(self, request: Request) -> Any:
        """The rows of the one import-order queue the filters name (None: any other list,
        or filters the filter backend must judge)."""
        filters = AssignmentFilter(request.query_params, queryset=Assignment.objects.none())
        if not filters.is_valid():
            return None
        project_id, status = (filters.form.cleaned_data.get(k) for k in ("project", "status"))
        if project_id is None or project_id != int(project_id) or abs(project_id) >= 2**63:
            return None
        project = Project.objects.filter(pk=int(project_id)).first()
        if project is None or project.uncertainty_first:
            return None
        return counted_queue_rows(user=request.user, project=project, status=status or None)

    def get_object(self) -> Assignment:
        """The grid's reads (detail, open) take the assignment with everything the grid shows
        from one selector query; the queue list's filters do not apply to one assignment."""
        if self.action not in ("retrieve", "open"):
            return super().get_object()
        assignment = get_own_assignment(
            assignment_id=_assignment_id(self.kwargs["pk"]), user=self.request.user
        )
        if assignment is None:
            raise NotFound(NOT_FOUND)
        return assignment

    @extend_schema(responses=AssignmentDetailSerializer)
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        assignment = self.get_object()
        return Response(AssignmentDetailSerializer(grid_payload(assignment=assignment)).data)

    @extend_schema(request=None, responses=AssignmentDetailSerializer)
    @action(detail=True, methods=["post"])
    def open(self, request: Request, pk: str | None = None) -> Response:
        """Open the pair as the grid page does: time spent on its first save counts from now,
        and the seed it starts from is recorded; answers the assignment's grid data."""
        assignment = self.get_object()
        place = annotation_services.open_assignment_with_place(
            assignment=assignment, user=request.user
        )
        data = grid_payload(assignment=assignment, place=place)
        return Response(AssignmentDetailSerializer(data).data)

    @action(detail=True, methods=["get"])
    def seed(self, request: Request, pk: str | None = None) -> HttpResponseBase:
        """The seed the pair starts from and its posteriors, validated: an ``ETag`` and a
        ``Last-Modified`` that change with the aligner run, ``Cache-Control: private,
        no-cache``, so a browser keeps the answer and revalidates it, and a request whose
        ``If-None-Match`` (or ``If-Modified-Since``) still holds is answered 304 after one
        query (issue 32)."""
        validator = seed_validator(assignment_id=_assignment_id(pk or ""), user=request.user)
        if validator is None:
            raise NotFound(NOT_FOUND)
        response = get_conditional_response(
            request, etag=validator.etag, last_modified=validator.last_modified
        ) or Response(SeedDataSerializer(seed_data(validator=validator)).data)
        response["ETag"] = validator.etag
        if validator.last_modified is not None:
            response["Last-Modified"] = http_date(validator.last_modified)
        response["Cache-Control"] = "private, no-cache"
        return response

    def _save_input(self, request: Request) -> tuple[int, Any] | Response:
        body = AnnotationInputSerializer(data=request.data)
        if not body.is_valid():
            return _error("The request needs 'version' and 'links'.", 400, **body.errors)
        return body.validated_data["version"], body.validated_data["links"]

    def _save(self, request: Request, *, submit: bool) -> Response | annotation_services.SaveResult:
        # No get_object(): the save reads the assignment once, locked and scoped to the user
        # (not theirs, withdrawn or no such id: 404 as for every other action)
        parsed = self._save_input(request)
        if isinstance(parsed, Response):
            return parsed
        version, links = parsed
        kind = AnnotationRevision.Kind.SUBMIT if submit else AnnotationRevision.Kind.AUTOSAVE
        try:
            return annotation_services.save_own_annotation(
                assignment_id=_assignment_id(self.kwargs["pk"]),
                user=request.user,
                links=links,
                base_version=version,
                kind=kind,
            )
        except annotation_services.NotYourAssignment:
            raise NotFound(NOT_FOUND) from None
        except annotation_services.StaleVersion as exc:
            return _error(str(exc), 409, current=exc.current.as_dict())
        except annotation_services.InvalidLinks as exc:
            return _error(str(exc), 400, links=exc.problems)
        except annotation_services.AlreadySubmitted as exc:
            return _error(str(exc), 403)

    @extend_schema(methods=["GET"], request=None, responses={200: AnnotationStateSerializer})
    @extend_schema(
        methods=["PUT"],
        request=AnnotationInputSerializer,
        responses={
            200: SaveResultSerializer,
            400: LinksErrorSerializer,
            403: ErrorSerializer,
            409: ConflictSerializer,
        },
    )
    @action(detail=True, methods=["get", "put"])
    def annotation(self, request: Request, pk: str | None = None) -> Response:
        if request.method == "GET":
            assignment = self.get_object()
            return Response(annotation_state(assignment=assignment).as_dict())
        result = self._save(request, submit=False)
        if isinstance(result, Response):
            return result
        return Response({**result.state.as_dict(), "status": result.assignment.status})

    @extend_schema(
        request=AnnotationInputSerializer,
        responses={
            200: SubmitResultSerializer,
            400: LinksErrorSerializer,
            403: ErrorSerializer,
            409: ConflictSerializer,
        },
    )
    @action(detail=True, methods=["post"])
    def submit(self, request: Request, pk: str | None = None) -> Response:
        result = self._save(request, submit=True)
        if isinstance(result, Response):
            return result
        assignment = result.assignment
        following = queue_place(assignment=assignment).next_unsubmitted
        return Response(
            {
                **result.state.as_dict(),
                "status": assignment.status,
                "next": following,
                "next_page": page_url(following),
                "feedback": trial_feedback(assignment=assignment),
            }
        )

    @extend_schema(
        methods=["POST"],
        request=FlagSerializer,
        responses={200: FlagResultSerializer, 400: ErrorSerializer},
    )
    @extend_schema(methods=["DELETE"], request=None, responses={200: FlagResultSerializer})
    @action(detail=True, methods=["post", "delete"])
    def flag(self, request: Request, pk: str | None = None) -> Response:
        assignment = self.get_object()
        if request.method == "DELETE":
            reason, note = "", ""
        else:
            body = FlagSerializer(data=request.data)
            if not body.is_valid():
                return _error("The flag needs a valid 'reason'.", 400, **body.errors)
            reason, note = body.validated_data["reason"], body.validated_data["note"]
        try:
            annotation_services.flag_assignment(
                assignment=assignment, user=request.user, reason=reason, note=note
            )
        except annotation_services.AnnotationError as exc:
            return _error(str(exc), 400)
        return Response({"flag": flag_data(assignment)}, status=status.HTTP_200_OK)
