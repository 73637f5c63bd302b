"""Giving work out (issue 8 §2): preview and apply an assignment plan, reassign, withdraw.

The pure planner (``assignment_plan``) decides; this module reads what it needs, maps its plan
onto the ORM with ``bulk_create`` and records an ``AssignmentPlan`` (params and per-person
summary). Nothing is deleted: unassigning sets ``withdrawn_at`` (the annotation and its
revisions stay, and a later plan or reassignment brings the same row back).

Open pairs: non-trial pairs with no active (not withdrawn) assignment — new pairs, or pairs
whose work was withdrawn. With ``rebalance``, pairs whose active assignments are all unstarted
are open too, so people added later take a share of the work nobody has begun. Started work
(in progress or submitted) is never moved by a plan.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotator.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    AssignmentPlan,
    Membership,
    Project,
    SeedAlignment,
    SentencePair,
)
from annotator.projects.services.assignment_plan import (
    NO_SUBCORPUS,
    PairToPlan,
    Plan,
    PlanError,
    plan_assignment,
)
from annotator.projects.services.member_rules import NO_SUCH_ANNOTATOR

__all__ = [
    "AssignmentError",
    "AssignmentPreview",
    "AssignmentRequest",
    "PlanError",
    "apply_assignment",
    "preview_assignment",
    "reassign",
    "restore_assignment",
    "withdraw_assignment",
    "withdraw_unstarted",
]


class AssignmentError(ValueError):
    """A reassignment or withdrawal that cannot be done (the message says why)."""


@dataclass(frozen=True)
class AssignmentRequest:
    annotator_ids: tuple[int, ...]
    share: float
    random_seed: int
    subcorpora: tuple[str, ...] | None = None  # names ("" = no subcorpus); None = all
    include_trial: bool = True
    rebalance: bool = False

    def params(self) -> dict[str, Any]:
        return {
            "annotators": sorted(self.annotator_ids),
            "share": self.share,
            "random_seed": self.random_seed,
            "subcorpora": None if self.subcorpora is None else sorted(self.subcorpora),
            "include_trial": self.include_trial,
            "rebalance": self.rebalance,
        }


@dataclass
class Workload:
    """One person's work before and after the plan. ``existing`` counts every active pair the
    person holds, trial pairs included (as the Members and Progress pages count them; issue 31,
    defect 3); ``existing_trial`` says how many of those are trial pairs. ``new``, ``first``,
    ``second``, ``single`` and ``by_subcorpus`` are the plan's non-trial pairs, ``trial`` the
    plan's trial pairs; ``total`` is everything the person holds after the plan."""

    user: Any
    existing: int = 0
    existing_trial: int = 0
    withdrawn: int = 0  # unstarted assignments a rebalance takes away
    new: int = 0
    first: int = 0
    second: int = 0
    single: int = 0
    trial: int = 0
    by_subcorpus: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.existing - self.withdrawn + self.new + self.trial


@dataclass
class AssignmentPreview:
    request: AssignmentRequest
    plan: Plan
    workloads: list[Workload]
    subcorpora: list[str]
    open_pairs: int
    to_withdraw: list[int]  # assignment ids a rebalance withdraws
    fingerprint: str  # of the plan, so "apply" can refuse when the project changed since


def preview_assignment(*, project: Project, request: AssignmentRequest) -> AssignmentPreview:
    """What ``apply_assignment`` would do, without writing anything."""
    users = _annotators(project, request.annotator_ids)
    active = list(
        Assignment.objects.filter(pair__project=project, withdrawn_at__isnull=True).values(
            "id", "pair_id", "annotator_id", "status", "pair__is_trial"
        )
    )
    by_pair: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for a in active:
        by_pair[a["pair_id"]].append(a)
    to_plan, open_ids = _pairs_to_plan(project, request, by_pair)
    to_withdraw = sorted(a["id"] for pid in open_ids for a in by_pair.get(pid, []))
    load = Counter(
        a["annotator_id"]
        for a in active
        if not a["pair__is_trial"] and a["pair_id"] not in open_ids
    )
    trial_done: dict[int, set[int]] = defaultdict(set)
    for a in active:
        if a["pair__is_trial"]:
            trial_done[a["pair_id"]].add(a["annotator_id"])
    plan = plan_assignment(
        pairs=to_plan,
        annotators=[u.pk for u in users],
        share=request.share,
        random_seed=request.random_seed,
        include_trial=request.include_trial,
        existing_load=load,
        trial_done=trial_done,
    )
    workloads = _workloads(users, active, plan, set(to_withdraw))
    subs = sorted({p.subcorpus for p in to_plan if not p.is_trial})
    digest = _fingerprint(plan, to_withdraw)
    return AssignmentPreview(request, plan, workloads, subs, len(open_ids), to_withdraw, digest)


def _pairs_to_plan(
    project: Project, request: AssignmentRequest, by_pair: dict[int, list[dict[str, Any]]]
) -> tuple[list[PairToPlan], set[int]]:
    """The pairs the plan covers (the trial set as a whole when asked; else the requested
    subcorpora's open pairs) and the ids of the open ones (nobody assigned, or, when
    rebalancing, nobody started)."""
    wanted = None if request.subcorpora is None else set(request.subcorpora)
    pairs = _candidate_pairs(project, wanted, request.include_trial)

    def is_open(pair_id: int) -> bool:
        rows = by_pair.get(pair_id, [])
        if not rows:
            return True
        return request.rebalance and all(r["status"] == Assignment.Status.ASSIGNED for r in rows)

    to_plan, open_ids = [], set()
    for p in pairs:
        sub = p["subcorpus__name"] or NO_SUBCORPUS
        if p["is_trial"]:  # the trial set is chosen as a whole, whatever its subcorpus
            if request.include_trial:
                to_plan.append(PairToPlan(p["id"], sub, True))
        elif wanted is not None and sub not in wanted:
            continue
        elif is_open(p["id"]):
            to_plan.append(PairToPlan(p["id"], sub))
            open_ids.add(p["id"])
    return to_plan, open_ids


def _candidate_pairs(project: Project, wanted: set[str] | None, include_trial: bool) -> Iterator:
    """The pairs of the project a plan may cover, in the project's order: of the ``wanted``
    subcorpora (all when None) and the trial set when included. Only those are read: a plan
    for a 1,000-pair sample of a million-pair project reads 1,000 pairs, not a million."""
    pairs = SentencePair.objects.filter(project=project)
    if wanted is not None:
        named = Q(subcorpus__name__in=wanted - {NO_SUBCORPUS})
        if NO_SUBCORPUS in wanted:
            named |= Q(subcorpus__isnull=True)
        pairs = pairs.filter(Q(is_trial=False) & named | Q(is_trial=True))
    if not include_trial:
        pairs = pairs.filter(is_trial=False)
    return pairs.values("id", "is_trial", "subcorpus__name").iterator(chunk_size=10_000)


def _fingerprint(plan: Any, to_withdraw: list[int]) -> str:
    """A short digest of what a plan writes: applying refuses a plan that changed since."""
    rows = sorted((a.pair_id, a.annotator_id, a.slot or 0) for a in plan.assignments)
    return hashlib.sha256(json.dumps([rows, to_withdraw]).encode()).hexdigest()[:16]


def apply_assignment(
    *, project: Project, request: AssignmentRequest, created_by: Any, expect: str | None = None
) -> AssignmentPlan:
    """Write the plan (``expect``: the previewed fingerprint; refused if the plan changed)."""
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()  # one plan at a time
        preview = preview_assignment(project=project, request=request)
        if expect is not None and expect != preview.fingerprint:
            raise AssignmentError(
                "the project changed since the preview (new work or new assignments): "
                "preview again before applying"
            )
        record = AssignmentPlan.objects.create(
            project=project,
            created_by=created_by,
            params=request.params(),
            summary=_plan_summary(preview),
        )
        _write_plan(preview, record)
    return record


def _plan_summary(preview: AssignmentPreview) -> dict[str, Any]:
    """What a plan did, kept with it: each person's workload and the totals."""
    return {
        "per_person": {
            w.user.get_username(): {
                "new": w.new,
                "first": w.first,
                "second": w.second,
                "single": w.single,
                "trial": w.trial,
                "withdrawn": w.withdrawn,
                "total": w.total,
                "by_subcorpus": w.by_subcorpus,
            }
            for w in preview.workloads
        },
        "pairs_planned": preview.plan.pairs_planned,
        "double_pairs": preview.plan.double_pairs,
        "assignments_created": len(preview.plan.assignments),
        "assignments_withdrawn": len(preview.to_withdraw),
    }


def _write_plan(preview: AssignmentPreview, record: AssignmentPlan) -> None:
    """Apply a previewed plan: the same person on the same pair again gets the row back (its
    work kept), withdrawn rows are marked, the rest are new assignments on the latest seeds."""
    now = timezone.now()
    planned = {(a.pair_id, a.annotator_id): a for a in preview.plan.assignments}
    rows = Assignment.objects.select_for_update().filter(
        pair_id__in={p for p, _ in planned} | _pair_ids(preview.to_withdraw)
    )
    kept, withdrawn = [], []
    withdraw_ids = set(preview.to_withdraw)
    for row in rows:
        key = (row.pair_id, row.annotator_id)
        if key in planned:  # the same person again (a rebalance, or withdrawn earlier)
            target = planned.pop(key)
            row.withdrawn_at, row.slot, row.plan = None, target.slot, record
            kept.append(row)
        elif row.pk in withdraw_ids:
            row.withdrawn_at = now
            withdrawn.append(row)
    Assignment.objects.bulk_update(kept, ["withdrawn_at", "slot", "plan"])
    Assignment.objects.bulk_update(withdrawn, ["withdrawn_at"])
    seeds = latest_seeds(pair_ids=[a.pair_id for a in planned.values()])
    Assignment.objects.bulk_create(
        [
            Assignment(
                pair_id=a.pair_id,
                annotator_id=a.annotator_id,
                slot=a.slot,
                plan=record,
                seed_id=seeds.get(a.pair_id),
            )
            for a in planned.values()
        ],
        batch_size=2000,
    )


def latest_seeds(*, pair_ids: list[int]) -> dict[int, int]:
    """pair id → id of its newest SeedAlignment (the one a new annotator starts from)."""
    out: dict[int, int] = {}
    rows = SeedAlignment.objects.filter(pair_id__in=pair_ids).order_by(
        "pair_id", "-aligner_run__created_at", "-id"
    )
    for pair_id, seed_id in rows.values_list("pair_id", "id"):
        out.setdefault(pair_id, seed_id)
    return out


def withdraw_assignment(*, assignment: Assignment) -> Assignment:
    """Unassign: hidden from the annotator's queue; annotation and revisions stay."""
    if assignment.withdrawn_at is None:
        assignment.withdrawn_at = timezone.now()
        assignment.save(update_fields=["withdrawn_at"])
    return assignment


def restore_assignment(*, assignment: Assignment) -> Assignment:
    """Undo a withdrawal (refused if the slot went to someone else meanwhile)."""
    if assignment.withdrawn_at is None:
        return assignment
    same_slot = Assignment.objects.filter(
        pair_id=assignment.pair_id, withdrawn_at__isnull=True, pair__is_trial=False
    ).exclude(pk=assignment.pk)
    if same_slot.filter(slot=assignment.slot).exists() if assignment.slot else same_slot.exists():
        raise AssignmentError("another annotator holds this pair (or its slot) now")
    assignment.withdrawn_at = None
    assignment.save(update_fields=["withdrawn_at"])
    return assignment


def reassign(*, assignment: Assignment, to_user: Any) -> Assignment:
    """Give ``assignment``'s pair (and slot) to ``to_user``; the old one is withdrawn, its work
    kept. The new annotator starts from the seed (or their own earlier work on the pair)."""
    project = assignment.pair.project
    if not Membership.objects.filter(
        project=project, user=to_user, role=Membership.Role.ANNOTATOR
    ).exists():
        # never a name: the user may belong to another project (member_rules.py)
        raise AssignmentError(NO_SUCH_ANNOTATOR)
    if to_user.pk == assignment.annotator_id:
        raise AssignmentError("the pair is already assigned to this annotator")
    with transaction.atomic():
        existing = Assignment.objects.select_for_update().filter(
            pair_id=assignment.pair_id, annotator=to_user
        )
        other = existing.first()
        if other is not None and other.withdrawn_at is None:
            raise AssignmentError(f"{to_user.get_username()} already has this pair")
        withdraw_assignment(assignment=assignment)
        if other is not None:
            other.withdrawn_at, other.slot, other.plan = None, assignment.slot, assignment.plan
            other.save(update_fields=["withdrawn_at", "slot", "plan"])
            return other
        return Assignment.objects.create(
            pair_id=assignment.pair_id,
            annotator=to_user,
            slot=assignment.slot,
            plan=assignment.plan,
            seed_id=latest_seeds(pair_ids=[assignment.pair_id]).get(assignment.pair_id),
        )


def withdraw_unstarted(*, project: Project, user: Any) -> int:
    """Withdraw ``user``'s unstarted assignments in ``project`` (a member leaving)."""
    return Assignment.objects.filter(
        pair__project=project,
        annotator=user,
        withdrawn_at__isnull=True,
        status=Assignment.Status.ASSIGNED,
        annotation__isnull=True,
    ).update(withdrawn_at=timezone.now())


def _annotators(project: Project, ids: tuple[int, ...]) -> list[Any]:
    members = {
        m.user_id: m.user
        for m in Membership.objects.filter(
            project=project, role=Membership.Role.ANNOTATOR, user_id__in=ids
        ).select_related("user")
    }
    missing = sorted(set(ids) - set(members))
    if missing:
        names = get_user_model().objects.filter(pk__in=missing).values_list("username", flat=True)
        raise PlanError(
            "not annotators of this project: " + ", ".join(sorted(names) or map(str, missing))
        )
    return sorted(members.values(), key=lambda u: u.get_username())


def _pair_ids(assignment_ids: list[int]) -> set[int]:
    return set(Assignment.objects.filter(pk__in=assignment_ids).values_list("pair_id", flat=True))


def _workloads(
    users: list[Any], active: list[dict[str, Any]], plan: Plan, withdrawn: set[int]
) -> list[Workload]:
    rows = {u.pk: Workload(user=u) for u in users}
    for a in active:
        row = rows.get(a["annotator_id"])
        if row is not None:
            row.existing += 1
            row.existing_trial += bool(a["pair__is_trial"])
            row.withdrawn += a["id"] in withdrawn
    for a in plan.assignments:
        row = rows[a.annotator_id]
        if a.is_trial:
            row.trial += 1
            continue
        row.new += 1
        if a.slot == 1:
            row.first += 1
        elif a.slot == 2:
            row.second += 1
        else:
            row.single += 1
        row.by_subcorpus[a.subcorpus] = row.by_subcorpus.get(a.subcorpus, 0) + 1
    return list(rows.values())


def reopen_assignment(*, assignment: Assignment, by: Any) -> Assignment:
    """A lead sends a submitted pair back to its annotator: status in_progress, with a
    ``reopen`` revision of the same links (nothing lost; the gold stays until changed)."""
    if assignment.status != Assignment.Status.SUBMITTED:
        raise AssignmentError("only a submitted pair can be reopened")
    with transaction.atomic():
        annotation = Annotation.objects.select_for_update().filter(assignment=assignment).first()
        if annotation is not None:
            annotation.version += 1
            annotation.save(update_fields=["version", "updated_at"])
            last = annotation.revisions.order_by("-version").first()
            AnnotationRevision.objects.create(
                annotation=annotation,
                version=annotation.version,
                kind=AnnotationRevision.Kind.REOPEN,
                links=annotation.links,
                edits_from_seed=last.edits_from_seed if last else None,
                author=by,
                elapsed_seconds=0.0,
            )
        assignment.status = Assignment.Status.IN_PROGRESS
        assignment.submitted_at = None
        assignment.last_activity_at = timezone.now()
        assignment.save(update_fields=["status", "submitted_at", "last_activity_at"])
    return assignment
