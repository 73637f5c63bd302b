"""The API's routes: one router; each module of ``annotator.api`` registers its viewsets here."""

from __future__ import annotations

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from annotator.api import (
    aligner,
    annotations,
    assignments_schema,  # noqa: F401  (registers the examples of the grid's endpoints)
    auth,
    evaluate,
    export,
    gold,
    imports,
    jobs,
    projects,
    reports,
)
from annotator.api.assignments import AssignmentViewSet

router = DefaultRouter()
# grid-backend: the annotator's own assignments (the grid's data)
router.register("assignments", AssignmentViewSet, basename="assignment")
# -- api helper: projects, pairs, jobs, runs, annotations, tokens
router.register("projects", projects.ProjectViewSet, basename="project")
router.register("subcorpora", projects.SubcorpusViewSet, basename="subcorpus")
router.register("pairs", projects.PairViewSet, basename="pair")
router.register("jobs", jobs.JobViewSet, basename="job")
router.register("aligner-runs", aligner.AlignerRunViewSet, basename="aligner-run")
router.register("annotations", annotations.AnnotationViewSet, basename="annotation")
router.register("reports", reports.ReportViewSet, basename="report")
router.register("auth/tokens", auth.ApiTokenViewSet, basename="api-token")

urlpatterns = [
    path("", include(router.urls)),
    *gold.urlpatterns,  # nested under a project and pair: a plain path, not a router entry
    # -- api helper: tokens, the schema and its docs
    path("auth/token/", auth.ObtainTokenView.as_view(), name="api-token-obtain"),
    path("projects/<int:project_id>/export/", export.ExportView.as_view(), name="api-export"),
    path("projects/<int:project_id>/imports/", imports.ImportView.as_view(), name="api-import"),
    path(
        "projects/<int:project_id>/evaluate/", evaluate.EvaluateView.as_view(), name="api-evaluate"
    ),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its start-up script as a file: no inline script (CSP). Its page
    # has one inline <style> (drf-spectacular's template): allowed on this page only.
    path(
        "docs/",
        csp_update({"style-src-elem": [SELF, UNSAFE_INLINE]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema")
        ),
        name="api-docs",
    ),
]
