"""A seed model computes the inputs that depend on a pair alone (the HMM's cell features, the
outside resources' columns) once per pair and reads them back (``pair_inputs``): what it reads
back is what it would compute, whichever pairs it is asked about and in whatever order, and a
pair's rows do not depend on the pairs computed beside it."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig
from alignment_core.aligner.link_model import (
    LinkModelConfig,
    installed_resources,
    train_seed_model,
)
from alignment_core.aligner.pair_inputs import PairInputs
from alignment_core.alignment import Alignment
from tests.core.test_builtin_model import ENGLISH

CFG = AlignerConfig(threads=1)
LEADS = ("", "yesterday", "i think", "as usual")


def english_corpus():
    """32 English paraphrase pairs (8 sentences, each with 4 openings), gold linking the
    words spelled alike (and the openings)."""
    pairs, gold = [], []
    for lead in LEADS:
        for s, t in ENGLISH:
            source, target = (lead + " " + s).split(), (lead + " " + t).split()
            links = [(i, j) for i, a in enumerate(source) for j, b in enumerate(target) if a == b]
            pairs.append((source, target))
            gold.append(Alignment.from_sets(links, []))
    return pairs, gold


@pytest.fixture(scope="module")
def trained():
    pairs, gold = english_corpus()
    model = train_seed_model(
        pairs,
        {n: gold[n] for n in range(24)},
        config=CFG,
        resources=installed_resources(),
        link_config=LinkModelConfig(max_iter=10, first_stage_iter=5, min_gold_pairs=20),
    )
    assert model.kind == "supervised"
    return pairs, model


def rows_of(pair, width: int = 3) -> np.ndarray:
    """Rows that say which pair and cell they belong to."""
    (s, t) = pair
    cells = np.arange(len(s) * len(t), dtype=np.float32)
    return np.column_stack([cells + 100 * len(s) + len(t)] * width)


def test_rows_are_read_back_for_kept_pairs_and_computed_for_the_others():
    pairs = [(["a"] * n, ["b"] * (n + 1)) for n in range(1, 6)]
    asked = []

    def compute(chosen):
        asked.append(list(chosen))
        return np.concatenate([rows_of(p) for p in chosen])

    inputs = PairInputs(budget=1000)
    inputs.keep("x", pairs[1:3], compute(pairs[1:3]))
    asked.clear()
    order = [pairs[4], pairs[2], pairs[0], pairs[1]]
    assert np.array_equal(inputs.rows("x", order, compute), compute(order))
    assert asked[0] == [pairs[4], pairs[0]]  # only the pairs not kept were computed
    asked.clear()
    assert np.array_equal(inputs.rows("x", order, compute), compute(order))
    assert asked == [order]  # (the last call here is the comparison's own)
    assert inputs.cells("x") == sum(len(s) * len(t) for s, t in pairs[:3] + pairs[4:])


def test_no_more_cells_are_kept_than_the_budget():
    pairs = [(["a"] * 3, ["b"] * 3), (["c"] * 2, ["d"] * 2), (["e"], ["f"])]
    inputs = PairInputs(budget=10)
    inputs.keep("x", pairs, np.concatenate([rows_of(p) for p in pairs]))
    assert inputs.cells("x") == 10 and inputs.room("x") == 0  # 9 + 1: the 2×2 pair did not fit
    computed = []
    got = inputs.rows("x", pairs, lambda c: computed.extend(c) or np.concatenate(
        [rows_of(p) for p in c]))  # fmt: skip
    assert computed == [pairs[1]]
    assert np.array_equal(got, np.concatenate([rows_of(p) for p in pairs]))
    with pytest.raises(ValueError, match="rows for"):
        inputs.keep("y", pairs, np.zeros((3, 1)))


def test_a_trained_model_reads_back_what_it_would_compute(trained):
    pairs, model = trained
    kept = model.inputs
    # the gold pairs' rows were kept in training, the others' as it aligned them
    every = sum(len(s) * len(t) for s, t in pairs)
    assert kept.cells("cells") == kept.cells("knowledge") == every
    asked = pairs[30:] + [(["a", "new", "pair"], ["one", "not", "seen"])] + pairs[::-3]
    X_kept, grid_kept = model.cell_inputs(asked)
    model.inputs = PairInputs(budget=0)  # nothing kept: every row computed afresh
    try:
        X_new, grid_new = model.cell_inputs(asked)
        fresh = model.predict(asked)
    finally:
        model.inputs = kept
    assert np.array_equal(grid_kept.offsets, grid_new.offsets)
    # (an unknown word's gold lexicon rates are NaN: missing, to the trees)
    assert X_kept.dtype == X_new.dtype and np.array_equal(X_kept, X_new, equal_nan=True)
    seeds, matrices = model.predict(asked)
    assert seeds == fresh[0]
    assert all(
        np.array_equal(a, b, equal_nan=True) for a, b in zip(matrices, fresh[1], strict=True)
    )


def test_a_pairs_rows_do_not_depend_on_the_pairs_beside_it(trained):
    pairs, model = trained
    for compute in (model.hmm_cells, model.knowledge):
        together = compute(pairs)
        alone = np.concatenate([compute([p]) for p in pairs])
        assert together.shape[1] > 0 and np.array_equal(together, alone, equal_nan=True)
