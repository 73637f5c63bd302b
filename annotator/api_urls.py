"""The API's routes, composed one level up from the features: one router holding each
feature's viewsets (``annotator.<feature>.api``), plus the plain paths, the schema and its docs.
A feature's API module declares its viewsets; only this module knows the URL layout."""

from __future__ import annotations

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from annotator.accounts.api import auth
from annotator.common import converters  # noqa: F401  (registers <id:...>)
from annotator.corpora.api import evaluate, export, imports
from annotator.documents import api as documents
from annotator.gold import api as gold
from annotator.grid.api import annotations
from annotator.grid.api.assignments import AssignmentViewSet
from annotator.jobs import api as jobs
from annotator.projects import api as projects
from annotator.reports import api as reports
from annotator.seeding import api as aligner

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
router.register("document-pairs", documents.DocumentPairViewSet, basename="document-pair")

urlpatterns = [
    path("", include(router.urls)),
    *gold.urlpatterns,  # nested under a project and pair: a plain path, not a router entry
    # -- api helper: tokens, the schema and its docs
    path("auth/token/", auth.ObtainTokenView.as_view(), name="api-token-obtain"),
    path("projects/<id:project_id>/export/", export.ExportView.as_view(), name="api-export"),
    path("projects/<id:project_id>/imports/", imports.ImportView.as_view(), name="api-import"),
    path(
        "projects/<id:project_id>/evaluate/", evaluate.EvaluateView.as_view(), name="api-evaluate"
    ),
    path(
        "projects/<id:project_id>/documents/",
        documents.ProjectDocumentsView.as_view(),
        name="api-documents",
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
