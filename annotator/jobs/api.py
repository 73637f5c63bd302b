"""Jobs (``/api/jobs/``): status, progress, message and, when failed, the reason. The
traceback (``error``) is for staff and the project's leads; annotators get a one-line
``reason`` only, and a job's ``result`` and ``params`` only if they started it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers, status, viewsets
from rest_framework.response import Response

from annotator.common import access
from annotator.common.filters import JobFilter
from annotator.common.permissions import RoleContextMixin
from annotator.common.schema import ID_LOOKUP, read_schema
from annotator.jobs import selectors as job_selectors
from annotator.jobs.results import visible_params, visible_result
from annotator.models import Job


def one_line_reason(job: Job) -> str | None:
    """A failed job's reason without its traceback: the first line of ``error`` (it starts
    with ``Type: message``), else the message."""
    if job.status != Job.Status.FAILED:
        return None
    first = (job.error or "").strip().splitlines()
    return (first[0] if first else job.message)[:500]


class JobSerializer(serializers.ModelSerializer):
    finished = serializers.BooleanField(source="is_finished", read_only=True)
    reason = serializers.SerializerMethodField(help_text="a failure's reason, one line")
    error = serializers.SerializerMethodField(
        help_text="the failure with its traceback: staff and the project's leads only"
    )
    result = serializers.SerializerMethodField()
    params = serializers.SerializerMethodField(
        help_text="the job's options: staff, the project's leads and whoever started it"
    )
    url = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = [
            "id",
            "kind",
            "project",
            "status",
            "finished",
            "progress",
            "message",
            "reason",
            "error",
            "result",
            "params",
            "created_at",
            "started_at",
            "heartbeat_at",
            "finished_at",
            "url",
        ]

    def _is_lead(self, job: Job) -> bool:
        user = self.context["request"].user
        if user.is_staff:
            return True
        if job.project_id is None:
            return job.created_by_id == user.pk
        return access.role_in(self.context["roles"], job.project_id, user) in access.LEAD_ROLES

    def get_reason(self, job: Job) -> str | None:
        return one_line_reason(job)

    def get_error(self, job: Job) -> str | None:
        return (job.error or None) if self._is_lead(job) else None

    @extend_schema_field({"type": "object", "nullable": True})
    def get_result(self, job: Job) -> Any:
        user = self.context["request"].user
        return visible_result(job=job, user=user, is_lead=self._is_lead(job))

    @extend_schema_field({"type": "object", "nullable": True})
    def get_params(self, job: Job) -> Any:
        user = self.context["request"].user
        return visible_params(job=job, user=user, is_lead=self._is_lead(job))

    def get_url(self, job: Job) -> str:
        return f"/api/jobs/{job.pk}/"


def job_accepted(request: Any, job: Job) -> Response:
    """The answer of an endpoint that starts a job: 202 with the job, to poll at its ``url``."""
    context = {"request": request, "roles": access.roles_by_project(user=request.user)}
    return Response(JobSerializer(job, context=context).data, status=status.HTTP_202_ACCEPTED)


JOB_EXAMPLE = {
    "id": 12,
    "kind": "import",
    "project": 1,
    "status": "failed",
    "finished": True,
    "progress": 10,
    "message": "Failed: CorpusImportError: corpus.jsonl:3: pair 'x7': ...",
    "reason": "CorpusImportError: corpus.jsonl:3: pair 'x7': link 0-9: target index 9 out of "
    "range (sentence has 4 tokens)",
    "error": "CorpusImportError: ...\n\nTraceback (most recent call last): ...",
    "result": None,
    "params": {"format": "jsonl", "load_alignments_as": "gold"},
    "created_at": "2026-11-23T09:00:00Z",
    "started_at": "2026-11-23T09:00:01Z",
    "heartbeat_at": "2026-11-23T09:00:02Z",
    "finished_at": "2026-11-23T09:00:02Z",
    "url": "/api/jobs/12/",
}


@extend_schema_view(
    **read_schema(
        JobSerializer,
        many=("Jobs you may see (your projects' and your own), newest first", "Jobs"),
        one=("One job: poll it until `finished` is true", "A failed import"),
        example=JOB_EXAMPLE,
    ),
)
class JobViewSet(RoleContextMixin, viewsets.ReadOnlyModelViewSet):
    lookup_value_regex = ID_LOOKUP
    serializer_class = JobSerializer
    filterset_class = JobFilter

    def get_queryset(self):
        return job_selectors.visible_jobs(user=self.request.user).order_by("-created_at", "-id")

    def get_object(self):
        # get_job fails a job whose worker died before answering, so a poller sees the end.
        job = job_selectors.get_job(job_id=self._pk(), user=self.request.user)
        if job is None:
            from rest_framework.exceptions import NotFound

            raise NotFound("No such job, or not one of your projects'.")
        return job

    def _pk(self) -> int:
        return int(self.kwargs["pk"])
