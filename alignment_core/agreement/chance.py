"""The Monte Carlo chance model of κ_C (SPEC §5), compiled.

For one sentence pair: start from the seed alignment G (an n × m 0/1 grid, 0-based), flip every
cell independently with probability p_A to get annotator A's sample and with p_B to get B's, take
the units of both samples (non-identical atomic phrase pairs, or non-identical links) and their
θ = |U_A ∩ U_B| / min(|U_A|, |U_B|) (0 when either set is empty). Repeat J times, streaming:
only the running mean and sum of squared deviations (Welford) are kept, so memory does not
depend on J.

Flips are drawn by geometric skipping: the gap to the next flipped cell is
``floor(log(1 − U) / log(1 − p))`` for U uniform in [0, 1), which gives exactly independent
Bernoulli(p) cells while drawing about p·n·m numbers instead of n·m; for p > ½ the cells that
are *not* flipped are drawn the same way. Dense samples therefore cost no more random numbers
than sparse ones. All draws come from the numpy ``Generator`` passed in (numba shares its state),
so a seed reproduces the run, and ``_pair_chance.py_func`` replays the identical stream in plain
Python.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, types

from alignment_core.phrases import BOOL, F64, I32, INT, U8, _atoms, _same_text

RNG = numba.typeof(np.random.default_rng(0))  # numba's type of a numpy Generator

LEVEL_WORD = 0
LEVEL_PHRASE = 1


@njit((U8, F64, RNG, U8), cache=True)
def _sample_flips(seed, p, rng, out):
    """out = seed with every cell flipped independently with probability p (flat uint8 grids)."""
    total = seed.size
    if p <= 0.0:
        out[:] = seed
        return
    if p >= 1.0:
        for c in range(total):
            out[c] = 1 - seed[c]
        return
    # draw the rarer event: flipped cells when p <= 1/2, kept cells otherwise
    rare = p if p <= 0.5 else 1.0 - p
    if p <= 0.5:
        out[:] = seed
    else:
        for c in range(total):
            out[c] = 1 - seed[c]
    log_q = math.log1p(-rare)
    pos = -1
    while True:
        gap = math.floor(math.log(1.0 - rng.random()) / log_q)
        if gap >= total - pos - 1:
            break
        pos += int(gap) + 1
        out[pos] = 1 - out[pos]


@njit((U8, INT, INT), cache=True)
def _grid_profiles(grid, n, m):
    """Row/column profiles (see ``phrases``) of a flat n × m 0/1 grid."""
    rmin = np.full(n, m, np.int32)
    rmax = np.full(n, -1, np.int32)
    cmin = np.full(m, n, np.int32)
    cmax = np.full(m, -1, np.int32)
    for i in range(n):
        base = i * m
        for j in range(m):
            if grid[base + j]:
                if rmax[i] < 0:
                    rmin[i] = j
                rmax[i] = j
                if cmax[j] < 0:
                    cmin[j] = i
                cmax[j] = i
    return rmin, rmax, cmin, cmax


@njit((U8, INT, INT, I32, I32, I32, I32, BOOL, I32, I32, I32), cache=True)
def _phrase_units(grid, n, m, sp, ss, tp, ts, keep_identical, end, j1o, j2o):
    """Atomic (non-identical unless keep_identical) phrase pairs of the grid, indexed by source
    start: end[i1] = i2 or -1, with target span j1o[i1]..j2o[i1]. Returns how many."""
    rmin, rmax, cmin, cmax = _grid_profiles(grid, n, m)
    i1 = np.empty(n, np.int32)
    i2 = np.empty(n, np.int32)
    j1 = np.empty(n, np.int32)
    j2 = np.empty(n, np.int32)
    k = _atoms(rmin, rmax, cmin, cmax, i1, i2, j1, j2)
    end[:] = -1
    count = 0
    for t in range(k):
        if not keep_identical and _same_text(sp, ss, i1[t], i2[t], tp, ts, j1[t], j2[t]):
            continue
        end[i1[t]] = i2[t]
        j1o[i1[t]] = j1[t]
        j2o[i1[t]] = j2[t]
        count += 1
    return count


@njit((U8, U8, INT, INT, INT, U8, I32, I32, I32, I32, BOOL, types.int32[:, :]), cache=True)
def _theta(ga, gb, n, m, level, identical, sp, ss, tp, ts, keep_identical, scratch):
    """θ of two flat grids. ``identical`` flags cells whose words are identical (word level);
    ``scratch`` is an int32 array of shape (6, n) reused between calls."""
    if level == LEVEL_WORD:
        na = 0
        nb = 0
        both = 0
        for c in range(n * m):
            if identical[c] and not keep_identical:
                continue
            na += ga[c]
            nb += gb[c]
            both += ga[c] & gb[c]
    else:
        ea, a1, a2, eb, b1, b2 = (
            scratch[0],
            scratch[1],
            scratch[2],
            scratch[3],
            scratch[4],
            scratch[5],
        )
        na = _phrase_units(ga, n, m, sp, ss, tp, ts, keep_identical, ea, a1, a2)
        nb = _phrase_units(gb, n, m, sp, ss, tp, ts, keep_identical, eb, b1, b2)
        both = 0
        for i in range(n):
            if ea[i] >= 0 and ea[i] == eb[i] and a1[i] == b1[i] and a2[i] == b2[i]:
                both += 1
    low = min(na, nb)
    return both / low if low > 0 else 0.0


@njit((U8, INT, INT, F64, F64, INT, RNG, INT, U8, I32, I32, I32, I32, BOOL), cache=True)
def _pair_chance(
    seed, n, m, p_a, p_b, samples, rng, level, identical, sp, ss, tp, ts, keep_identical
):
    """(mean θ, sum of squared deviations from it) over ``samples`` sampled pairs of alignments.

    ``seed`` is the flat n × m 0/1 seed grid (row-major, 0-based); per sample, A's flips are
    drawn before B's."""
    ga = np.empty(n * m, np.uint8)
    gb = np.empty(n * m, np.uint8)
    scratch = np.empty((6, max(n, 1)), np.int32)
    mean = 0.0
    m2 = 0.0
    for s in range(samples):
        _sample_flips(seed, p_a, rng, ga)
        _sample_flips(seed, p_b, rng, gb)
        th = _theta(ga, gb, n, m, level, identical, sp, ss, tp, ts, keep_identical, scratch)
        delta = th - mean
        mean += delta / (s + 1)
        m2 += delta * (th - mean)
    return mean, m2


def identical_cells(sp: np.ndarray, ss: np.ndarray, tp: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Flat n × m uint8 grid: 1 where source word i and target word j are identical (casefolded)."""
    n, m = ss.size - 1, ts.size - 1
    src = [tuple(sp[ss[i] : ss[i + 1]]) for i in range(n)]
    tgt = [tuple(tp[ts[j] : ts[j + 1]]) for j in range(m)]
    return np.array([a == b for a in src for b in tgt], np.uint8).reshape(n * m)
