"""Gold alignments and their history (a GoldRevision per change, kept forever)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models.projects import LinksModel, SentencePair

User = settings.AUTH_USER_MODEL


class GoldAlignment(LinksModel):
    class Origin(models.TextChoices):
        SINGLE = "single", "Single annotation"
        ADJUDICATED = "adjudicated", "Adjudicated"
        IMPORTED = "imported", "Imported"

    pair = models.OneToOneField(SentencePair, on_delete=models.CASCADE, related_name="gold")
    origin = models.CharField(max_length=16, choices=Origin.choices)
    adjudicator = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(origin__in=["single", "adjudicated", "imported"]),
                name="gold_origin_valid",
            )
        ]

    def _pair(self) -> SentencePair:
        return self.pair


class GoldRevision(models.Model):
    """Every change of a pair's gold, kept forever (the GoldAlignment row is the latest)."""

    # PROTECT: a gold alignment with history (and its pair and project) cannot be deleted.
    gold = models.ForeignKey(GoldAlignment, on_delete=models.PROTECT, related_name="revisions")
    version = models.PositiveIntegerField()
    links = models.JSONField(default=list)
    origin = models.CharField(max_length=16, choices=GoldAlignment.Origin.choices)
    author = models.ForeignKey(User, null=True, on_delete=models.SET_NULL, related_name="+")
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["gold", "version"]
        constraints = [
            models.UniqueConstraint(fields=["gold", "version"], name="gold_revision_unique_version")
        ]


class GoldReview(models.Model):
    """A submission of a pair only one annotator had, waiting for a lead (issue 31): under the
    project's "review" policy it becomes gold only when a lead accepts it."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for review"
        ACCEPTED = "accepted", "Accepted as gold"
        RETURNED = "returned", "Sent back to the annotator"
        # a lead adjudicated the pair while the review waited: the adjudicated gold decides
        SUPERSEDED = "superseded", "Superseded by adjudication"

    pair = models.ForeignKey(SentencePair, on_delete=models.CASCADE, related_name="gold_reviews")
    assignment = models.ForeignKey(
        "annotator.Assignment", on_delete=models.CASCADE, related_name="gold_reviews"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["pair"], condition=Q(status="pending"), name="gold_review_one_pending"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "accepted", "returned", "superseded"]),
                name="gold_review_status_valid",
            ),
        ]


class PairMessage(models.Model):
    """One message of a pair's discussion (issue 31). A thread is one pair and one annotator
    (``annotator``): the annotator and the project's leads write in it; other annotators never
    see it (the blind rule)."""

    pair = models.ForeignKey(SentencePair, on_delete=models.CASCADE, related_name="messages")
    annotator = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    author = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["pair", "annotator"])]
