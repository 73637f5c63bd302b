"""The data model (issue 2 §4). Links are stored compactly as ``[[i, j, "S"|"P"], ...]``,
0-based, validated by ``annotator.links`` against the pair's token counts.

Nothing an annotator saved is ever lost: every save of an Annotation appends an
AnnotationRevision; seeds are kept unchanged (the κ_C chance model needs them).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

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


class _LinksModel(models.Model):
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

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} run {self.pk} on {self.project}"


# Stored link posteriors take one byte a cell: round(POSTERIOR_SCALE·p). Written by the seeding
# service, read by the grid; defined here, beside the field, once.
POSTERIOR_SCALE = 255


class SeedAlignment(_LinksModel):
    """What the aligner proposed for a pair in one run. Never edited after it is written."""

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

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pair", "aligner_run"], name="seed_unique")]

    def _pair(self) -> SentencePair:
        return self.pair


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
        SeedAlignment,
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


class Annotation(_LinksModel):
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


class GoldAlignment(_LinksModel):
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


class Job(models.Model):
    """A long task's live state. Every Celery task updates its Job, so pages and the API show
    progress whatever the result backend. A job whose heartbeat goes stale is failed."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=32)
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    created_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    celery_task_id = models.CharField(max_length=64, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(progress__lte=100), name="job_progress_0_100"),
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "succeeded", "failed"]),
                name="job_status_valid",
            ),
        ]
        indexes = [models.Index(fields=["status", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"{self.kind} job {self.pk} ({self.status} {self.progress}%)"

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.SUCCEEDED, self.Status.FAILED)


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


class ApiToken(models.Model):
    """A token for scripts (``Authorization: Token <key>``). Only a SHA-256 digest of the key is
    stored; the key is shown once, when created. A user may hold several and revoke each."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(
        max_length=8, help_text="First characters of the key, to tell keys apart."
    )
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"token {self.prefix}… of {self.user}"


class DocumentPair(models.Model):
    """Two documents of a project, source and target, from which sentence pairs are made
    (issue 33). *Parallel*: translations or two versions of one text, aligned in order into
    beads. *Comparable*: the same topic or event in different text, mined for candidate pairs in
    any order. The originals are kept as uploaded; their sentences (0-based lists) are what the
    beads index, and a lead may merge or split them in the review screen."""

    class Kind(models.TextChoices):
        PARALLEL = "parallel", "Parallel"
        COMPARABLE = "comparable", "Comparable"

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
