"""Who annotates which pair: a pure planner (no ORM), deterministic for a random seed.

SPEC §8: every non-trial pair goes to one annotator, a chosen share of them to two (the paper:
one third), balanced per subcorpus and per person; the trial set goes to everyone.

How: per subcorpus, round(share·n) pairs (largest-remainder split of the total over the
subcorpora) are drawn at random to be doubly annotated. The subcorpus's slots (n + doubles)
are dealt one at a time to the person with the fewest pairs overall (existing work included),
ties to the one with the fewest in this subcorpus, then at random — so a fresh plan is within
one pair per person both per subcorpus and overall, and people added later catch up. Each
double then takes the two people with most slots left (slot 1, "first" = report side A, drawn
at random between them), and the singles fill what is left.

Pairs that already have active work are never touched here (the service decides which pairs
are open); trial pairs only gain the people who lack them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

NO_SUBCORPUS = ""


class PlanError(ValueError):
    """The request cannot be planned (the message says why, in the lead's words)."""


@dataclass(frozen=True)
class PairToPlan:
    pair_id: int
    subcorpus: str = NO_SUBCORPUS
    is_trial: bool = False


@dataclass(frozen=True)
class PlannedAssignment:
    pair_id: int
    annotator_id: int
    slot: int | None  # 1 first / 2 second of a doubly annotated pair; None single or trial
    subcorpus: str = NO_SUBCORPUS
    is_trial: bool = False


@dataclass
class Plan:
    assignments: list[PlannedAssignment]
    pairs_planned: int  # non-trial pairs given out by this plan
    double_pairs: int
    share_asked: float
    random_seed: int
    warnings: list[str] = field(default_factory=list)

    @property
    def doubles_asked(self) -> float:
        return self.share_asked * self.pairs_planned

    def summary(self) -> dict[str, dict[str, int]]:
        """Per annotator id (as str, for JSON): total, single, first, second, trial, and one
        ``sub:<name>`` count per subcorpus (non-trial)."""
        out: dict[str, dict[str, int]] = defaultdict(Counter)  # type: ignore[arg-type]
        for a in self.assignments:
            row = out[str(a.annotator_id)]
            if a.is_trial:
                row["trial"] += 1
                continue
            row["total"] += 1
            row[{None: "single", 1: "first", 2: "second"}[a.slot]] += 1
            row[f"sub:{a.subcorpus}"] += 1
        return {k: dict(v) for k, v in out.items()}


def plan_assignment(
    *,
    pairs: Sequence[PairToPlan],
    annotators: Sequence[int],
    share: float,
    random_seed: int,
    include_trial: bool = True,
    existing_load: Mapping[int, int] | None = None,
    trial_done: Mapping[int, set[int]] | None = None,
) -> Plan:
    """Plan the given OPEN pairs (none of them has active work) for ``annotators``.

    ``existing_load``: non-trial pairs each annotator already holds (new people catch up).
    ``trial_done``: trial pair id → annotator ids who already have it.
    """
    if not 0.0 <= share <= 1.0:
        raise PlanError(f"the share of doubly annotated pairs must be within 0..1, got {share}")
    people = sorted(dict.fromkeys(annotators))
    if not people:
        raise PlanError("choose at least one annotator")
    rng = np.random.default_rng(random_seed)
    load = Counter({p: int((existing_load or {}).get(p, 0)) for p in people})
    work = [p for p in pairs if not p.is_trial]
    by_sub: dict[str, list[PairToPlan]] = defaultdict(list)
    for p in sorted(work, key=lambda p: p.pair_id):
        by_sub[p.subcorpus].append(p)

    total_doubles = int(np.floor(share * len(work) + 0.5))  # round half up, not to even
    if total_doubles and len(people) < 2:
        raise PlanError(
            "doubly annotated pairs need at least two annotators: choose another annotator "
            "or set the share to 0"
        )
    doubles_of = _split(total_doubles, {s: len(ps) for s, ps in by_sub.items()})

    planned: list[PlannedAssignment] = []
    for sub in sorted(by_sub):
        sub_pairs = by_sub[sub]
        order = rng.permutation(len(sub_pairs))
        shuffled = [sub_pairs[k] for k in order]
        n_double = doubles_of[sub]
        doubles, singles = shuffled[:n_double], shuffled[n_double:]
        quota = _deal(len(sub_pairs) + n_double, len(sub_pairs), people, load, rng)
        planned += _fill(doubles, singles, quota, rng, sub)

    if include_trial:
        done = trial_done or {}
        for p in sorted((p for p in pairs if p.is_trial), key=lambda p: p.pair_id):
            for person in people:
                if person not in done.get(p.pair_id, set()):
                    planned.append(PlannedAssignment(p.pair_id, person, None, p.subcorpus, True))

    return Plan(
        assignments=planned,
        pairs_planned=len(work),
        double_pairs=total_doubles,
        share_asked=share,
        random_seed=random_seed,
    )


def _split(total: int, sizes: Mapping[str, int]) -> dict[str, int]:
    """``total`` shared over subcorpora in proportion to their sizes (largest remainder;
    ties by name, so the split does not depend on the random seed)."""
    n = sum(sizes.values())
    if n == 0:
        return {s: 0 for s in sizes}
    exact = {s: total * size / n for s, size in sizes.items()}
    out = {s: int(np.floor(v)) for s, v in exact.items()}
    rest = total - sum(out.values())
    for s in sorted(sizes, key=lambda s: (-(exact[s] - out[s]), s))[:rest]:
        out[s] += 1
    return out


def _deal(
    slots: int, cap: int, people: list[int], load: Counter, rng: np.random.Generator
) -> dict[int, int]:
    """How many of a subcorpus's ``slots`` each person gets (at most ``cap``, one per pair);
    updates ``load``. Fewest overall first, then fewest here, then at random."""
    tiebreak = dict(zip(people, rng.permutation(len(people)).tolist(), strict=True))
    here = Counter({p: 0 for p in people})
    for _ in range(slots):
        open_people = [p for p in people if here[p] < cap]
        if not open_people:  # cannot happen: slots <= 2 * cap and two people at least
            raise PlanError("not enough annotators for this many doubly annotated pairs")
        best = min(open_people, key=lambda p: (load[p], here[p], tiebreak[p]))
        here[best] += 1
        load[best] += 1
    return dict(here)


def _fill(
    doubles: list[PairToPlan],
    singles: list[PairToPlan],
    quota: dict[int, int],
    rng: np.random.Generator,
    sub: str,
) -> list[PlannedAssignment]:
    left = dict(quota)
    out: list[PlannedAssignment] = []
    for pair in doubles:
        noise = dict(zip(left, rng.random(len(left)).tolist(), strict=True))
        two = sorted(left, key=lambda p: (-left[p], noise[p]))[:2]
        if len(two) < 2 or left[two[1]] <= 0:
            raise PlanError("not enough annotators for this many doubly annotated pairs")
        if rng.random() < 0.5:
            two.reverse()
        for slot, person in enumerate(two, start=1):
            left[person] -= 1
            out.append(PlannedAssignment(pair.pair_id, person, slot, sub))
    pool = [p for p in sorted(left) for _ in range(left[p])]
    pool = [pool[k] for k in rng.permutation(len(pool))]
    for pair, person in zip(singles, pool, strict=True):
        out.append(PlannedAssignment(pair.pair_id, person, None, sub))
    return out
