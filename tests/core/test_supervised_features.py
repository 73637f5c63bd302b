"""The supervised link model's cell features and decoding, on small hand-made pairs."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.aligner.features import (
    CONTEXT_NAMES,
    FEATURE_NAMES,
    LEXICON_NAMES,
    CellGrid,
    Symmetriser,
    TokenStats,
    _levenshtein,
    candidate_cells,
    cell_features,
    context_features,
)
from alignment_core.aligner.link_model import (
    GOLD_HMM_NAMES,
    best_threshold,
    cell_labels,
    link_figures,
    uncertainty,
)
from alignment_core.aligner.wordnet import WORDNET_NAMES
from alignment_core.alignment import Alignment

F = {name: k for k, name in enumerate(FEATURE_NAMES)}

# pair 0: 3×4, pair 1: 2×2
PAIRS = [
    (["The", "colour", "."], ["the", "color", "was", "."]),
    (["big", "dog"], ["large", "hound"]),
]


def features_of(pairs, forward=None, backward=None, fstates=None, bstates=None):
    shapes = [(len(s), len(t)) for s, t in pairs]
    forward = forward or [np.zeros(shape) for shape in shapes]
    backward = backward or [np.zeros(shape) for shape in shapes]
    fstates = fstates or [np.full(m, -1) for _, m in shapes]
    bstates = bstates or [np.full(n, -1) for n, _ in shapes]
    return cell_features(
        pairs,
        forward=forward,
        backward=backward,
        forward_states=fstates,
        backward_states=bstates,
        stats=TokenStats(pairs),
    )


def cell(X, grid, pair, i, j, name):
    m = len(PAIRS[pair][1])
    return float(X[int(grid.offsets[pair]) + i * m + j, F[name]])


def test_grid_lays_cells_out_pair_after_pair_row_major():
    grid = CellGrid.of([(3, 4), (2, 2)])
    assert len(grid) == 16 and grid.offsets.tolist() == [0, 12, 16]
    assert (grid.pair[11], grid.i[11], grid.j[11]) == (0, 2, 3)
    assert (grid.pair[13], grid.i[13], grid.j[13]) == (1, 0, 1)
    # global token numbers: pair 1's source words follow pair 0's three
    assert grid.row[13] == 3 and grid.col[13] == 5
    values = np.arange(16, dtype=float)
    right = grid.shift(values, 0, 1, fill=-1)
    assert right[0] == 1 and right[3] == -1  # (0,3) has no right neighbour
    assert grid.shift(values, 1, 1, fill=-1)[12] == 15  # pair 1: (0,0) → (1,1)
    assert grid.shift(values, 1, 0, fill=-1)[8] == -1  # row 2 is the last of pair 0


def test_identity_spelling_position_and_punctuation():
    X, grid = features_of(PAIRS)
    assert X.shape == (16, len(FEATURE_NAMES)) and X.dtype == np.float32
    # "The" / "the": identical once casefolded only
    assert cell(X, grid, 0, 0, 0, "identical") == 0
    assert cell(X, grid, 0, 0, 0, "identical_casefold") == 1
    assert cell(X, grid, 0, 2, 3, "identical") == 1  # "." / "."
    # colour / color: prefix "colo" (4 of the shorter 5), one deletion in 6 letters
    assert cell(X, grid, 0, 1, 1, "prefix_chars") == 4
    assert cell(X, grid, 0, 1, 1, "prefix_ratio") == pytest.approx(4 / 5)
    assert cell(X, grid, 0, 1, 1, "edit_similarity") == pytest.approx(1 - 1 / 6)
    assert cell(X, grid, 1, 0, 0, "edit_similarity") < 0.5  # big / large
    assert cell(X, grid, 0, 2, 3, "source_punct") == 1 == cell(X, grid, 0, 2, 3, "target_punct")
    assert cell(X, grid, 0, 1, 1, "source_punct") == 0
    # relative positions: (i + ½)/N − (j + ½)/M
    assert cell(X, grid, 0, 0, 3, "position_diff") == pytest.approx(0.5 / 3 - 3.5 / 4)
    assert cell(X, grid, 0, 0, 3, "position_diff_abs") == pytest.approx(3.5 / 4 - 0.5 / 3)
    # "the" occurs twice in the corpus, "colour" once
    assert cell(X, grid, 0, 0, 0, "source_log_freq") == pytest.approx(np.log1p(2))
    assert cell(X, grid, 0, 1, 1, "source_log_freq") == pytest.approx(np.log1p(1))
    # the source word "." has an identical word in its row; "colour" has none
    assert cell(X, grid, 0, 2, 0, "row_has_identical") == 1
    assert cell(X, grid, 0, 1, 0, "row_has_identical") == 0
    # (1,1) colour/color sits between two identical diagonal neighbours
    assert cell(X, grid, 0, 1, 1, "identical_prev_diagonal") == 1
    assert cell(X, grid, 0, 1, 1, "identical_next_diagonal") == 0  # (2,2) is "." / "was"


def test_word_shape_and_repeated_words():
    pairs = [
        (
            ["In", "2008", ",", "the", "cat", "saw", "the", "dog"],
            ["the", "dog", "saw", "the", "cat"],
        )
    ]
    X, _ = features_of(pairs)

    def at(i, j, name):
        return float(X[i * len(pairs[0][1]) + j, F[name]])

    assert at(0, 0, "source_capital") == 1 == 1 - at(3, 0, "source_capital")
    assert at(1, 0, "source_digit") == 1 and at(0, 0, "source_digit") == 0
    assert at(0, 0, "target_capital") == 0 == at(0, 0, "target_digit")
    # "the" twice in each sentence; "cat" once
    assert at(3, 0, "source_repeats") == 2 == at(3, 0, "target_repeats")
    assert at(4, 4, "source_repeats") == 1
    assert at(3, 1, "row_identical_count") == 2  # the source "the": two in the target
    assert at(0, 4, "column_identical_count") == 1  # the target "cat": one source "cat"
    # which "the" is which: the first with the first (gap 0), the first with the second (1)
    assert at(3, 0, "occurrence_gap") == 0 == at(6, 3, "occurrence_gap")
    assert at(3, 3, "occurrence_gap") == 1 == at(6, 0, "occurrence_gap")
    assert at(4, 0, "occurrence_gap") == -1  # cat / the: not the same word


def test_posteriors_viterbi_and_neighbours():
    pairs = PAIRS[1:]
    fwd = [np.array([[0.9, 0.1], [0.2, 0.6]])]
    bwd = [np.array([[0.7, 0.3], [0.0, 0.8]])]
    # forward: target 0 ← source 0, target 1 ← NULL; backward: source 1 → target 1
    X, grid = features_of(pairs, fwd, bwd, [np.array([0, -1])], [np.array([-1, 1])])
    row = {name: X[:, k].tolist() for name, k in F.items()}
    assert row["post_mean"] == pytest.approx([0.8, 0.2, 0.1, 0.7])
    assert row["post_min"] == pytest.approx([0.7, 0.1, 0.0, 0.6])
    assert row["viterbi_forward"] == [1, 0, 0, 0]
    assert row["viterbi_backward"] == [0, 0, 0, 1]
    assert row["viterbi_both"] == [0, 0, 0, 0]
    assert row["post_mean_+1_+1"] == pytest.approx([0.7, 0, 0, 0])
    assert row["post_mean_-1_-1"] == pytest.approx([0, 0, 0, 0.8])
    # the best other cell of the row / column
    assert row["row_max_other"] == pytest.approx([0.2, 0.8, 0.7, 0.1])
    assert row["column_max_other"] == pytest.approx([0.1, 0.7, 0.8, 0.2])
    assert row["row_sum"] == pytest.approx([1.0, 1.0, 0.8, 0.8])


def test_shapes_that_do_not_match_the_tokens_are_refused():
    with pytest.raises(ValueError, match="pair 0"):
        features_of(PAIRS[1:], forward=[np.zeros((2, 3))])


def test_levenshtein_matches_the_textbook_distances():
    words = [("kitten", "sitting", 3), ("flaw", "lawn", 2), ("", "abc", 3), ("same", "same", 0)]
    width = 8
    a = np.zeros((len(words), width), dtype=np.int64)
    b = np.zeros((len(words), width), dtype=np.int64)
    for k, (x, y, _) in enumerate(words):
        a[k, : len(x)] = [ord(c) for c in x]
        b[k, : len(y)] = [ord(c) for c in y]
    la = np.array([len(x) for x, _, _ in words])
    lb = np.array([len(y) for _, y, _ in words])
    assert _levenshtein(a, la, b, lb).tolist() == [d for _, _, d in words]


def test_candidates_and_context_features():
    pairs = [(["big"], ["large", "hound", "x"])]
    X, _ = features_of(pairs, [np.array([[0.8, 0.0, 0.0]])], [np.zeros((1, 3))])
    # (0,0) has a posterior, (0,1) a neighbour of mean posterior 0.4 ≥ 0.3, (0,2) nothing
    assert candidate_cells(X).tolist() == [True, True, False]
    X, grid = features_of(PAIRS[1:])
    ctx = context_features(np.array([0.9, 0.1, 0.2, 0.4]), grid)
    assert ctx.shape == (4, len(CONTEXT_NAMES))
    c = {name: ctx[:, k].tolist() for k, name in enumerate(CONTEXT_NAMES)}
    assert c["stage1_+1_+1"] == pytest.approx([0.4, 0, 0, 0])
    assert c["stage1_column_max_other"] == pytest.approx([0.2, 0.4, 0.9, 0.1])


def test_labels_figures_and_the_edit_minimising_threshold():
    grid = CellGrid.of([(2, 2)])
    gold = [Alignment.from_sets(sure=[(0, 0)], possible=[(1, 1)])]
    linked, sure = cell_labels(grid, [2], gold)
    assert linked.tolist() == [True, False, False, True]
    assert sure.tolist() == [True, False, False, False]
    identical = np.array([True, False, False, False])
    predicted = np.array([True, True, False, False])
    f = link_figures(predicted, linked, identical, 1)
    assert f["edits_per_pair"] == 2  # one extra, one missing
    assert f["all_precision"] == 0.5 and f["all_recall"] == 0.5
    assert f["nonident_precision"] == 0 and f["nonident_recall"] == 0
    # probabilities: links at 0.8 and 0.35, non-links at 0.3 and 0.6
    prob = np.array([0.8, 0.6, 0.3, 0.35])
    # t ≤ 0.30: 2 extras; (0.30, 0.35]: 1 extra; (0.35, 0.6]: 1 extra + 1 miss; > 0.6: 1 miss
    t = best_threshold(prob, linked, np.array([0.2, 0.33, 0.5, 0.7]))
    assert t == 0.33


def test_uncertainty_is_largest_for_coin_flips_and_per_token():
    sure = np.array([[1.0, 0.0], [0.0, 1.0]])
    coin = np.full((2, 2), 0.5)
    assert uncertainty(sure) == pytest.approx(0.0, abs=1e-6)
    assert uncertainty(coin) == pytest.approx(4 / 4)  # 4 cells of 1 bit over 4 tokens
    assert uncertainty(np.full((4, 4), 0.5)) == pytest.approx(16 / 8)
    assert uncertainty(np.zeros((0, 3))) == 0.0


def transposed_cells(pairs, X, grid):
    """The rows of ``X`` (cells of ``pairs``) reordered as the cells of the transposed pairs:
    row k of the result is cell (j, i) of pair (target, source)."""
    order = []
    for n, (s, t) in enumerate(pairs):
        base = int(grid.offsets[n])
        order += [base + i * len(t) + j for j in range(len(t)) for i in range(len(s))]
    return X[np.asarray(order)]


def test_symmetrised_features_are_the_same_seen_from_either_side():
    rng = np.random.default_rng(3)
    pairs = [
        (["The", "colour", "was", "odd", "."], ["the", "color", "."]),
        (["big", "dog", "barks"], ["large", "hound", "barks", "!"]),
    ]
    shapes = [(len(s), len(t)) for s, t in pairs]
    fwd = [rng.random(shape) for shape in shapes]
    bwd = [rng.random(shape) for shape in shapes]
    fst = [rng.integers(-1, n, size=m) for n, m in shapes]
    bst = [rng.integers(-1, m, size=n) for n, m in shapes]
    X, grid = features_of(pairs, fwd, bwd, fst, bst)
    # the same pairs the other way round: each direction's evidence changes places
    flipped = [(t, s) for s, t in pairs]
    XT, _ = features_of(
        flipped, [b.T for b in bwd], [f.T for f in fwd], [b.copy() for b in bst], fst
    )
    sym = Symmetriser(FEATURE_NAMES)
    assert len(sym.names) == len(FEATURE_NAMES)
    both = sym(X)
    assert np.allclose(transposed_cells(pairs, both, grid), sym(XT))
    # the raw features do depend on the side: the symmetrised ones are not a trivial identity
    assert not np.allclose(transposed_cells(pairs, X, grid), XT)
    # context features of a first stage's output: the same property
    q = rng.random(len(X))
    ctx = context_features(q, grid)
    qT = transposed_cells(pairs, q[:, None], grid).ravel()
    _, gridT = features_of(flipped)
    ctx_sym = Symmetriser(CONTEXT_NAMES)
    assert np.allclose(
        transposed_cells(pairs, ctx_sym(ctx), grid), ctx_sym(context_features(qT, gridT))
    )


def test_every_feature_block_has_its_transposed_twin_and_a_missing_twin_is_refused():
    names = (*FEATURE_NAMES, *LEXICON_NAMES, *GOLD_HMM_NAMES, *WORDNET_NAMES)
    sym = Symmetriser(names)
    assert len(sym.names) == len(names)
    assert "max(post_forward,post_backward)" in sym.names
    assert "abs(position_diff)" in sym.names and "gold_pair_rate" in sym.names
    with pytest.raises(ValueError, match="source_only.*target_only"):
        Symmetriser(("post_mean", "source_only"))


def test_the_gold_lexicon_counted_in_blocks_is_the_one_counted_at_once(monkeypatch):
    """``lexicon_of`` counts the model's own links on every pair a block of cells at a time:
    whole-number counts, so the same arrays, bit for bit, as counting every cell at once."""
    from alignment_core.aligner import link_inputs
    from alignment_core.aligner.features import GoldLexicon, TokenStats
    from alignment_core.aligner.link_inputs import cell_labels
    from tests.core.test_supervised_model import planted_corpus

    pairs, gold = planted_corpus(40)
    pairs[3] = (["Zebra", "unseen"], ["zebraq"])  # upper case and a word of no other pair
    gold[3] = Alignment.from_sets([(0, 0)], [(1, 0)])
    stats = TokenStats(pairs[:30])  # the last pairs' words unknown (-1) to the statistics
    counted = {n: gold[n] for n in range(0, 40, 2)}
    idx = sorted(counted)
    chosen = [pairs[n] for n in idx]
    grid = CellGrid.of([(len(s), len(t)) for s, t in chosen])
    linked, _ = cell_labels(grid, [len(t) for _, t in chosen], [counted[n] for n in idx])
    src, tgt = stats.word_ids(chosen)
    at_once = GoldLexicon(grid, src, tgt, linked, np.ones(len(grid), bool), len(stats.index))

    monkeypatch.setattr(link_inputs, "LEXICON_CELLS", 150)  # a few pairs a block
    in_blocks = link_inputs.lexicon_of(stats, pairs, counted)

    for name in ("keys", "pair_seen", "pair_linked", "src", "tgt"):
        assert np.array_equal(getattr(in_blocks, name), getattr(at_once, name)), name
    assert in_blocks.cell_rate == at_once.cell_rate and in_blocks.n_words == at_once.n_words
    both = in_blocks.features(grid, src, tgt), at_once.features(grid, src, tgt)
    assert np.array_equal(*both, equal_nan=True) and np.isnan(both[0]).any()  # unknown words
    assert len(at_once.keys) > 10 and at_once.cell_rate > 0
