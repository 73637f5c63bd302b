"""The aligner's memory is bounded by chunks of pairs (issue 10: a 10,000-token pair grew the
worker past 7.8 GB). Aligning and posteriors over many pairs run chunk by chunk: the results are
the same as in one piece, and the peak of the buffers numpy allocates stays near one chunk's."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, train
from alignment_core.aligner import model as aligner_model
from alignment_core.aligner.model import pair_chunks
from alignment_core.aligner.synthetic import synthetic_corpus


def test_pair_chunks_cover_every_pair_once_in_order_within_the_budget():
    pairs = [(["a"] * n, ["b"] * m) for n, m in [(3, 4), (9, 9), (1, 1), (40, 40), (2, 5), (5, 2)]]
    cells = [(len(s) + 1) * (len(t) + 1) for s, t in pairs]
    bounds = pair_chunks(pairs, max_cells=120)
    assert [lo for lo, _ in bounds][0] == 0 and bounds[-1][1] == len(pairs)
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:], strict=False))
    for lo, hi in bounds:
        # within the budget, unless one pair alone is larger (41·41 cells here)
        assert sum(cells[lo:hi]) <= 120 or hi - lo == 1
    assert pair_chunks([], max_cells=10) == [(0, 0)]


@pytest.fixture(scope="module")
def trained():
    corpus = synthetic_corpus(600, vocab_size=400, min_len=8, max_len=20, seed=3)
    config = AlignerConfig(ibm1_iterations=2, hmm_iterations=2, threads=1)
    return train(corpus.pairs, config=config), corpus.pairs


def _peak(fn):
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_chunked_alignment_and_posteriors_match_one_piece_with_a_lower_peak(trained, monkeypatch):
    model, pairs = trained
    fresh = [(list(s), list(t)) for s, t in pairs]  # not the training list: no cached table
    whole_links = model.align(fresh)
    whole_states, whole_peak = _peak(lambda: model.viterbi(fresh))
    whole_post, whole_post_peak = _peak(lambda: model.posteriors(fresh))

    total = sum((len(s) + 1) * (len(t) + 1) for s, t in fresh)
    monkeypatch.setattr(aligner_model, "CHUNK_CELLS", total // 20)
    assert len(pair_chunks(fresh)) >= 20
    chunk_links = model.align(fresh)
    chunk_states, chunk_peak = _peak(lambda: model.viterbi(fresh))
    chunk_post, chunk_post_peak = _peak(lambda: model.posteriors(fresh))

    assert chunk_links == whole_links
    for a, b in zip(chunk_states, whole_states, strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert len(chunk_post) == len(whole_post)
    assert all(np.array_equal(a, b) for a, b in zip(chunk_post, whole_post, strict=True))
    # The result itself (posterior matrices) is O(total) by nature; the work buffers are not.
    result_bytes = sum(m.nbytes for m in whole_post)
    assert chunk_post_peak - result_bytes < (whole_post_peak - result_bytes) / 4
    assert chunk_peak < whole_peak * 0.7  # the states returned (O(tokens)) are most of it
