"""The data model (issue 2 §4): one Django app, label ``annotator``, its tables in one module
per feature and all of them importable from here. Links are stored compactly as
``[[i, j, "S"|"P"], ...]``, 0-based, validated by ``annotator.links`` against the pair's token
counts.

Nothing an annotator saved is ever lost: every save of an Annotation appends an
AnnotationRevision, every change of gold a GoldRevision, and both PROTECT what they describe;
seeds are kept unchanged (the κ_C chance model needs them).
"""

from annotator.models.accounts import ApiToken
from annotator.models.documents import Bead, DocumentPair
from annotator.models.gold import GoldAlignment, GoldReview, GoldRevision, PairMessage
from annotator.models.grid import Annotation, AnnotationFigures, AnnotationRevision
from annotator.models.jobs import Job, JobPart
from annotator.models.projects import (
    Assignment,
    AssignmentPlan,
    LinksModel,
    Membership,
    PairTally,
    Project,
    QueueTally,
    SentencePair,
    Subcorpus,
)
from annotator.models.reports import AgreementReport, AgreementStale, PairAgreement
from annotator.models.seeding import POSTERIOR_SCALE, AlignerRun, SeedAlignment, SeedTally

__all__ = [
    "POSTERIOR_SCALE",
    "AgreementReport",
    "AgreementStale",
    "AlignerRun",
    "Annotation",
    "AnnotationFigures",
    "AnnotationRevision",
    "ApiToken",
    "Assignment",
    "AssignmentPlan",
    "Bead",
    "DocumentPair",
    "GoldAlignment",
    "GoldReview",
    "GoldRevision",
    "Job",
    "JobPart",
    "LinksModel",
    "Membership",
    "PairMessage",
    "PairAgreement",
    "PairTally",
    "QueueTally",
    "Project",
    "SeedAlignment",
    "SeedTally",
    "SentencePair",
    "Subcorpus",
]
