"""The banded bead DP: against brute force over every bead sequence, and numba against its
plain-Python twin."""

from __future__ import annotations

import math

import numpy as np
import pytest

from alignment_core.sentalign._kernels import get_kernels
from alignment_core.sentalign.dp import (
    BASIC_TYPES,
    CostModel,
    Evidence,
    diagonal_band,
    path_band,
    run_dp,
)

TYPES = BASIC_TYPES + ((1, 3), (3, 1))


def _random_evidence(rng, n, m, dims=6, density=0.5):
    def rows(count):
        dense = rng.random((count, dims)) * (rng.random((count, dims)) < density)
        ptr, idx, val = [0], [], []
        for row in dense:
            nz = np.nonzero(row)[0]
            idx.extend(nz.tolist())
            val.extend(row[nz].tolist())
            ptr.append(len(idx))
        csr = (np.array(ptr), np.array(idx, dtype=np.int64), np.array(val, dtype=np.float64))
        return dense, csr

    src_dense, src_csr = rows(n)
    tgt_dense, tgt_csr = rows(m)
    ev = Evidence(
        rng.integers(5, 80, n).astype(float), rng.integers(5, 80, m).astype(float), src_csr, tgt_csr
    )
    return ev, src_dense, tgt_dense


def _oracle_bead_cost(model, ev, src_dense, tgt_dense, s, t):
    """One bead's cost from CostModel's words, on dense vectors (no grams, no band)."""
    a, b = len(s), len(t)
    ls, lt = sum(ev.src_len[list(s)]), sum(ev.tgt_len[list(t)])
    mean = max((ls + lt / model.ratio) / 2, 1.0)
    delta = abs(lt - ls * model.ratio) / math.sqrt(mean * model.var)
    length = -math.log(max(math.erfc(delta / math.sqrt(2)), 1e-300))
    cost = model.type_pen.get((a, b), 0.0)
    if a == 0 or b == 0:
        return cost + model.null_cost * (a + b) + model.w_null_len * length
    x = src_dense[list(s)].sum(0)
    y = tgt_dense[list(t)].sum(0)
    nx, ny = np.linalg.norm(x), np.linalg.norm(y)
    cos = float(x @ y / (nx * ny)) if nx > 0 and ny > 0 else 0.0
    if model.log_eps > 0:
        lex = math.log((1 + model.log_eps) / (max(cos, 0.0) + model.log_eps))
    else:
        lex = 1 - cos
    return cost + model.w_len * length + model.w_lex * lex * (a + b) / 2


def _brute_force(model, ev, src_dense, tgt_dense):
    """Minimum total cost over every bead sequence (explicit enumeration)."""
    n, m = len(ev.src_len), len(ev.tgt_len)
    best = [math.inf]

    def go(i, j, acc):
        if acc >= best[0]:
            return
        if i == n and j == m:
            best[0] = acc
            return
        for a, b in model.types:
            if i + a <= n and j + b <= m:
                c = _oracle_bead_cost(
                    model, ev, src_dense, tgt_dense, range(i, i + a), range(j, j + b)
                )
                go(i + a, j + b, acc + c)

    go(0, 0, 0.0)
    return best[0]


MODELS = [
    CostModel(types=TYPES, w_len=1.0, w_lex=3.0, null_cost=2.0, ratio=1.1),
    CostModel(
        types=TYPES,
        type_pen={(1, 2): 1.0, (2, 1): 1.0, (2, 2): 2.5, (1, 3): 3.0, (3, 1): 3.0},
        w_len=0.5,
        w_lex=2.0,
        null_cost=1.0,
        ratio=0.9,
        log_eps=0.2,
        w_null_len=0.3,
    ),
]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("seed", range(12))
def test_dp_equals_brute_force_on_tiny_documents(model, seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(0, 5)), int(rng.integers(0, 5))
    ev, sd, td = _random_evidence(rng, n, m)
    beads, total = run_dp(ev, model, np.zeros(n + 1, dtype=np.int64), m + 1)
    assert total == pytest.approx(_brute_force(model, ev, sd, td), rel=1e-9, abs=1e-9)
    # the beads returned cover both sides in order and add up to the total
    assert [i for b in beads for i in b.src] == list(range(n))
    assert [j for b in beads for j in b.tgt] == list(range(m))
    recomputed = sum(_oracle_bead_cost(model, ev, sd, td, b.src, b.tgt) for b in beads)
    assert recomputed == pytest.approx(total, rel=1e-6, abs=1e-6)


def test_narrow_band_is_widened_until_the_end_is_reached():
    rng = np.random.default_rng(3)
    ev, sd, td = _random_evidence(rng, 3, 12)  # far off the diagonal: 9 extra targets
    model = MODELS[0]
    beads, total = run_dp(ev, model, diagonal_band(3, 12, 2), 2)
    assert [j for b in beads for j in b.tgt] == list(range(12))
    full, full_total = run_dp(ev, model, np.zeros(4, dtype=np.int64), 13)
    assert total >= full_total - 1e-9


def test_path_band_contains_the_path():
    path = [(0, 0), (1, 1), (1, 5), (3, 6), (4, 8)]
    row_lo, width = path_band(path, 4, 8, 1)
    for i, j in path:
        assert row_lo[i] <= j < row_lo[i] + width


def test_compiled_kernels_equal_their_python_twins():
    rng = np.random.default_rng(11)
    ev, _, _ = _random_evidence(rng, 40, 47, dims=20, density=0.3)
    fast, slow = get_kernels(plain=False), get_kernels(plain=True)
    assert slow.band_dp is fast.band_dp.py_func
    for model in MODELS:
        row_lo = diagonal_band(40, 47, 14)
        a, ta = run_dp(ev, model, row_lo, 14, plain=False)
        b, tb = run_dp(ev, model, row_lo, 14, plain=True)
        assert a == b
        assert ta == tb
    out_fast = np.zeros((40, 9))
    out_slow = np.zeros((40, 9))
    lo = np.arange(40, dtype=np.int64) - 4
    fast.band_dots(*ev.src_vec, *ev.tgt_vec, lo, out_fast)
    slow.band_dots(*ev.src_vec, *ev.tgt_vec, lo, out_slow)
    np.testing.assert_array_equal(out_fast, out_slow)
