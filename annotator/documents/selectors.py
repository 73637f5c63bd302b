"""Documents → sentence pairs, the reads: which document pairs a user may review, and a pair's
review state (sentences, beads, counts) as plain data for the API and the review page."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from annotator.common import access
from annotator.models import Bead, DocumentPair, Project


def reviewable_document_pairs(*, user: Any) -> QuerySet[DocumentPair]:
    """Document pairs of the projects the user leads (staff: all). Annotators see none: the
    pairs become theirs only once sent to annotation."""
    qs = DocumentPair.objects.select_related("project")
    if getattr(user, "is_staff", False):
        return qs
    return qs.filter(project_id__in=access.led_project_ids(user=user))


# A list never needs a pair's documents (up to 20 MB each) nor their sentences.
HEAVY_FIELDS = (
    "source_original", "target_original", "source_sentences", "target_sentences",
    "source_blocks", "target_blocks",
)  # fmt: skip


def document_pairs_of(*, project: Project) -> QuerySet[DocumentPair]:
    """The project's pairs with their bead counts, without their documents or sentences."""
    return (
        DocumentPair.objects.filter(project=project)
        .defer(*HEAVY_FIELDS)
        .annotate(
            bead_count=Count("beads"),
            accepted_count=Count("beads", filter=Q(beads__decision=Bead.Decision.ACCEPTED)),
            rejected_count=Count("beads", filter=Q(beads__decision=Bead.Decision.REJECTED)),
            sent_count=Count("beads", filter=Q(beads__pair__isnull=False)),
        )
        .order_by("name", "id")
    )


def bead_brief(bead: Bead) -> dict[str, Any]:
    """A bead without its sentences' text: what a client that holds the sentences needs."""
    return {
        "id": bead.pk,
        "position": bead.position,
        "source": list(bead.source),
        "target": list(bead.target),
        "confidence": bead.confidence,
        "predicted": bead.predicted,
        "decision": bead.decision,
        "pair": bead.pair_id,
        "null": bead.is_null,
    }


def bead_data(bead: Bead, dp: DocumentPair) -> dict[str, Any]:
    return {
        **bead_brief(bead),
        "source_text": " ".join(dp.source_sentences[i] for i in bead.source),
        "target_text": " ".join(dp.target_sentences[j] for j in bead.target),
    }


def bead_counts(*, document_pair: DocumentPair) -> dict[str, int]:
    """The beads per decision, and how many were sent: the review state's ``counts``, counted
    by the database (no bead and no sentence read)."""
    beads = Bead.objects.filter(document_pair=document_pair)
    counts = dict.fromkeys(Bead.Decision.values, 0)
    for row in beads.values("decision").annotate(n=Count("id")).order_by():
        counts[row["decision"]] = row["n"]
    return counts | {"sent": beads.filter(pair__isnull=False).count()}


ORDERS = ("document", "likeliest")


def review_state(*, document_pair: DocumentPair, order: str = "") -> dict[str, Any]:
    """Everything the review screen shows: both sides' sentences, the beads, and which
    sentences no non-null bead covers (shown, never silently dropped). ``order``: "document"
    (the beads in document order; parallel pairs' default) or "likeliest" (the pair
    classifier's P(accepted), else the aligner's confidence, highest first; comparable pairs'
    default)."""
    dp = document_pair
    beads = [bead_data(b, dp) for b in dp.beads.order_by("position", "id")]
    if order not in ORDERS:
        order = "likeliest" if dp.kind == DocumentPair.Kind.COMPARABLE else "document"
    if order == "likeliest":
        beads.sort(key=lambda b: -(b["predicted"] if b["predicted"] is not None
                                   else (b["confidence"] or 0.0)))  # fmt: skip
    covered_src = {i for b in beads if not b["null"] for i in b["source"]}
    covered_tgt = {j for b in beads if not b["null"] for j in b["target"]}
    return {
        "id": dp.pk,
        "project": dp.project_id,
        "name": dp.name,
        "kind": dp.kind,
        "source_language": dp.source_language,
        "target_language": dp.target_language,
        "source_filename": dp.source_filename,
        "target_filename": dp.target_filename,
        "source_sentences": list(dp.source_sentences),
        "target_sentences": list(dp.target_sentences),
        "aligned": dp.aligned_at is not None,
        "order": order,
        "beads": beads,
        "unaligned_source": [i for i in range(len(dp.source_sentences)) if i not in covered_src],
        "unaligned_target": [j for j in range(len(dp.target_sentences)) if j not in covered_tgt],
        "counts": {
            decision: sum(1 for b in beads if b["decision"] == decision)
            for decision in Bead.Decision.values
        }
        | {"sent": sum(1 for b in beads if b["pair"])},
    }
