"""An annotator's work: the current annotation of an assignment and every save of it,
kept forever (an AnnotationRevision per save)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models.projects import Assignment, LinksModel, SentencePair

User = settings.AUTH_USER_MODEL


class Annotation(LinksModel):
    """An annotator's current alignment of an assigned pair. ``version`` increases by one on
    every save (optimistic concurrency: a save names the version it edited)."""

    assignment = models.OneToOneField(
        Assignment, on_delete=models.CASCADE, related_name="annotation"
    )
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(version__gte=1), name="annotation_version_positive")
        ]

    def _pair(self) -> SentencePair:
        return self.assignment.pair

    def __str__(self) -> str:
        return f"annotation of {self.assignment} v{self.version}"


class AnnotationRevision(models.Model):
    """Every save, kept forever: the links as saved, who, when, what kind, time spent."""

    class Kind(models.TextChoices):
        AUTOSAVE = "autosave", "Autosave"
        SUBMIT = "submit", "Submit"
        IMPORT = "import", "Import"
        REOPEN = "reopen", "Reopened by a lead"

    # PROTECT: history is append-only, so deleting an annotation (or the assignment, pair or
    # project it belongs to) with revisions is refused instead of erasing who saved what.
    annotation = models.ForeignKey(Annotation, on_delete=models.PROTECT, related_name="revisions")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.AUTOSAVE)
    links = models.JSONField(default=list)
    edits_from_seed = models.PositiveIntegerField(
        null=True, blank=True, help_text="|A_P Δ seed| (cells changed against the seed)."
    )
    author = models.ForeignKey(User, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    elapsed_seconds = models.FloatField(
        default=0.0, help_text="Time spent since the previous save (capped for idle tabs)."
    )

    class Meta:
        ordering = ["annotation", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["annotation", "version"], name="revision_unique_version"
            ),
            models.CheckConstraint(
                condition=Q(elapsed_seconds__gte=0), name="revision_elapsed_nonneg"
            ),
        ]


class AnnotationFigures(models.Model):
    """What progress reads of an annotation's revisions, kept by the database: a trigger on
    every revision written (migration 0016) adds its time and, when it is the latest revision
    that is not a reopen, takes its edit count. So progress reads one row per annotation
    instead of finding each final revision among all of them. Written by that trigger only."""

    annotation = models.OneToOneField(
        Annotation, primary_key=True, on_delete=models.CASCADE, related_name="figures"
    )
    seconds = models.FloatField(default=0.0, help_text="Every revision's elapsed_seconds, summed.")
    final_version = models.PositiveIntegerField(
        null=True, help_text="The latest revision that is not a reopen (None: no such revision)."
    )
    final_edits = models.PositiveIntegerField(
        null=True, help_text="That revision's edits_from_seed (None: it stored none)."
    )

    class Meta:
        verbose_name_plural = "annotation figures"

    def __str__(self) -> str:
        return f"figures of annotation {self.annotation_id}"
