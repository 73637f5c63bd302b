"""Agreement reports (``/api/reports/``, leads): start one as a job, read the stored ones.

``POST`` starts the dashboard's report job (``annotator.reports.services.start_report_job``);
``GET /api/reports/{id}/`` is a stored report with its full result (the output of
``alignment_core.agreement.build_report``) and whether it is stale; ``GET
/api/reports/latest/?project=<id>`` is the newest one."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from annotator.common import access
from annotator.common.errors import BadInput
from annotator.common.filters import ReportFilter
from annotator.common.permissions import project_for_request
from annotator.common.schema import ERRORS, ID_LOOKUP, READ_ERRORS
from annotator.jobs.api import JOB_EXAMPLE, JobSerializer, job_accepted
from annotator.models import AgreementReport
from annotator.reports.selectors.reports import latest_report, report_freshness
from annotator.reports.services import start_report_job


class ReportSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = AgreementReport
        fields = ["id", "project", "job", "params", "created_at", "latest_revision_at"]


class ReportSerializer(ReportSummarySerializer):
    stale = serializers.SerializerMethodField()
    stale_reasons = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField(help_text="build_report's output")

    class Meta(ReportSummarySerializer.Meta):
        fields = [*ReportSummarySerializer.Meta.fields, "stale", "stale_reasons", "result"]

    def _freshness(self, report: AgreementReport):
        if not hasattr(report, "_freshness"):
            report._freshness = report_freshness(report=report)
        return report._freshness

    def get_stale(self, report: AgreementReport) -> bool:
        return self._freshness(report).stale

    def get_stale_reasons(self, report: AgreementReport) -> list[str]:
        return self._freshness(report).reasons

    @extend_schema_field({"type": "object", "nullable": True})
    def get_result(self, report: AgreementReport):
        return report.result


class StartReportSerializer(serializers.Serializer):
    project = serializers.IntegerField(min_value=1)
    samples = serializers.IntegerField(required=False, help_text="κ_C Monte Carlo samples (J)")
    rng_seed = serializers.IntegerField(required=False)
    bin_width = serializers.IntegerField(required=False, help_text="tokens per length bin")
    include_trial = serializers.BooleanField(required=False)


SUMMARY = {
    "id": 3,
    "project": 1,
    "job": 21,
    "params": {"samples": 1000, "rng_seed": 0, "bin_width": 5, "include_trial": False},
    "created_at": "2026-11-23T10:00:00Z",
    "latest_revision_at": "2026-11-23T09:58:00Z",
}
FULL = {**SUMMARY, "stale": False, "stale_reasons": [], "result": {"inputs": {}, "...": "..."}}


@extend_schema_view(
    list=extend_schema(
        summary="Stored agreement reports of the projects you lead (?project=), newest first",
        responses={200: ReportSummarySerializer(many=True), **READ_ERRORS},
        examples=[
            OpenApiExample(
                "Reports",
                value=SUMMARY,
                response_only=True,
            )
        ],
    ),
    retrieve=extend_schema(
        summary="A stored report, its result and whether it is stale",
        responses={200: ReportSerializer, **READ_ERRORS},
        examples=[OpenApiExample("Report", value=FULL, response_only=True)],
    ),
    create=extend_schema(
        summary="Compute a new report (a job; leads)",
        request=StartReportSerializer,
        responses={202: JobSerializer, **ERRORS},
        examples=[
            OpenApiExample("Start", value={"project": 1, "samples": 1000}, request_only=True),
            OpenApiExample(
                "Queued",
                value={**JOB_EXAMPLE, "kind": "report", "status": "queued", "finished": False},
                response_only=True,
                status_codes=["202"],
            ),
        ],
    ),
    latest=extend_schema(
        summary="The newest stored report of a project",
        parameters=[OpenApiParameter("project", int, required=True)],
        responses={200: ReportSerializer, **ERRORS},
        examples=[OpenApiExample("Report", value=FULL, response_only=True)],
    ),
)
class ReportViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    filterset_class = ReportFilter
    lookup_value_regex = ID_LOOKUP

    def get_serializer_class(self):
        return ReportSummarySerializer if self.action == "list" else ReportSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return AgreementReport.objects.none()
        user = self.request.user
        reports = AgreementReport.objects.select_related("project")
        if not user.is_staff:
            reports = reports.filter(project_id__in=access.led_project_ids(user=user))
        return reports.order_by("-created_at", "-id")

    def create(self, request, *args, **kwargs):
        data = StartReportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        params = dict(data.validated_data)
        project = project_for_request(request=request, project_id=params.pop("project"), lead=True)
        try:
            job = start_report_job(project=project, user=request.user, params=params)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return job_accepted(request, job)

    @action(detail=False, methods=["get"])
    def latest(self, request):
        if not request.query_params.get("project"):
            raise BadInput("project: give the project's id, ?project=<id>")
        project = project_for_request(
            request=request, project_id=request.query_params.get("project"), lead=True
        )
        report = latest_report(project=project)
        if report is None:
            raise NotFound(f"Project {project.name!r} has no stored report yet; POST one.")
        return Response(ReportSerializer(report, context={"request": request}).data)
