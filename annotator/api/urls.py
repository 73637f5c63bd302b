"""The API's routes: one router; each module of ``annotator.api`` registers its viewsets here."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from annotator.api import gold
from annotator.api.assignments import AssignmentViewSet

router = DefaultRouter()
# grid-backend: the annotator's own assignments (the grid's data)
router.register("assignments", AssignmentViewSet, basename="assignment")

urlpatterns = [
    path("", include(router.urls)),
    *gold.urlpatterns,  # nested under a project and pair: a plain path, not a router entry
]
