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


class PairAgreement(models.Model):
    """One doubly annotated pair's scores, one annotator against another (a row per pair of its
    final annotations, ``rank`` their order: A+B, A+C, B+C), as the disagreement browser lists
    them, stored so the browser reads a sorted page instead of scoring every pair per view.

    Written only by ``reports.services.agreement_scores.refresh_scores``, which rescores the
    pairs that :class:`AgreementStale` names before each read; nothing else writes it."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    pair = models.ForeignKey("annotator.SentencePair", on_delete=models.CASCADE, related_name="+")
    rank = models.PositiveSmallIntegerField(default=0)
    first = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    # the pair's subcorpus and trial flag, copied for the filters (a pair that moves or changes
    # its flag is marked stale by a trigger on the pairs, and rescored)
    subcorpus_id = models.BigIntegerField(null=True)
    is_trial = models.BooleanField(default=False)
    word_f1 = models.FloatField(null=True)
    word_precision = models.FloatField(null=True)
    word_recall = models.FloatField(null=True)
    phrase_f1 = models.FloatField(null=True)
    # the pair browser's agreement: link F1 of the pair's first two submitted annotations
    # (every pair of annotators' row of a pair carries the same value)
    link_f1 = models.FloatField(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pair", "rank"], name="pairagreement_pair_rank")
        ]
        indexes = [
            models.Index(
                "project", "is_trial", "word_f1", "pair", "rank", name="pairagreement_order"
            ),
            # the pair browser's agreement filter: a pair's first row, its agreement at most x
            models.Index("project", "rank", "link_f1", name="pairagreement_link_f1"),
        ]


class AgreementStale(models.Model):
    """Pairs whose final annotations changed since they were last scored: database triggers
    (migration 0011) append a row whenever a submitted assignment or its annotation is written,
    inserted or deleted, and the next read of the scores rescores those pairs and takes their
    rows away. Nothing in Python writes it but that read."""

    project_id = models.BigIntegerField()
    pair_id = models.BigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["project_id"], name="agreementstale_project")]
