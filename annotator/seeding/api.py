"""Aligner runs (``/api/aligner-runs/``): list and follow them; ``POST`` starts "Seed with
aligner" (``use_gold: false``) or "Retrain with gold" (``true``) as a job (leads)."""

from __future__ import annotations

from django.db import connection
from django.db.models import Count, OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets

from annotator.common import access
from annotator.common.filters import AlignerRunFilter
from annotator.common.permissions import project_for_request
from annotator.common.schema import ERRORS, ID_LOOKUP, read_schema
from annotator.jobs.api import JOB_EXAMPLE, JobSerializer, job_accepted
from annotator.models import AlignerRun, SeedAlignment, SeedTally
from annotator.seeding.services import start_seed_job


class AlignerRunSerializer(serializers.ModelSerializer):
    seeds = serializers.IntegerField(
        source="seed_count", read_only=True, help_text="pairs seeded by this run"
    )

    class Meta:
        model = AlignerRun
        fields = ["id", "project", "kind", "job", "config", "gold_pairs", "note", "seeds"]
        fields += ["created_at"]


class StartSeedingSerializer(serializers.Serializer):
    project = serializers.IntegerField(min_value=1)
    use_gold = serializers.BooleanField(
        default=False, help_text="false: seed with the aligner; true: retrain with the gold"
    )


RUN_EXAMPLE = {
    "id": 5,
    "project": 1,
    "kind": "aligner",
    "job": 12,
    "config": {"identity_lexicon": True},
    "gold_pairs": 12,
    "note": "retrained with gold",
    "seeds": 36,
    "created_at": "2026-11-23T09:00:00Z",
}
STARTED_EXAMPLE = {**JOB_EXAMPLE, "kind": "seed", "status": "queued", "finished": False}
STARTED_EXAMPLE.update(progress=0, message="Waiting for a worker", reason=None, error=None)
STARTED_EXAMPLE.update(params={"use_gold": True}, started_at=None, finished_at=None)
STARTED_EXAMPLE.update(heartbeat_at=None)


@extend_schema_view(
    **read_schema(
        AlignerRunSerializer,
        many=("Aligner runs of your projects (?project=), newest first", "Runs"),
        one=("One aligner run", "Run"),
        example=RUN_EXAMPLE,
    ),
    create=extend_schema(
        summary="Start the aligner on a project (a job; leads)",
        description="Answers 202 with the job; poll `/api/jobs/{id}/`. Its result names the "
        "new run (`aligner_run`).",
        request=StartSeedingSerializer,
        responses={202: JobSerializer, **ERRORS},
        examples=[
            OpenApiExample(
                "Retrain with gold", value={"project": 1, "use_gold": True}, request_only=True
            ),
            OpenApiExample(
                "Queued", value=STARTED_EXAMPLE, response_only=True, status_codes=["202"]
            ),
        ],
    ),
)
class AlignerRunViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = AlignerRunSerializer
    filterset_class = AlignerRunFilter
    lookup_value_regex = ID_LOOKUP

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return AlignerRun.objects.none()
        projects = access.visible_projects(user=self.request.user)
        # Each run of the page reads its own count: on PostgreSQL the sum of its SeedTally
        # rows (kept by triggers), else a correlated COUNT(*) on the seeds' index. Grouping
        # the join read every seed of every listed run before the page kept one.
        if connection.vendor == "postgresql":
            seeds = SeedTally.objects.filter(aligner_run_id=OuterRef("pk")).values("aligner_run_id")
            seeds = seeds.annotate(n=Sum("seeds")).values("n")
        else:
            seeds = SeedAlignment.objects.filter(aligner_run=OuterRef("pk")).values("aligner_run")
            seeds = seeds.annotate(n=Count("*")).values("n")
        return (
            AlignerRun.objects.filter(project__in=projects, published=True)
            .annotate(seed_count=Coalesce(Subquery(seeds), 0))
            .order_by("-created_at", "-id")
        )

    def create(self, request, *args, **kwargs):
        data = StartSeedingSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        project = project_for_request(
            request=request, project_id=data.validated_data["project"], lead=True
        )
        job = start_seed_job(
            project=project, user=request.user, use_gold=data.validated_data["use_gold"]
        )
        return job_accepted(request, job)
