"""Properties of the pure assignment planner (issue 8 §2), over random corpora and teams."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.projects.services.assignment_plan import PairToPlan, PlanError, plan_assignment


@st.composite
def requests(draw):
    sizes = draw(st.lists(st.integers(0, 25), min_size=1, max_size=4))
    n_trial = draw(st.integers(0, 4))
    pairs, next_id = [], 1
    for k, size in enumerate(sizes):
        for _ in range(size):
            pairs.append(PairToPlan(next_id, f"sub{k}"))
            next_id += 1
    for _ in range(n_trial):
        pairs.append(PairToPlan(next_id, "trial", is_trial=True))
        next_id += 1
    people = draw(st.lists(st.integers(1, 50), min_size=2, max_size=6, unique=True))
    share = draw(st.floats(0, 1))
    seed = draw(st.integers(0, 2**32 - 1))
    return pairs, people, share, seed


def counts(plan):
    per_pair = defaultdict(list)
    for a in plan.assignments:
        per_pair[a.pair_id].append(a)
    return per_pair


@settings(max_examples=150, deadline=None)
@given(requests())
def test_every_pair_covered_share_kept_nobody_twice(req):
    pairs, people, share, seed = req
    plan = plan_assignment(pairs=pairs, annotators=people, share=share, random_seed=seed)
    per_pair = counts(plan)
    work = [p for p in pairs if not p.is_trial]
    for p in work:
        got = per_pair[p.pair_id]
        assert 1 <= len(got) <= 2
        if len(got) == 2:  # the two annotators are different people, one first, one second
            assert {a.slot for a in got} == {1, 2}
            assert got[0].annotator_id != got[1].annotator_id
        else:
            assert got[0].slot is None
    doubles = sum(1 for p in work if len(per_pair[p.pair_id]) == 2)
    assert abs(doubles - share * len(work)) <= 1
    pairs_of = Counter((a.pair_id, a.annotator_id) for a in plan.assignments)
    assert max(pairs_of.values(), default=1) == 1
    for p in pairs:
        if p.is_trial:  # the trial set goes to everyone, outside the double/single scheme
            assert sorted(a.annotator_id for a in per_pair[p.pair_id]) == sorted(people)


@settings(max_examples=150, deadline=None)
@given(requests())
def test_balanced_within_one_pair_per_person_and_per_subcorpus(req):
    pairs, people, share, seed = req
    plan = plan_assignment(pairs=pairs, annotators=people, share=share, random_seed=seed)
    overall = Counter({p: 0 for p in people})
    by_sub = defaultdict(lambda: Counter({p: 0 for p in people}))
    for a in plan.assignments:
        if not a.is_trial:
            overall[a.annotator_id] += 1
            by_sub[a.subcorpus][a.annotator_id] += 1
    assert max(overall.values()) - min(overall.values()) <= 1
    for sub, c in by_sub.items():
        assert max(c.values()) - min(c.values()) <= 1, sub


@settings(max_examples=50, deadline=None)
@given(requests())
def test_same_seed_same_plan_and_the_seed_matters(req):
    pairs, people, share, seed = req
    one = plan_assignment(pairs=pairs, annotators=people, share=share, random_seed=seed)
    two = plan_assignment(pairs=list(reversed(pairs)), annotators=people[::-1], share=share,
                          random_seed=seed)  # fmt: skip
    assert sorted(one.assignments, key=repr) == sorted(two.assignments, key=repr)


def test_different_seeds_give_different_plans():
    pairs = [PairToPlan(k, "news") for k in range(60)]
    plans = {
        tuple(sorted((a.pair_id, a.annotator_id, a.slot) for a in plan_assignment(
            pairs=pairs, annotators=[1, 2, 3], share=1 / 3, random_seed=s).assignments))
        for s in range(5)
    }  # fmt: skip
    assert len(plans) == 5


def test_people_added_later_catch_up_on_new_pairs():
    pairs = [PairToPlan(k, "news") for k in range(30)]
    plan = plan_assignment(
        pairs=pairs, annotators=[1, 2, 3], share=0, random_seed=1, existing_load={1: 10, 2: 10}
    )
    got = Counter(a.annotator_id for a in plan.assignments)
    totals = [got[1] + 10, got[2] + 10, got[3]]
    assert sum(got.values()) == 30 and max(totals) - min(totals) <= 1
    assert got[3] >= 16  # the newcomer took the first ten, then a third of the rest


def test_trial_pairs_only_go_to_people_who_lack_them():
    pairs = [PairToPlan(1, is_trial=True), PairToPlan(2, is_trial=True)]
    plan = plan_assignment(
        pairs=pairs, annotators=[7, 8], share=0.5, random_seed=0, trial_done={1: {7}}
    )
    assert sorted((a.pair_id, a.annotator_id) for a in plan.assignments) == [(1, 8), (2, 7), (2, 8)]
    none = plan_assignment(pairs=pairs, annotators=[7, 8], share=0.5, random_seed=0,
                           include_trial=False)  # fmt: skip
    assert none.assignments == []


@pytest.mark.parametrize(
    ("people", "share", "message"),
    [
        ([], 0.3, "at least one annotator"),
        ([1], 0.5, "at least two annotators"),
        ([1, 2], 1.5, "within 0..1"),
    ],
)
def test_impossible_requests_are_refused_with_a_reason(people, share, message):
    with pytest.raises(PlanError, match=message):
        plan_assignment(
            pairs=[PairToPlan(1), PairToPlan(2)], annotators=people, share=share, random_seed=0
        )


def test_one_annotator_without_doubles_gets_everything():
    plan = plan_assignment(pairs=[PairToPlan(1), PairToPlan(2)], annotators=[5], share=0,
                           random_seed=0)  # fmt: skip
    assert sorted((a.pair_id, a.annotator_id, a.slot) for a in plan.assignments) == [
        (1, 5, None), (2, 5, None)
    ]  # fmt: skip
