"""Matching an import's pairs against the project, and writing the new pairs.

``plan_pairs`` decides which pairs are new, which are already stored (matched by external
id; their tokens must be the stored ones, see the token-mismatch policies) and which
alignments to load; ``write_pairs`` creates the subcorpora and new pairs in batches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Max

from alignment_core import AlignedPair
from alignment_core.progress import Progress
from annotator.corpora.services.importing_checks import (
    TRIAL_KEY,
    describe_difference,
    parse_trial,
    same_shape,
)
from annotator.corpora.services.importing_report import (
    CorpusImportError,
    ImportReport,
    Problem,
    TokenMismatch,
)
from annotator.corpora.services.importing_rows import NewPair, insert_pairs
from annotator.corpora.services.importing_write import AlignmentLoad, chunks
from annotator.models import Project, SentencePair, Subcorpus

BATCH_SIZE = 5000  # rows a statement (a COPY on PostgreSQL)


@dataclass
class PairPlan:
    """What an import will write: new pairs (id -> first record, subcorpus name) in input
    order, the alignments to load, and (after ``write_pairs``) the new pairs' primary keys."""

    new_pairs: dict[str, tuple[AlignedPair, str | None]] = field(default_factory=dict)
    loads: list[AlignmentLoad] = field(default_factory=list)
    new_pks: dict[str, int] = field(default_factory=dict)


@dataclass
class PlanNotes:
    """Facts gathered while planning (over every chunk of an input) that end up as report
    warnings (:func:`plan_warnings`)."""

    moved: list[str] = field(default_factory=list)
    trial_differs: list[str] = field(default_factory=list)
    with_alignment: int = 0
    without_alignment: int = 0


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
    notes: PlanNotes,
    lookup: bool = True,
) -> PairPlan:
    """Match the input against the project: which pairs are new, which alignments to load.

    A pair whose id is stored (or was read earlier in this input, when several annotators'
    alignments of one pair arrive together) is compared token by token; a difference is a
    problem, or a reported skip / attach, per ``on_token_mismatch``. Raises
    CorpusImportError listing every problem. Counts are added to ``report``; facts for its
    warnings gathered in ``notes`` (an input read in chunks words them once, at its end).
    ``lookup`` False: the caller knows none of these ids is stored (see ``import_pair_chunks``).
    """
    ids = list(dict.fromkeys(p.id for _, p in kept)) if lookup else []
    stored = _stored_pairs(project, ids)
    plan = PairPlan()
    problems: list[Problem] = []
    matched: set[str] = set()
    mismatch = _Mismatch(name, mode, fixed_name, on_token_mismatch, problems, report)
    for position, pair in kept:
        sub = pair.subcorpus or subcorpus or None
        row = stored.get(pair.id)
        first = plan.new_pairs.get(pair.id)
        if row is None and first is None:
            plan.new_pairs[pair.id] = (pair, sub)
        else:
            if row is not None and pair.id not in matched:
                matched.add(pair.id)
                _compare_flags(pair, sub, row, notes)
            if row is not None:
                reference = (row["source_tokens"], row["target_tokens"])
            else:
                reference = (first[0].source, first[0].target)
            where = "in the project" if row is not None else "read earlier"
            if not mismatch.tokens_agree(pair, position, reference, where):
                continue
        if pair.alignment is None:
            notes.without_alignment += 1
            continue
        notes.with_alignment += 1
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
    report.pairs_created += len(plan.new_pairs)
    report.pairs_matched += len(matched)
    return plan


@dataclass
class _Mismatch:
    """What to do with a pair whose tokens differ from the stored (or earlier) pair's."""

    name: str
    mode: str | None
    fixed_name: str | None
    policy: str
    problems: list[Problem]
    report: ImportReport

    def tokens_agree(self, pair: AlignedPair, position: int, reference: tuple, where: str) -> bool:
        """True when the pair's alignment may be loaded onto ``reference``'s tokens: they are
        the same, or the policy attaches it (same-shape). Else the difference is a problem
        ("error") or a reported skip, and False."""
        given = (pair.source, pair.target)
        if list(reference[0]) == list(given[0]) and list(reference[1]) == list(given[1]):
            return True
        detail = describe_difference(reference, given)
        if self.policy == "error":
            self.problems.append(
                Problem(
                    f"tokens differ from the pair already {where}: {detail} (a file "
                    "may only attach alignments to a stored pair; to go on, choose the "
                    "token-mismatch policy skip or same-shape)",
                    file=self.name,
                    pair_id=pair.id,
                    position=position,
                )
            )
            return False
        attach = self.policy == "same-shape" and same_shape(reference, given)
        who = self.fixed_name or (pair.annotator if self.mode == "annotator" else None)
        action = "attached" if attach else "skipped"
        self.report.token_mismatches.append(TokenMismatch(pair.id, self.name, who, action, detail))
        return attach


def _compare_flags(
    pair: AlignedPair, sub: str | None, row: dict[str, Any], notes: PlanNotes
) -> None:
    """A stored pair keeps its subcorpus and trial flag; note where the input says otherwise."""
    if sub and sub != row["subcorpus__name"]:
        notes.moved.append(pair.id)
    if parse_trial(pair.metadata.get(TRIAL_KEY, False)) != row["is_trial"]:
        notes.trial_differs.append(pair.id)


def plan_warnings(mode: str | None, notes: PlanNotes) -> list[str]:
    """The report's warnings about an input, from what planning noticed."""
    out = []
    if mode is None and notes.with_alignment:
        out.append(
            f"{notes.with_alignment} pairs carry alignments, which were not loaded "
            "(load them as gold, seed or annotator)"
        )
    if mode is not None and notes.without_alignment:
        out.append(f"{notes.without_alignment} pairs carry no alignment (text only)")
    if notes.moved:
        out.append(
            f"{len(notes.moved)} pairs already in the project keep their stored subcorpus, "
            f"which differs from this import's (e.g. {', '.join(notes.moved[:5])})"
        )
    if notes.trial_differs:
        out.append(
            f"{len(notes.trial_differs)} pairs already in the project keep their stored trial "
            f"flag, which differs from this import's (e.g. {', '.join(notes.trial_differs[:5])})"
        )
    return out


def _stored_pairs(project: Project, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The project's pairs among ``ids``, keyed by external id.

    First which ids are stored, through the (project, external id) index alone and in few
    statements (a chunk of a fresh input usually finds none), then the rows of those found."""
    if not ids or not SentencePair.objects.filter(project=project).exists():
        return {}
    found = _stored_ids(project.pk, ids)
    out: dict[str, dict[str, Any]] = {}
    for chunk in chunks(found, 500):
        for row in SentencePair.objects.filter(project=project, external_id__in=chunk).values(
            "pk", "external_id", "source_tokens", "target_tokens", "subcorpus__name", "is_trial"
        ):
            out[row["external_id"]] = row
    return out


def _stored_ids(project_pk: int, ids: list[str]) -> list[str]:
    """Which of ``ids`` the project holds: one ``= ANY(array)`` probe of the unique index on
    PostgreSQL; on SQLite, IN lists within its bound on a statement's parameters."""
    table = connection.ops.quote_name(SentencePair._meta.db_table)
    found: list[str] = []
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"SELECT external_id FROM {table} WHERE project_id = %s AND external_id = ANY(%s)",
                [project_pk, ids],
            )
            return [eid for (eid,) in cursor.fetchall()]
        for chunk in chunks(ids, 900):
            marks = ", ".join(["%s"] * len(chunk))
            cursor.execute(
                f"SELECT external_id FROM {table} WHERE project_id = %s "
                f"AND external_id IN ({marks})",
                [project_pk, *chunk],
            )
            found += [eid for (eid,) in cursor.fetchall()]
    return found


def write_pairs(
    *, project: Project, plan: PairPlan, report: ImportReport, tick: Progress, keys: bool = True
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
    sub_pks = {name: s.pk for name, s in subcorpora.items()}
    rows = []
    for k, (pair, sub) in enumerate(plan.new_pairs.values()):
        meta = dict(pair.metadata)
        trial = bool(parse_trial(meta.pop(TRIAL_KEY, False)))
        report.trial_pairs_created += trial
        sub_pk = sub_pks[sub] if sub else None
        rows.append(NewPair(pair.id, start + k, pair.source, pair.target, trial, meta, sub_pk))
    total = max(len(rows), 1)
    for done, batch in enumerate(chunks(rows, BATCH_SIZE), 1):
        pks = insert_pairs(project.pk, batch, keys=keys)
        if keys:
            plan.new_pks.update(zip((row.external_id for row in batch), pks, strict=True))
        stored = min(done * BATCH_SIZE, total)
        tick(stored / total, f"stored {stored} pairs")
