"""Stored agreement reports of a project."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models.jobs import Job
from annotator.models.projects import Project

User = settings.AUTH_USER_MODEL


class AgreementReport(models.Model):
    """A stored agreement report (``alignment_core.agreement.report.build_report``'s output),
    with its parameters and a fingerprint of the inputs it saw, so a page can say when it is
    stale."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="reports")
    job = models.ForeignKey(Job, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    params = models.JSONField(default=dict, blank=True)
    fingerprint = models.CharField(max_length=64, blank=True)
    latest_revision_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
