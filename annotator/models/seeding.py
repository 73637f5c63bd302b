"""The seeding aligner's runs and the seed alignments they wrote (never edited after)."""

from __future__ import annotations

from django.db import models

from alignment_core.aligner.posteriors import POSTERIOR_SCALE  # noqa: F401  (re-exported)
from annotator.models.projects import LinksModel, Project, SentencePair


class AlignerRun(models.Model):
    """One run of the seeding aligner over a project (or an imported set of seeds)."""

    class Kind(models.TextChoices):
        ALIGNER = "aligner", "Aligner"
        IMPORTED = "imported", "Imported"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="aligner_runs")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.ALIGNER)
    job = models.ForeignKey(
        "Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    config = models.JSONField(default=dict, blank=True)
    gold_pairs = models.PositiveIntegerField(default=0, help_text="Hand-aligned pairs trained on.")
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A chunked seeding writes its seeds a chunk at a time under an unpublished run, which
    # nothing reads (no page, no assignment) until its last task publishes it in one
    # transaction; a failed one is deleted with its seeds.
    published = models.BooleanField(
        default=True, help_text="False while a chunked seeding is still writing its seeds."
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} run {self.pk} on {self.project}"


# Stored link posteriors take one byte a cell: round(POSTERIOR_SCALE·p), defined once in the
# core beside the encoding (alignment_core.aligner.posteriors).


class PublishedSeedManager(models.Manager):
    """Seeds of published aligner runs only: every page, selector and assignment reads these,
    so a chunked seeding's seeds stay unseen until its run is published."""

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(aligner_run__published=True)


class SeedAlignment(LinksModel):
    """What the aligner proposed for a pair in one run. Never edited after it is written.

    ``objects`` sees published runs' seeds only; ``all_runs`` also an unpublished run's, for
    the chunked seeding that writes them (``annotator.seeding.chunked``)."""

    pair = models.ForeignKey(SentencePair, on_delete=models.CASCADE, related_name="seeds")
    aligner_run = models.ForeignKey(AlignerRun, on_delete=models.CASCADE, related_name="seeds")
    posteriors = models.BinaryField(
        null=True,
        blank=True,
        editable=False,
        help_text="Link posteriors, one byte a cell (round(255·p)), row-major N×M; null if none.",
    )
    uncertainty = models.FloatField(
        null=True, blank=True, help_text="The aligner's uncertainty about this pair (queue order)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = PublishedSeedManager()
    all_runs = models.Manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pair", "aligner_run"], name="seed_unique")]

    def _pair(self) -> SentencePair:
        return self.pair


class SeedTally(models.Model):
    """The number of seeds of an aligner run, kept by PostgreSQL triggers as appended rows of
    changes (one per statement that writes or deletes seeds; migration 0010): a run's count is
    the sum of its rows, read without counting a million seeds. Empty on SQLite."""

    aligner_run_id = models.BigIntegerField()
    seeds = models.BigIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["aligner_run_id"], name="seedtally_run")]
