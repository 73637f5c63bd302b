"""Each doubly annotated pair's agreement, stored (``PairAgreement``) so the disagreement
browser and the pair browser's agreement filter read a sorted page instead of scoring every
doubly annotated pair on every view (docs/benchmarks.md, "Scale: pages at 1 M pairs").

Database triggers (migration 0011) append a pair to ``AgreementStale`` whenever one of its
submitted assignments or their annotations is inserted, changed or deleted. A page that reads
the scores first calls :func:`refresh_scores`: it takes the project's marks away and rescores
exactly those pairs, with the same rules and the same scoring code as before. The work of a
read is therefore the pairs changed since the last read, not the project's doubly annotated
pairs. Refreshes of one project run one at a time (a transaction-level advisory lock on
PostgreSQL; SQLite runs one writer anyway), so two leads' views never write a pair twice.

What a pair's rows hold: one row per pair of its final annotations (a current annotation of a
submitted, not withdrawn assignment), in A/B order (slot 1, slot 2, then no slot, by
assignment id: ``rank`` 0 is A+B, then A+C, B+C with three annotators), with the word scores
(F1, sure precision and recall) and the phrase F1 of ``alignment_core.agreement``; and, on each
row of the pair, the pair browser's agreement (link F1 of the first two submitted annotations
in the browser's order).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from django.db import connection, transaction
from django.db.models import F, QuerySet

from annotator.links import to_alignment
from annotator.models import AgreementStale, Assignment, PairAgreement, Project

# pairs rescored per batch (each batch: three reads and one write)
RESCORE_BATCH = 500
# pairs rescored by one refresh past which the table's statistics are renewed
ANALYZE_AFTER = 5_000


def refresh_scores(*, project: Project) -> int:
    """Rescore the pairs of ``project`` marked stale; returns how many pairs were rescored."""
    done = 0
    while (batch := _refresh_batch(project)) is not None:
        done += batch
    if done >= ANALYZE_AFTER and connection.vendor == "postgresql":
        # many rows written at once (the first read after the migration): statistics taken
        # while the table was nearly empty would misplan the page's reads
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE annotator_pairagreement")
    return done


def _refresh_batch(project: Project) -> int | None:
    """One transaction: take up to a few batches of marks, rescore their pairs; the number of
    pairs rescored, None when no mark was left."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [7_310_045, project.pk])
        marks = list(
            AgreementStale.objects.filter(project_id=project.pk)
            .order_by("id")
            .values_list("id", "pair_id")[: RESCORE_BATCH * 4]
        )
        if not marks:
            return None
        pair_ids = sorted({pair_id for _, pair_id in marks})
        rescore_pairs(project=project, pair_ids=pair_ids)
        AgreementStale.objects.filter(pk__in=[mark for mark, _ in marks]).delete()
        return len(pair_ids)


def rescore_pairs(*, project: Project, pair_ids: list[int]) -> None:
    """Replace the stored rows of ``pair_ids`` by their scores now (no rows for a pair that no
    longer has two final annotations)."""
    for start in range(0, len(pair_ids), RESCORE_BATCH):
        batch = pair_ids[start : start + RESCORE_BATCH]
        rows = list(_scored_rows(project, batch))
        PairAgreement.objects.filter(pair_id__in=batch).delete()
        PairAgreement.objects.bulk_create(rows)


def _final_assignments(pair_ids: list[int]) -> QuerySet[Assignment]:
    """The current submitted assignments of ``pair_ids`` that have an annotation."""
    return Assignment.objects.filter(
        pair_id__in=pair_ids,
        status=Assignment.Status.SUBMITTED,
        withdrawn_at__isnull=True,
        annotation__isnull=False,
    )


def _final_rows(pair_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Per pair, its final annotations in A/B order (as ``reports.selectors.reports``)."""
    found: dict[int, list[dict[str, Any]]] = {}
    rows = (
        _final_assignments(pair_ids)
        .order_by("pair_id", F("slot").asc(nulls_last=True), "id")
        .values("pair_id", "annotator_id", "annotation__links")
    )
    for row in rows:
        found.setdefault(row["pair_id"], []).append(row)
    return found


def _browser_agreements(pair_ids: list[int]) -> dict[int, float | None]:
    """The pair browser's agreement of each pair: link F1 of its first two current submitted
    annotations in the browser's order (slot, then id, as the database sorts them)."""
    from annotator.projects.selectors.pair_browser import link_f1

    firsts: dict[int, list[Any]] = {}
    rows = (
        _final_assignments(pair_ids)
        .order_by("pair_id", "slot", "id")
        .values_list("pair_id", "annotation__links")
    )
    for pair_id, links in rows:
        firsts.setdefault(pair_id, []).append(links)
    return {pid: link_f1(*found[:2]) for pid, found in firsts.items() if len(found) >= 2}


def _scored_rows(project: Project, pair_ids: list[int]) -> Iterable[PairAgreement]:
    finals = {pid: rows for pid, rows in _final_rows(pair_ids).items() if len(rows) >= 2}
    if not finals:
        return []
    tokens = {
        p["id"]: p
        for p in project.pairs.filter(pk__in=finals).values(
            "id", "source_tokens", "target_tokens", "is_trial", "subcorpus_id"
        )
    }
    sides = [
        (pid, rank, a, b)
        for pid in sorted(finals)
        for rank, (a, b) in enumerate(itertools.combinations(finals[pid], 2))
    ]
    from alignment_core.agreement.phrase import (
        score_alignments,  # numba: loaded when first used, never by an idle web process
    )

    word, phrase = score_alignments(
        (tokens[pid]["source_tokens"], tokens[pid]["target_tokens"],
         to_alignment(a["annotation__links"]), to_alignment(b["annotation__links"]))
        for pid, _rank, a, b in sides
    )  # fmt: skip
    browser = _browser_agreements(sorted(finals))
    return [
        PairAgreement(
            project=project,
            pair_id=pid,
            rank=rank,
            first_id=a["annotator_id"],
            second_id=b["annotator_id"],
            subcorpus_id=tokens[pid]["subcorpus_id"],
            is_trial=tokens[pid]["is_trial"],
            word_f1=w.f1,
            word_precision=w.precision_sure,
            word_recall=w.recall_sure,
            phrase_f1=p.f1,
            link_f1=browser.get(pid),
        )  # fmt: skip
        for (pid, rank, a, b), w, p in zip(sides, word.per_pair(), phrase.per_pair(), strict=True)
    ]
