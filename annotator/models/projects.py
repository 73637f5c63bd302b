"""Projects and what they hold: members, subcorpora, sentence pairs, assignment plans and
assignments; and ``LinksModel``, the base of every table that stores links (seeds,
annotations, gold). Links are stored compactly as ``[[i, j, "S"|"P"], ...]``, 0-based,
validated by ``annotator.links`` against the pair's token counts.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Func, Q, Value
from django.db.models.functions import Cast, Concat, Length, Replace, Substr, Upper

from annotator.links import normalize_links

User = settings.AUTH_USER_MODEL


class Project(models.Model):
    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text="Markdown, shown to annotators.")
    double_annotation_share = models.FloatField(
        default=1 / 3,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Share of pairs given to two annotators (the paper: one third).",
    )
    monolingual = models.BooleanField(
        default=True, help_text="Paraphrases in one language: the aligner adds an identity lexicon."
    )
    max_tokens = models.PositiveIntegerField(
        default=250,
        validators=[MinValueValidator(1)],
        help_text="Longest sentence (tokens, either side) an import accepts.",
    )
    auto_retrain_every = models.PositiveIntegerField(
        default=50,
        help_text="Retrain the seeds after this many new gold pairs (0: never automatically).",
    )
    uncertainty_first = models.BooleanField(
        default=False,
        help_text="Serve unstarted pairs in order of the aligner's uncertainty (active learning).",
    )

    class SingleGold(models.TextChoices):
        IMMEDIATE = "immediate", "Gold at once"
        REVIEW = "review", "After a lead's review"

    single_gold_policy = models.CharField(
        max_length=16,
        choices=SingleGold.choices,
        default=SingleGold.IMMEDIATE,
        help_text="A submitted pair only one annotator had: gold at once, or after a lead's review.",
    )
    source_language = models.CharField(
        max_length=16, blank=True, help_text="ISO 639-1 code of the source side (e.g. en)."
    )
    target_language = models.CharField(
        max_length=16, blank=True, help_text="ISO 639-1 code of the target side (e.g. en)."
    )
    archived_at = models.DateTimeField(
        null=True, blank=True, help_text="Archived projects leave the home list; nothing is lost."
    )
    created_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(double_annotation_share__gte=0) & Q(double_annotation_share__lte=1),
                name="project_double_share_0_1",
            )
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        LEAD = "lead", "Lead"
        ANNOTATOR = "annotator", "Annotator"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="membership_unique"),
            models.CheckConstraint(
                condition=Q(role__in=["lead", "annotator"]), name="membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.project}"


class Subcorpus(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="subcorpora")
    name = models.CharField(max_length=100)

    class Meta:
        verbose_name_plural = "subcorpora"
        ordering = ["project", "name"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="subcorpus_unique")]

    def __str__(self) -> str:
        return self.name


class JSONLength(Func):
    """The number of items of a JSON array column (PostgreSQL's jsonb, SQLite's JSON text)."""

    function = "json_array_length"
    output_field = models.IntegerField()

    def as_postgresql(self, compiler, connection, **extra):
        return super().as_sql(compiler, connection, function="jsonb_array_length", **extra)


def tokens_text(column: str) -> Func:
    """A token list's JSON text (``["a", "b"]``) as its tokens joined by spaces: the outer
    ``["`` and ``"]`` cut off, each ``", "`` between two tokens made a space. A quote or a
    backslash in a token keeps its JSON escape (inside a token a quote is always escaped, so
    ``", "`` is only ever a separator), and so does a non-ASCII letter on SQLite, which stores
    the JSON ASCII-escaped: the search escapes its words the same way. No search word holds a
    space, so a word is found inside one token, never across two or across the sides."""
    text = Cast(column, models.TextField())
    inner = Substr(text, 3, Length(text) - 4, output_field=models.TextField())
    return Replace(inner, Value('", "'), Value(" "), output_field=models.TextField())


class PairManager(models.Manager):
    """Pairs without their search text: only the pair browser's search reads that column
    (``filter(search_text__contains=...)`` still can), so no other read carries it."""

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().defer("search_text")


class SentencePair(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="pairs")
    subcorpus = models.ForeignKey(
        Subcorpus, null=True, blank=True, on_delete=models.PROTECT, related_name="pairs"
    )
    external_id = models.CharField(max_length=200)
    position = models.PositiveIntegerField(default=0, help_text="Import order within the project.")
    source_tokens = models.JSONField()
    target_tokens = models.JSONField()
    is_trial = models.BooleanField(
        default=False, help_text="Trial pairs train annotators; never gold."
    )
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The words the pair browser searches, kept by the database (migration 0015): each side's
    # tokens as its JSON text shows them, without the brackets and quotes between them
    # (``tokens_text``), the two sides joined by a space and case-folded by ``UPPER``.
    search_text = models.GeneratedField(
        expression=Upper(
            Concat(
                tokens_text("source_tokens"),
                Value(" "),
                tokens_text("target_tokens"),
                output_field=models.TextField(),
            )
        ),
        output_field=models.TextField(),
        db_persist=True,
    )
    # The grid's size, source tokens × target tokens: an edit rate's denominator, read by
    # progress for every submitted assignment without reading the tokens (migration 0015).
    cells = models.GeneratedField(
        expression=JSONLength("source_tokens") * JSONLength("target_tokens"),
        output_field=models.IntegerField(),
        db_persist=True,
    )

    objects = PairManager()

    class Meta:
        ordering = ["project", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"], name="pair_external_id_unique"
            )
        ]
        indexes = [
            models.Index(fields=["project", "subcorpus"]),
            models.Index(fields=["project", "position", "id"]),  # the list order, index-only
            # the trial pairs in list order: the queue's trial run (grid.selectors.queue)
            models.Index(
                fields=["project", "position", "id"],
                condition=Q(is_trial=True),
                name="pair_trial_order",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.project_id}:{self.external_id}"

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.source_tokens), len(self.target_tokens)

    def clean(self) -> None:
        for field in ("source_tokens", "target_tokens"):
            tokens = getattr(self, field)
            if (
                not isinstance(tokens, list)
                or not tokens
                or not all(
                    isinstance(t, str) and t and not any(c.isspace() for c in t) for t in tokens
                )
            ):
                raise ValidationError({field: "must be a non-empty list of tokens without spaces"})
        if self.subcorpus_id and self.subcorpus.project_id != self.project_id:
            raise ValidationError({"subcorpus": "belongs to another project"})


class LinksModel(models.Model):
    """Mixin: a ``links`` field validated against the pair's grid in ``clean()``."""

    links = models.JSONField(default=list, blank=True)

    class Meta:
        abstract = True

    def _pair(self) -> SentencePair:
        raise NotImplementedError

    def clean(self) -> None:
        pair = self._pair()
        try:
            self.links = normalize_links(self.links, *pair.shape)
        except ValidationError as exc:
            raise ValidationError({"links": exc.messages}) from None


class AssignmentPlan(models.Model):
    """A record of one assignment of work: who asked, when, with what share and random seed,
    and what it gave each person (``summary``)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="assignment_plans")
    created_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    params = models.JSONField(default=dict, blank=True)
    summary = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"assignment plan {self.pk} of {self.project}"


class Assignment(models.Model):
    class Status(models.TextChoices):
        ASSIGNED = "assigned", "Assigned"
        IN_PROGRESS = "in_progress", "In progress"
        SUBMITTED = "submitted", "Submitted"

    class Flag(models.TextChoices):
        NONE = "", "Not flagged"
        BAD_TOKENISATION = "bad_tokenisation", "Bad tokenisation"
        NOT_PARAPHRASE = "not_paraphrase", "Not a paraphrase"
        UNSURE = "unsure", "Unsure"
        OTHER = "other", "Other"

    pair = models.ForeignKey(SentencePair, on_delete=models.CASCADE, related_name="assignments")
    # PROTECT: a user with work is deactivated, never deleted (their revisions would go too).
    annotator = models.ForeignKey(User, on_delete=models.PROTECT, related_name="assignments")
    plan = models.ForeignKey(
        AssignmentPlan, null=True, blank=True, on_delete=models.SET_NULL, related_name="assignments"
    )
    slot = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="1 = first, 2 = second annotator of a doubly annotated pair (report A and B).",
    )
    flag = models.CharField(max_length=32, choices=Flag.choices, default="", blank=True)
    flag_note = models.CharField(max_length=500, blank=True)
    flagged_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set when the lead unassigns: hidden from the queue, its work kept.",
    )
    last_activity_at = models.DateTimeField(
        null=True, blank=True, help_text="Last time the annotator opened or saved this pair."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ASSIGNED)
    seed = models.ForeignKey(
        "annotator.SeedAlignment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="assignments",
        help_text="The seed the annotator starts (or started) from.",
    )
    assigned_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pair", "annotator"], name="assignment_unique"),
            models.CheckConstraint(
                condition=Q(status__in=["assigned", "in_progress", "submitted"]),
                name="assignment_status_valid",
            ),
            models.CheckConstraint(
                condition=~Q(status="submitted") | Q(submitted_at__isnull=False),
                name="assignment_submitted_has_time",
            ),
            models.CheckConstraint(
                condition=Q(slot__isnull=True) | Q(slot__in=[1, 2]), name="assignment_slot_1_2"
            ),
        ]
        indexes = [
            models.Index(fields=["annotator", "status"]),
            models.Index(fields=["pair", "slot"]),
        ]

    def __str__(self) -> str:
        return f"{self.pair} → {self.annotator} ({self.status})"

    @property
    def is_started(self) -> bool:
        return self.status != self.Status.ASSIGNED


class PairTally(models.Model):
    """Counts of a project's pairs per subcorpus (all, trial, with a seed), kept by the
    database as it writes pairs and seeds, so a page shows them without counting a million
    pairs. On PostgreSQL, triggers append one row of *changes* per statement that inserts,
    updates or deletes pairs or seeds (migration 0010): a project's counts are the sums of
    its rows (``projects.selectors.projects.subcorpus_counts``). Appending, never updating,
    keeps writers from waiting on each other. On SQLite the table stays empty and the pages
    count the pairs themselves. Nothing else writes it."""

    project_id = models.BigIntegerField()
    subcorpus_id = models.BigIntegerField(null=True)
    pairs = models.BigIntegerField(default=0)
    trial = models.BigIntegerField(default=0)
    seeded = models.BigIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["project_id"], name="pairtally_project")]


class QueueTally(models.Model):
    """Each annotator's queue counts per project (assignments not withdrawn, per status), kept
    by PostgreSQL triggers on the assignments (migration 0013), so the queue page and the grid
    show "S of N submitted" without counting 200,000 assignments. One row per (annotator,
    project), updated in place by each statement that writes assignments: its writers are
    mostly that annotator's own saves, one at a time (unlike PairTally's imports and seedings,
    which append rows so as not to wait on each other). On SQLite the table stays empty and
    the queue is counted. Nothing else writes it."""

    annotator_id = models.BigIntegerField()
    project_id = models.BigIntegerField()
    assigned = models.BigIntegerField(default=0)
    in_progress = models.BigIntegerField(default=0)
    submitted = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["annotator_id", "project_id"], name="queuetally_key")
        ]
