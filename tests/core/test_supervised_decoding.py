"""Decoding that uses the neighbours and survives MT output: the second stage's richer
context (ranks, diagonals, jumps against the neighbours' links) tells apart cells that one
probability cannot, the sure threshold is tuned with the link threshold, and spelling
features keep misspelt words close."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.aligner.features import (
    CONTEXT_NAMES,
    FAR,
    RICH_CONTEXT_NAMES,
    SPELLING_NAMES,
    CellGrid,
    Symmetriser,
    context_features,
    spelling_features,
)
from alignment_core.aligner.link_classifiers import fit_classifier, probability
from alignment_core.aligner.link_config import LinkModelConfig
from alignment_core.aligner.link_inputs import best_sure_threshold


def rich(q: np.ndarray, shape: tuple[int, int]) -> dict[str, np.ndarray]:
    ctx = context_features(q.ravel(), CellGrid.of([shape]), rich=True)
    assert ctx.shape == (q.size, len(RICH_CONTEXT_NAMES))
    return {name: ctx[:, k].reshape(shape) for k, name in enumerate(RICH_CONTEXT_NAMES)}


def test_the_rich_context_adds_ranks_diagonals_and_jumps_to_the_basic_one():
    q = np.zeros((3, 4))
    q[0, 0], q[2, 2], q[1, 1], q[1, 3] = 0.9, 0.8, 0.3, 0.35
    c = rich(q, (3, 4))
    basic = context_features(q.ravel(), CellGrid.of([(3, 4)]))
    assert np.array_equal(
        basic, context_features(q.ravel(), CellGrid.of([(3, 4)]), True)[:, : len(CONTEXT_NAMES)]
    )
    assert c["stage1_row_rank"][1].tolist() == [2, 1, 3, 0]  # 0.35 first, then 0.3
    assert c["stage1_column_rank"][:, 1].tolist() == [1, 0, 2]
    # (1, 1) sits between two likely links on its diagonal
    assert c["stage1_diagonal_min"][1, 1] == pytest.approx(0.8)
    assert c["stage1_antidiagonal_min"][1, 1] == 0
    # row 1's neighbours link (0, 0) and (2, 2): in line, row 1 links column 1
    assert c["stage1_row_jump"][1].tolist() == [1, 0, 1, 2]
    # rows 0 and 2 have no neighbouring row with a likely link (row 1's best is 0.35)
    assert (c["stage1_row_jump"][[0, 2]] == FAR).all()
    assert c["stage1_column_jump"][:, 1].tolist() == [1, 0, 1]


def repeats(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """An n×n grid whose first stage links the diagonal (0.9) except row r, whose word
    recurs: two cells of row r, the diagonal one and another, get the same probability.
    Gold: the diagonal."""
    q = np.zeros((n, n))
    q[np.arange(n), np.arange(n)] = 0.9
    r = int(rng.integers(1, n - 1))
    other = int(rng.choice([j for j in range(n) if abs(j - r) > 1]))
    q[r, r] = q[r, other] = 0.5
    q[r - 1, other] = q[r + 1, other] = 0.1  # the repeat has weak neighbours of its own
    gold = np.eye(n, dtype=bool)
    return q, gold


def test_a_stage_reading_the_rich_context_tells_repeats_apart_where_one_probability_cannot():
    rng = np.random.default_rng(0)
    grids = [repeats(rng, int(rng.integers(6, 10))) for _ in range(160)]
    inputs, labels, ambiguous = [], [], []
    for q, gold in grids:
        ctx = context_features(q.ravel(), CellGrid.of([q.shape]), rich=True)
        inputs.append(ctx)
        labels.append(gold.ravel())
        ambiguous.append(q.ravel() == 0.5)
    train, test = slice(0, 120), slice(120, 160)
    cfg = LinkModelConfig(min_samples_leaf=5)

    def accuracy(columns: list[int]) -> float:
        X = np.vstack(inputs[train])[:, columns]
        model = fit_classifier(cfg, X, np.concatenate(labels[train]), sure_model=False)
        X_test = np.vstack(inputs[test])
        p = probability(model, X_test[:, columns])
        tie = np.concatenate(ambiguous[test])
        return float(np.mean((p[tie] >= 0.5) == np.concatenate(labels[test])[tie]))

    single_cell = accuracy([RICH_CONTEXT_NAMES.index("stage1")])
    stacked = accuracy(list(range(len(RICH_CONTEXT_NAMES))))
    assert single_cell <= 0.5 + 1e-9  # both repeats look the same to it
    assert stacked >= 0.95


def test_the_sure_threshold_labels_the_most_links_right():
    p_sure = np.array([0.2, 0.3, 0.4, 0.45, 0.7])
    sure = np.array([False, False, True, True, True])
    # any threshold in (0.3, 0.4] labels all five right; the one nearest ½ of those tried
    assert best_sure_threshold(p_sure, sure) == pytest.approx(0.4)
    assert best_sure_threshold(p_sure, ~sure) == pytest.approx(0.71)  # the higher, possible
    assert best_sure_threshold(np.zeros(0), np.zeros(0, dtype=bool)) == 0.5


def test_spelling_survives_misspellings_and_inflections():
    pairs = [(["recieved", "the", "colour", "Lettre"], ["received", "a", "color", "letter"])]
    grid = CellGrid.of([(4, 4)])
    out = spelling_features(grid, pairs)
    assert out.shape == (16, len(SPELLING_NAMES))
    dice = out[:, SPELLING_NAMES.index("trigram_dice")].reshape(4, 4)
    suffix = out[:, SPELLING_NAMES.index("suffix_ratio")].reshape(4, 4)
    # "#re", "rec", "ved", "ed#" shared of 8 trigrams each
    assert dice[0, 0] == pytest.approx(0.5)
    assert dice[0, 0] > 0.3 > max(dice[0, 1:].max(), dice[1:, 0].max())
    assert dice[2, 2] > 0.3 and dice[3, 3] > 0.3  # casefolded: "Lettre" / "letter"
    assert dice[1, 1] == 0  # "the" / "a": nothing in common
    assert suffix[0, 0] == pytest.approx(3 / 8)  # "ved" of "recieved"
    assert suffix[2, 2] == pytest.approx(1 / 5) and suffix[3, 3] == 0  # "r" of "color"
    # the same figures in another order of words (per word type, no process-dependent hash)
    again = spelling_features(CellGrid.of([(1, 1)]), [(["recieved"], ["received"])])
    assert again[0].tolist() == pytest.approx(out[0].tolist())


def test_the_built_in_model_keeps_the_context_it_was_built_with():
    from alignment_core.aligner.builtin import BUILTIN_LINK_CONFIG, load_builtin

    assert LinkModelConfig().context == "rich"
    assert BUILTIN_LINK_CONFIG.context == "basic" and not BUILTIN_LINK_CONFIG.spelling
    views = load_builtin().stages.views
    assert not views.rich_context
    assert views.context_names == Symmetriser(CONTEXT_NAMES).names
