"""The banded bead DP and the beads' posteriors: against brute force over every bead sequence,
and numba against its plain-Python twin."""

from __future__ import annotations

import math

import numpy as np
import pytest

from alignment_core.sentalign._kernels import get_kernels
from alignment_core.sentalign.dp import (
    BASIC_TYPES,
    CostModel,
    Evidence,
    bead_posteriors,
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


def _sequences(model, ev, src_dense, tgt_dense):
    """Every bead sequence from (0, 0) to (n, m), as ``(beads, total cost)``."""
    n, m = len(ev.src_len), len(ev.tgt_len)
    out = []

    def go(i, j, beads, acc):
        if i == n and j == m:
            out.append((beads, acc))
            return
        for a, b in model.types:
            if i + a <= n and j + b <= m and a + b:
                s, t = tuple(range(i, i + a)), tuple(range(j, j + b))
                c = _oracle_bead_cost(model, ev, src_dense, tgt_dense, s, t)
                go(i + a, j + b, [*beads, (s, t)], acc + c)

    go(0, 0, [], 0.0)
    return out


@pytest.mark.parametrize("temp", [1.0, 0.5])
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("seed", range(6))
def test_bead_posteriors_equal_brute_force_on_tiny_documents(model, seed, temp):
    """Each paired bead of the best path gets the weight of the sequences holding it over all
    sequences' weight, a sequence weighing ``exp(-cost / temp)``: a band wide enough holds
    every sequence, so nothing is left out on either side. (A null bead's posterior is of its
    place in the path: a run of null beads in another order holds it elsewhere.)"""
    rng = np.random.default_rng(100 + seed)
    n, m = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    ev, sd, td = _random_evidence(rng, n, m)
    beads, _ = run_dp(ev, model, np.zeros(n + 1, dtype=np.int64), m + 1)
    got = bead_posteriors(ev, model, beads, radius=5, temp=temp, kernels=get_kernels(None))
    sequences = _sequences(model, ev, sd, td)
    weight = np.array([math.exp(-cost / temp) for _, cost in sequences])
    for b, p in zip(beads, got, strict=True):
        if not (b.src and b.tgt):
            assert 0.0 < p <= 1.0
            continue
        holds = np.array([(b.src, b.tgt) in seq for seq, _ in sequences])
        assert p == pytest.approx(weight[holds].sum() / weight.sum(), rel=1e-5, abs=1e-9)
    assert got.min() > 0.0 and got.max() <= 1.0


def test_a_bead_with_a_close_rival_gets_a_lower_posterior():
    """Two source sentences that fit one target equally well: the bead of either with it is
    an even bet, and the sure beads around it stay near 1."""
    src = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=float)
    tgt = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=float)

    def csr(dense):
        idx = [np.nonzero(r)[0] for r in dense]
        ptr = np.concatenate([[0], np.cumsum([len(i) for i in idx])])
        return (
            ptr,
            np.concatenate(idx).astype(np.int64),
            np.concatenate([r[i] for r, i in zip(dense, idx, strict=True)]),
        )

    ev = Evidence(np.full(4, 40.0), np.full(3, 40.0), csr(src), csr(tgt))
    pen = {t: 8.0 for t in TYPES if t != (1, 1) and 0 not in t}
    model = CostModel(types=TYPES, w_len=1.0, w_lex=3.0, null_cost=5.0, type_pen=pen)
    beads, _ = run_dp(ev, model, np.zeros(5, dtype=np.int64), 4)
    post = dict(
        zip(
            ((b.src, b.tgt) for b in beads),
            bead_posteriors(ev, model, beads, 4, 1.0, get_kernels(None)),
            strict=True,
        )
    )
    assert post[((0,), (0,))] > 0.9 and post[((3,), (2,))] > 0.9
    paired = [p for (s, t), p in post.items() if s and t and s[0] in (1, 2)]
    assert len(paired) == 1 and 0.3 < paired[0] < 0.7, post


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
        beads, _ = run_dp(ev, model, row_lo, 14, plain=False)
        np.testing.assert_array_equal(
            bead_posteriors(ev, model, beads, 3, 1.0, fast),
            bead_posteriors(ev, model, beads, 3, 1.0, slow),
        )
    out_fast = np.zeros((40, 9))
    out_slow = np.zeros((40, 9))
    lo = np.arange(40, dtype=np.int64) - 4
    fast.band_dots(*ev.src_vec, *ev.tgt_vec, lo, out_fast)
    slow.band_dots(*ev.src_vec, *ev.tgt_vec, lo, out_slow)
    np.testing.assert_array_equal(out_fast, out_slow)
