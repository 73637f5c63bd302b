"""Documents → sentence pairs (issue 33): a document pair of a project, its sentences, and the
beads proposed between them with the lead's decisions."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models.projects import Project, SentencePair

User = settings.AUTH_USER_MODEL


class DocumentPair(models.Model):
    """Two documents of a project, source and target, from which sentence pairs are made
    (issue 33). *Parallel*: translations or two versions of one text, aligned in order into
    beads. *Comparable*: the same topic or event in different text, mined for candidate pairs in
    any order. The originals are kept as uploaded; their sentences (0-based lists) are what the
    beads index, and a lead may merge or split them in the review screen."""

    class Kind(models.TextChoices):
        PARALLEL = "parallel", "Parallel"
        COMPARABLE = "comparable", "Comparable"

    class State(models.TextChoices):
        READY = "ready", "Ready"
        WAITING = "waiting", "Waiting to be read"
        FAILED = "failed", "Could not be read"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="document_pairs")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.PARALLEL)
    source_language = models.CharField(max_length=16)
    target_language = models.CharField(max_length=16)
    source_filename = models.CharField(max_length=255)
    target_filename = models.CharField(max_length=255)
    source_format = models.CharField(max_length=16, help_text="text, lines or html")
    target_format = models.CharField(max_length=16, help_text="text, lines or html")
    source_original = models.TextField(help_text="The uploaded file, decoded as UTF-8.")
    target_original = models.TextField(help_text="The uploaded file, decoded as UTF-8.")
    source_sentences = models.JSONField(default=list)
    target_sentences = models.JSONField(default=list)
    # Each sentence's HTML block (0-based, non-decreasing); empty for text without blocks.
    source_blocks = models.JSONField(default=list, blank=True)
    target_blocks = models.JSONField(default=list, blank=True)
    aligned_at = models.DateTimeField(null=True, blank=True)
    # How many sentences of each side no non-null bead covers, kept by every write of the
    # beads (``documents.realign``) so the review reads two numbers; None: not known (a pair
    # aligned before they were kept), counted by the database on each read.
    unaligned_source = models.PositiveIntegerField(null=True, blank=True)
    unaligned_target = models.PositiveIntegerField(null=True, blank=True)
    # A big upload is stored as it came and read by the align job (``stored`` says where:
    # the upload folder, the files or zip members, the split mode); until then the pair is
    # ``waiting`` with no sentences. A file the job cannot read leaves it ``failed``, with
    # the reason (naming the file) in ``error``.
    state = models.CharField(max_length=16, choices=State.choices, default=State.READY)
    error = models.TextField(blank=True)
    stored = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="document_pair_name_unique")
        ]

    def __str__(self) -> str:
        return f"{self.project_id}:{self.name}"


class Bead(models.Model):
    """A proposed correspondence between sentences of a document pair: ``source`` and
    ``target`` are 0-based sentence indices (one side empty for a null bead, which can never be
    accepted), ``confidence`` in [0, 1]. The lead's decision is kept as it is made; a bead
    sent to annotation points at the sentence pair made from it (the pair's provenance)."""

    class Decision(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

    document_pair = models.ForeignKey(DocumentPair, on_delete=models.CASCADE, related_name="beads")
    position = models.PositiveIntegerField(help_text="Order in the document pair (0-based).")
    source = models.JSONField(default=list)
    target = models.JSONField(default=list)
    confidence = models.FloatField(null=True, blank=True, help_text="None: made by hand.")
    predicted = models.FloatField(
        null=True, blank=True, help_text="The pair classifier's P(accepted), once it has learnt."
    )
    decision = models.CharField(max_length=16, choices=Decision.choices, default=Decision.PENDING)
    decided_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    pair = models.OneToOneField(
        SentencePair, null=True, blank=True, on_delete=models.SET_NULL, related_name="bead"
    )

    class Meta:
        ordering = ["document_pair", "position"]
        indexes = [models.Index(fields=["document_pair", "position"])]

    def __str__(self) -> str:
        return f"{self.source}:{self.target}"

    @property
    def is_null(self) -> bool:
        return not self.source or not self.target
