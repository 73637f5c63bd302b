"""Matching an import's pairs against the project, and writing the new pairs.

``plan_pairs`` decides which pairs are new, which are already stored (matched by external
id; their tokens must be the stored ones, see the token-mismatch policies) and which
alignments to load; ``write_pairs`` creates the subcorpora and new pairs in batches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Max

from alignment_core import AlignedPair
from annotator.models import Project, SentencePair, Subcorpus
from annotator.services.importing_checks import (
    TRIAL_KEY,
    describe_difference,
    parse_trial,
    same_shape,
)
from annotator.services.importing_report import (
    CorpusImportError,
    ImportReport,
    Problem,
    TokenMismatch,
)
from annotator.services.importing_write import AlignmentLoad, chunks

BATCH_SIZE = 2000


@dataclass
class PairPlan:
    new_pairs: dict[str, tuple[AlignedPair, str | None]]  # id -> (first record, subcorpus)
    loads: list[AlignmentLoad]
    new_pks: dict[str, int]


def plan_pairs(
    *,
    project: Project,
    kept: list[tuple[int, AlignedPair]],
    name: str,
    mode: str | None,
    fixed_name: str | None,
    subcorpus: str | None,
    on_token_mismatch: str,
    report: ImportReport,
) -> PairPlan:
    """Match the input against the project: which pairs are new, which alignments to load."""
    stored = _stored_pairs(project, list(dict.fromkeys(p.id for _, p in kept)))
    plan = PairPlan(new_pairs={}, loads=[], new_pks={})
    problems: list[Problem] = []
    matched: set[str] = set()
    moved: list[str] = []
    trial_differs: list[str] = []
    without_alignment = with_alignment = 0
    for position, pair in kept:
        sub = pair.subcorpus or subcorpus or None
        row = stored.get(pair.id)
        first = plan.new_pairs.get(pair.id)
        if row is None and first is None:
            plan.new_pairs[pair.id] = (pair, sub)
            reference = (pair.source, pair.target)
        else:
            if row is not None:
                reference = (row["source_tokens"], row["target_tokens"])
                if pair.id not in matched:
                    matched.add(pair.id)
                    if sub and sub != row["subcorpus__name"]:
                        moved.append(pair.id)
                    trial = parse_trial(pair.metadata.get(TRIAL_KEY, False))
                    if trial != row["is_trial"]:
                        trial_differs.append(pair.id)
            else:
                reference = (first[0].source, first[0].target)
            given = (pair.source, pair.target)
            if list(reference[0]) != list(given[0]) or list(reference[1]) != list(given[1]):
                detail = describe_difference(reference, given)
                who = pair.annotator if mode == "annotator" else None
                who = fixed_name or who
                if on_token_mismatch == "error":
                    problems.append(
                        Problem(
                            f"tokens differ from the pair already "
                            f"{'in the project' if row else 'read'}: {detail} (a file may only "
                            "attach alignments to a stored pair; see --token-mismatch)",
                            file=name,
                            pair_id=pair.id,
                            position=position,
                        )
                    )
                    continue
                attach = on_token_mismatch == "same-shape" and same_shape(reference, given)
                report.token_mismatches.append(
                    TokenMismatch(pair.id, name, who, "attached" if attach else "skipped", detail)
                )
                if not attach:
                    continue
        if pair.alignment is None:
            without_alignment += 1
            continue
        with_alignment += 1
        if mode is not None:
            plan.loads.append(
                AlignmentLoad(
                    position=position,
                    pair=pair,
                    pair_pk=row["pk"] if row is not None else None,
                    annotator=(fixed_name or pair.annotator) if mode == "annotator" else None,
                )
            )
    if problems:
        raise CorpusImportError(problems)
    report.pairs_created = len(plan.new_pairs)
    report.pairs_matched = len(matched)
    if mode is None and with_alignment:
        report.warnings.append(
            f"{with_alignment} pairs carry alignments, which were not loaded "
            "(load them as gold, seed or annotator)"
        )
    if mode is not None and without_alignment:
        report.warnings.append(f"{without_alignment} pairs carry no alignment (text only)")
    if moved:
        report.warnings.append(
            f"{len(moved)} pairs already in the project keep their stored subcorpus, which "
            f"differs from this import's (e.g. {', '.join(moved[:5])})"
        )
    if trial_differs:
        report.warnings.append(
            f"{len(trial_differs)} pairs already in the project keep their stored trial flag, "
            f"which differs from this import's (e.g. {', '.join(trial_differs[:5])})"
        )
    return plan


def _stored_pairs(project: Project, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The project's pairs among ``ids``, keyed by external id (queried in chunks)."""
    if not ids or not SentencePair.objects.filter(project=project).exists():
        return {}
    out: dict[str, dict[str, Any]] = {}
    for chunk in chunks(ids, 500):
        for row in SentencePair.objects.filter(project=project, external_id__in=chunk).values(
            "pk", "external_id", "source_tokens", "target_tokens", "subcorpus__name", "is_trial"
        ):
            out[row["external_id"]] = row
    return out


def write_pairs(
    *, project: Project, plan: PairPlan, report: ImportReport, tick: Callable[[float, str], None]
) -> None:
    """Create the subcorpora and the new pairs (positions continue the project's order)."""
    names = sorted({sub for _, sub in plan.new_pairs.values() if sub})
    subcorpora = {s.name: s for s in Subcorpus.objects.filter(project=project, name__in=names)}
    missing = [n for n in names if n not in subcorpora]
    if missing:
        Subcorpus.objects.bulk_create([Subcorpus(project=project, name=n) for n in missing])
        subcorpora = {s.name: s for s in Subcorpus.objects.filter(project=project, name__in=names)}
        report.subcorpora_created += missing
    start = (
        SentencePair.objects.filter(project=project).aggregate(m=Max("position"))["m"] or 0
    ) + 1
    objs = []
    for k, (pair, sub) in enumerate(plan.new_pairs.values()):
        meta = dict(pair.metadata)
        trial = parse_trial(meta.pop(TRIAL_KEY, False))
        report.trial_pairs_created += bool(trial)
        objs.append(
            SentencePair(
                project=project,
                subcorpus=subcorpora[sub] if sub else None,
                external_id=pair.id,
                position=start + k,
                source_tokens=list(pair.source),
                target_tokens=list(pair.target),
                is_trial=bool(trial),
                metadata=meta,
            )
        )
    total = max(len(objs), 1)
    for done, batch in enumerate(chunks(objs, BATCH_SIZE), 1):
        created = SentencePair.objects.bulk_create(batch)
        for obj in created:
            if obj.pk is not None:
                plan.new_pks[obj.external_id] = obj.pk
        tick(
            100 * min(done * BATCH_SIZE, total) / total,
            f"stored {min(done * BATCH_SIZE, total)} pairs",
        )
    if len(plan.new_pks) < len(objs):  # a backend that does not return primary keys
        rows = SentencePair.objects.filter(project=project, position__gte=start)
        plan.new_pks.update(rows.values_list("external_id", "pk"))
