"""Compiled kernels of the sentence aligner (numba), each with an exact plain-Python twin.

Conventions (all 0-based):

* DP cell ``(i, j)`` means "the first ``i`` source and ``j`` target sentences are aligned".
  Row ``i`` of the band holds cells ``j = row_lo[i] .. row_lo[i] + W - 1`` (clipped to
  ``0..m``); anything outside the band is unreachable.
* A bead of type ``t`` covers ``a = types_a[t]`` source and ``b = types_b[t]`` target
  sentences; the bead *ending* at cell ``(i, j)`` covers sources ``i-a .. i-1`` and targets
  ``j-b .. j-1``.
* Lexical evidence is a bilinear form between sentence vectors: the DP computes the dot
  products ``x_i · y_j`` of source row ``i`` for ``j = dot_lo[i] .. dot_lo[i] + dot_n[i] - 1``
  when it reaches DP row ``i + 1`` and keeps the last ``max(a)`` rows only (0 outside that
  stretch), so memory is ``O(W)`` for them, not ``O(n W)``; ``src_gram[i, k] = x_i · x_{i+k}`` and
  ``tgt_gram[j, k] = y_j · y_{j+k}`` give the norms of concatenations, so the cosine of a
  many-to-many bead is exact without building its vectors.
* ``params``: ``[w_len, w_lex, null_cost, ratio, var, w_null_len, log_eps]`` (see
  ``dp.CostModel``).

Every kernel is self-contained (no calls to other jitted functions), so ``kernel.py_func`` is
its plain-Python twin: ``get_kernels(plain=True)`` returns those (tests compare the two).
"""

from __future__ import annotations

import math
import os
from types import SimpleNamespace

import numpy as np
from numba import njit

jit = njit(cache=True, nogil=True)

_NAMES = ("band_dots", "band_dp")


@jit
def band_dots(src_ptr, src_idx, src_val, tgt_ptr, tgt_idx, tgt_val, dot_lo, out):
    """``out[i, c] = x_i · y_{dot_lo[i] + c}`` for sparse rows (CSR, indices sorted per row)."""
    n = len(src_ptr) - 1
    m = len(tgt_ptr) - 1
    width = out.shape[1]
    for i in range(n):
        a0 = src_ptr[i]
        a1 = src_ptr[i + 1]
        for c in range(width):
            j = dot_lo[i] + c
            if j < 0 or j >= m:
                out[i, c] = 0.0
                continue
            b0 = tgt_ptr[j]
            b1 = tgt_ptr[j + 1]
            p = a0
            q = b0
            s = 0.0
            while p < a1 and q < b1:
                if src_idx[p] == tgt_idx[q]:
                    s += src_val[p] * tgt_val[q]
                    p += 1
                    q += 1
                elif src_idx[p] < tgt_idx[q]:
                    p += 1
                else:
                    q += 1
            out[i, c] = s


# Its plain-Python twin is the same function, checked against brute force by
# tests/core/test_sentalign_dp.py; splitting it would only add calls inside the hot loop.
# long: the banded DP's one compiled loop (cells × bead types, the cost terms inline)
@jit
def band_dp(
    n,
    m,
    row_lo,
    width,
    src_cum,
    tgt_cum,
    src_ptr,
    src_idx,
    src_val,
    tgt_ptr,
    tgt_idx,
    tgt_val,
    dot_lo,
    dot_n,
    src_gram,
    tgt_gram,
    types_a,
    types_b,
    type_pen,
    params,
    back,
    bead_cost,
    temp,
    reach,
):
    """Minimum-cost bead sequence from (0, 0) to (n, m) inside the band.

    Writes ``back[i, c]`` (int8: the type index of the best bead ending at cell
    ``(i, row_lo[i] + c)``, -1 if unreachable) and ``bead_cost[i, c]`` (float32: that bead's
    own cost). Scores are kept for the last ``max(a) + 1`` rows only (linear memory).
    Returns the total cost of the best path (``inf`` if (n, m) is outside the band or
    unreachable).

    With ``temp`` > 0 the minimum becomes a soft minimum, ``-temp · log Σ exp(-total / temp)``
    over the beads ending at a cell (no pruning): the score of a cell is then the cost of *all*
    paths reaching it, and ``reach[i, c]`` (when it has ``n + 1`` rows) receives every cell's
    score, for the beads' posterior probabilities (``dp.bead_posteriors``).
    """
    w_len = params[0]
    w_lex = params[1]
    null_cost = params[2]
    ratio = params[3]
    var = params[4]
    w_null_len = params[5]
    log_eps = params[6]
    n_types = len(types_a)
    max_a = 0
    for t in range(n_types):
        if types_a[t] > max_a:
            max_a = types_a[t]
    rows = max_a + 1
    score = np.full((rows, width), np.inf)
    dot_rows = max(max_a, 1)
    dot_w = 1
    for s in range(n):
        if dot_n[s] > dot_w:
            dot_w = dot_n[s]
    dots = np.zeros((dot_rows, dot_w))
    n_gram = src_gram.shape[1]
    for i in range(n + 1):
        r = i % rows
        lo = row_lo[i]
        if i > 0:  # the dot products of source sentence i - 1, read by beads ending here on
            s = i - 1
            a0 = src_ptr[s]
            a1 = src_ptr[s + 1]
            for dc in range(dot_n[s]):
                u = dot_lo[s] + dc
                acc = 0.0
                if u >= 0 and u < m:
                    p = a0
                    q = tgt_ptr[u]
                    b1 = tgt_ptr[u + 1]
                    while p < a1 and q < b1:
                        if src_idx[p] == tgt_idx[q]:
                            acc += src_val[p] * tgt_val[q]
                            p += 1
                            q += 1
                        elif src_idx[p] < tgt_idx[q]:
                            p += 1
                        else:
                            q += 1
                dots[s % dot_rows, dc] = acc
        for c in range(width):
            score[r, c] = np.inf
            back[i, c] = -1
            bead_cost[i, c] = np.inf
            j = lo + c
            if j > m:
                continue
            if i == 0 and j == 0:
                score[r, c] = 0.0
                if reach.shape[0] > 0:
                    reach[0, c] = 0.0
                continue
            best = np.inf
            best_t = -1
            best_own = np.inf
            mass = 0.0  # soft mode: Σ exp(-(total - best) / temp)
            for t in range(n_types):
                a = types_a[t]
                b = types_b[t]
                pi = i - a
                pj = j - b
                if pi < 0 or pj < 0:
                    continue
                pc = pj - row_lo[pi]
                if pc < 0 or pc >= width:
                    continue
                prev = score[pi % rows, pc]
                if prev == np.inf:
                    continue
                # every part of a bead's cost is >= 0 beyond its fixed part: prune early
                fixed = type_pen[t]
                if a == 0 or b == 0:
                    fixed += null_cost * (a + b)
                if temp == 0.0 and prev + fixed >= best:
                    continue
                ls = src_cum[i] - src_cum[pi]
                lt = tgt_cum[j] - tgt_cum[pj]
                # Gale-Church: the target length given the source length is normal with mean
                # ratio * ls and variance var * ls (lengths in characters).
                mean_len = (ls + lt / ratio) / 2.0
                if mean_len < 1.0:
                    mean_len = 1.0
                delta = (lt - ls * ratio) / math.sqrt(mean_len * var)
                if delta < 0:
                    delta = -delta
                tail = math.erfc(delta / math.sqrt(2.0))
                if tail < 1e-300:
                    tail = 1e-300
                length_cost = -math.log(tail)
                own = fixed
                if a == 0 or b == 0:
                    own += w_null_len * length_cost
                else:
                    dot = 0.0
                    for s in range(pi, i):
                        for u in range(pj, j):
                            dc = u - dot_lo[s]
                            if dc >= 0 and dc < dot_n[s]:
                                dot += dots[s % dot_rows, dc]
                    ns = 0.0
                    for s in range(pi, i):
                        ns += src_gram[s, 0]
                        for k in range(1, i - s):
                            if k < n_gram:
                                ns += 2.0 * src_gram[s, k]
                    nt = 0.0
                    for u in range(pj, j):
                        nt += tgt_gram[u, 0]
                        for k in range(1, j - u):
                            if k < n_gram:
                                nt += 2.0 * tgt_gram[u, k]
                    cos = 0.0
                    if ns > 0.0 and nt > 0.0:
                        cos = dot / math.sqrt(ns * nt)
                    if log_eps > 0.0:
                        if cos < 0.0:
                            cos = 0.0
                        lex = math.log((1.0 + log_eps) / (cos + log_eps))
                    else:
                        lex = 1.0 - cos
                    own += w_len * length_cost + w_lex * lex * (a + b) / 2.0
                total = prev + own
                if total < best:
                    if temp > 0.0:
                        mass = mass * math.exp((total - best) / temp) + 1.0 if mass > 0.0 else 1.0
                    best = total
                    best_t = t
                    best_own = own
                elif temp > 0.0:
                    mass += math.exp((best - total) / temp)
            if temp > 0.0 and mass > 0.0:
                best -= temp * math.log(mass)
            score[r, c] = best
            if reach.shape[0] > i:
                reach[i, c] = best
            back[i, c] = best_t
            bead_cost[i, c] = best_own
    fc = m - row_lo[n]
    if fc < 0 or fc >= width:
        return np.inf
    return score[n % rows, fc]


def plain_requested() -> bool:
    """True when ``GRIDALIGN_SENTALIGN_PLAIN=1``: run the kernels as plain Python (slow)."""
    return os.environ.get("GRIDALIGN_SENTALIGN_PLAIN", "") not in ("", "0")


def get_kernels(plain: bool | None = None) -> SimpleNamespace:
    """The kernels, compiled or (``plain``, default from the environment) their Python twins."""
    if plain is None:
        plain = plain_requested()
    found = {name: globals()[name] for name in _NAMES}
    return SimpleNamespace(**{n: (f.py_func if plain else f) for n, f in found.items()})
