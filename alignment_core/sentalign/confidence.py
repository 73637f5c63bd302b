"""Bead confidences as calibrated probabilities that the bead is right.

Each bead gets a few features (below), all computed in linear time from what the DP already
has (its own bead cost, the sentences' lengths and sparse vectors); a logistic model turns
them into a probability. Paired beads and null beads (1–0 / 0–1) have a model each. The
coefficients (``_confidence_coef``) were fitted on Text+Berg dev by
``benchmarks/sentalign_calibration.py --write``, whose cross-validation (folds by document)
``benchmarks/sentalign.py`` reports: nothing is fitted at run time.

Paired bead features:

* ``cost``: the bead's own DP cost per sentence (length + lexical + type penalty);
* ``cos``: cosine of the bead's two sides (the sum of each side's sentence vectors);
* ``margin``: ``cos`` minus the best cosine of one of its sentences with a sentence just
  outside the bead on the other side (a wrong bead often has a better partner next door);
* ``length``: Gale–Church's −log P of the two sides' character lengths;
* ``one_one`` / ``big``: a 1–1 bead; a bead of four sentences or more;
* ``beside_null``: a null bead just before or after it;
* ``neighbours``: the lower ``cos`` of the paired beads just before and after it;
* ``chars``: log of the bead's characters;
* ``weakest``: the lowest cosine of one of its sentences with the other side's sum;
* ``open_end`` / ``open_start``: how many of its two sides end without a sentence end
  (``.``, ``!``, ``?``, ``…``, a closing quote) / start with a lowercase letter (a sentence
  cut by the splitter or by OCR often belongs to a bigger bead);
* ``neighbour_cost``: the higher ``cost`` of the paired beads just before and after it;
* ``first_pass``: the first pass (before IBM1) drew the same bead: two alignments that agree
  are more often right (without a second pass, always 1);
* ``posterior``: log of the bead's posterior probability over every bead sequence near the
  path (``dp.bead_posteriors``; a path's weight ``exp(-cost)``): low when another way through
  the same sentences costs almost as little (a split the gold merges, a merge it splits).

The null bead feature is ``best``, the best cosine of its sentence with the other side's
sentences near where the path passes it (a likely partner beside it: probably wrong). Text+Berg
dev's null beads are too few and too bunched (60 of its 94 in one region, the captions) to
fit more: the length of a run of null beads separated them well on the whole set, but not
from one region to another.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import erfc, expit

from alignment_core.sentalign._confidence_coef import NULL_COEF, PAIRED_COEF
from alignment_core.sentalign.dp import CostModel, Evidence, RawBead, bead_posteriors

PAIRED_FEATURES = (
    "bias", "cost", "cos", "margin", "length", "one_one", "big", "beside_null", "neighbours",
    "chars", "weakest", "open_end", "open_start", "neighbour_cost", "first_pass", "posterior",
)  # fmt: skip
NULL_FEATURES = ("bias", "best")

# Target sentences read per source sentence: one before its bead, the bead (up to 4), one after.
_WINDOW = 6
# The posterior's paths stay within this many cells of the final one: the rivals that matter are
# next to it (1, 2, 3, 6 and 12 ranked Text+Berg dev's beads alike; 1 is the cheapest, +2.2 s
# on 40,000 sentences against +3.2 s for 3). A path weighs exp(-cost / temperature): 0.5 and 2
# ranked worse than 1.
POSTERIOR_RADIUS = 1
POSTERIOR_TEMPERATURE = 1.0
# Below this the posterior's log is cut: so few beads get there that the fit cannot tell them apart.
POSTERIOR_FLOOR = 1e-4


def probabilities(x: np.ndarray, coef: Sequence[float]) -> np.ndarray:
    """The logistic model: ``P = 1 / (1 + exp(-x · coef))`` per row of ``x``."""
    if len(x) == 0:
        return np.zeros(0)
    return expit(x @ np.asarray(coef, dtype=np.float64))


def confidences(beads: list[RawBead], ev, model, kernels, texts, first_path) -> list[float]:
    """Each bead's calibrated probability of being right, in order (``texts``: the source
    and target sentences; ``first_path``: the first pass's DP cells, ``(k, 2)``)."""
    paired, null, is_paired = features(beads, ev, model, kernels, texts, first_path)
    out = np.empty(len(beads))
    out[is_paired] = probabilities(paired, PAIRED_COEF)
    out[~is_paired] = probabilities(null, NULL_COEF)
    return out.tolist()


def features(beads: list[RawBead], ev: Evidence, model: CostModel, kernels, texts, first_path):
    """``(paired rows, null rows, is_paired mask)``: the feature matrices (columns as in
    ``PAIRED_FEATURES`` / ``NULL_FEATURES``) of the paired and null beads, in bead order."""
    spans = np.array(
        [
            (b.src[0] if b.src else -1, len(b.src), b.tgt[0] if b.tgt else -1, len(b.tgt))
            for b in beads
        ],
        dtype=np.int64,
    ).reshape(-1, 4)
    cost = np.array([b.cost for b in beads], dtype=np.float64)
    a, b = spans[:, 1], spans[:, 3]
    is_paired = (a > 0) & (b > 0)
    s0, t0 = _starts(a), _starts(b)
    chars = _side_chars(ev.src_len, s0, a) + _side_chars(ev.tgt_len, t0, b)
    cos, best_out, weakest = _bead_cosines(ev, s0, a, t0, b, kernels)
    cols = _paired_columns(is_paired, cost, cos, best_out, a, b, chars, ev, s0, t0, model)
    opens = _open_sides(texts, s0, a, t0, b)
    per_sentence = cost / np.maximum(a + b, 1)
    neighbour_cost = np.fmax(
        _shift_fill(np.where(is_paired, per_sentence, np.nan), forward=True),
        _shift_fill(np.where(is_paired, per_sentence, np.nan), forward=False),
    )
    neighbour_cost = np.where(np.isnan(neighbour_cost), per_sentence, neighbour_cost)
    agrees = _in_path(first_path, s0, a, t0, b, len(ev.tgt_len))
    posterior = bead_posteriors(ev, model, beads, POSTERIOR_RADIUS, POSTERIOR_TEMPERATURE, kernels)
    log_post = np.log(np.maximum(posterior, POSTERIOR_FLOOR))
    paired = np.column_stack([cols, weakest, *opens, neighbour_cost, agrees, log_post])
    paired = paired[is_paired]
    null = _null_rows(beads, is_paired, ev)
    return paired, null, is_paired


def _in_path(path: np.ndarray, s0, a, t0, b, m: int) -> np.ndarray:
    """Per bead: whether ``path`` (DP cells in order) has the same bead, i.e. the bead's end
    cell right after its start cell. Cells coded ``i · (m + 1) + j`` increase along a path."""
    codes = path[:, 0] * (m + 1) + path[:, 1]
    start = s0 * (m + 1) + t0
    end = (s0 + a) * (m + 1) + t0 + b
    k = np.searchsorted(codes, end)
    found = (k < len(codes)) & (codes[np.minimum(k, len(codes) - 1)] == end) & (k > 0)
    before = codes[np.clip(k - 1, 0, len(codes) - 1)]
    return (found & (before == start)).astype(np.float64)


def _starts(counts: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)


def _side_chars(lengths: np.ndarray, start: np.ndarray, count: np.ndarray) -> np.ndarray:
    cum = np.concatenate([[0.0], np.cumsum(lengths, dtype=np.float64)])
    return cum[start + count] - cum[start]


_ENDS = frozenset(".!?…»«\"'”“)")


def _open_sides(texts, s0, a, t0, b) -> tuple[np.ndarray, np.ndarray]:
    """Per bead: how many sides end with no sentence end, and how many start lowercase."""
    ends, starts = [], []
    for side in texts:
        ends.append(np.array([s.rstrip()[-1:] not in _ENDS for s in side], dtype=np.float64))
        starts.append(np.array([s.lstrip()[:1].islower() for s in side], dtype=np.float64))
    open_end = np.zeros(len(a))
    open_start = np.zeros(len(a))
    for k, (start, count) in enumerate(((s0, a), (t0, b))):
        has = count > 0
        last = np.clip(start + count - 1, 0, max(len(ends[k]) - 1, 0))
        first = np.clip(start, 0, max(len(ends[k]) - 1, 0))
        if len(ends[k]):
            open_end += np.where(has, ends[k][last], 0.0)
            open_start += np.where(has, starts[k][first], 0.0)
    return open_end, open_start


def _paired_columns(is_paired, cost, cos, best_out, a, b, chars, ev, s0, t0, model):
    ls = _side_chars(ev.src_len, s0, a)
    lt = _side_chars(ev.tgt_len, t0, b)
    mean = np.maximum((ls + lt / model.ratio) / 2.0, 1.0)
    delta = np.abs(lt - ls * model.ratio) / np.sqrt(mean * model.var)
    length = -np.log(np.maximum(erfc(delta / math.sqrt(2.0)), 1e-300))
    null_next = np.zeros(len(a), dtype=bool)
    null_next[:-1] |= ~is_paired[1:]
    null_next[1:] |= ~is_paired[:-1]
    # the paired neighbours' cosines: carry the last paired bead's cosine forward / backward
    paired_cos = np.where(is_paired, cos, np.nan)
    before = _shift_fill(paired_cos, forward=True)
    after = _shift_fill(paired_cos, forward=False)
    neighbours = np.fmin(before, after)
    neighbours = np.where(np.isnan(neighbours), cos, neighbours)
    rows = np.column_stack(
        [
            np.ones(len(a)),
            cost / np.maximum(a + b, 1),
            cos,
            cos - best_out,
            np.minimum(length, 20.0),
            (a == 1) & (b == 1),
            a + b >= 4,
            null_next,
            neighbours,
            np.log1p(chars),
        ]
    ).astype(np.float64)
    return rows


def _shift_fill(values: np.ndarray, *, forward: bool) -> np.ndarray:
    """For each position, the last non-NaN value strictly before it (``forward``) or the
    first strictly after it; NaN where there is none."""
    v = values if forward else values[::-1]
    idx = np.where(~np.isnan(v), np.arange(len(v)), -1)
    last = np.maximum.accumulate(idx) if len(v) else idx
    prev = np.concatenate([[-1], last[:-1]])
    out = np.where(prev >= 0, v[np.maximum(prev, 0)], np.nan)
    return out if forward else out[::-1]


def _bead_cosines(ev: Evidence, s0, a, t0, b, kernels):
    """Per bead: the cosine of its two sides' summed vectors, the best cosine of one of its
    sentences with the sentence just before or after the bead on the other side, and the
    lowest cosine of one of its sentences with the other side's sum."""
    n, m = len(ev.src_len), len(ev.tgt_len)
    bead_of_s = np.repeat(np.arange(len(a)), a)
    bead_of_t = np.repeat(np.arange(len(b)), b)
    # source sentence s against the target sentences t0 - 1 … t0 + 4 of its bead
    st = np.zeros((n, _WINDOW))
    kernels.band_dots(*ev.src_vec, *ev.tgt_vec, (t0[bead_of_s] - 1).astype(np.int64), st)
    ts = np.zeros((m, _WINDOW))
    kernels.band_dots(*ev.tgt_vec, *ev.src_vec, (s0[bead_of_t] - 1).astype(np.int64), ts)
    cols = np.arange(_WINDOW)
    inside = (cols >= 1) & (cols <= b[bead_of_s][:, None])
    dot = np.bincount(bead_of_s, weights=(st * inside).sum(axis=1), minlength=len(a))
    src_sq = _side_square(ev.src_vec, bead_of_s, s0, a, kernels)
    tgt_sq = _side_square(ev.tgt_vec, bead_of_t, t0, b, kernels)
    denom = np.sqrt(src_sq * tgt_sq)
    cos = np.divide(dot, denom, out=np.zeros(len(a)), where=denom > 0)
    src_norm, tgt_norm = _norms(ev.src_vec), _norms(ev.tgt_vec)
    # each sentence against the other side's sum: the weakest member of the bead
    weakest = np.ones(len(a))
    ts_inside = (cols >= 1) & (cols <= a[bead_of_t][:, None])
    for rows, mask, bead_of, norm, other_sq in (
        (st, inside, bead_of_s, src_norm, tgt_sq),
        (ts, ts_inside, bead_of_t, tgt_norm, src_sq),
    ):
        scale = norm * np.sqrt(other_sq[bead_of])
        member = np.divide(
            (rows * mask).sum(axis=1), scale, out=np.zeros(len(rows)), where=scale > 0
        )
        np.minimum.at(weakest, bead_of, member)
    weakest = np.where((a > 0) & (b > 0), weakest, 0.0)
    best = np.zeros(len(a))
    np.maximum.at(best, bead_of_s, _best_outside(st, src_norm, tgt_norm, bead_of_s, t0, b))
    np.maximum.at(best, bead_of_t, _best_outside(ts, tgt_norm, src_norm, bead_of_t, s0, a))
    return cos, best, weakest


def _best_outside(dots, own_norm, other_norm, bead_of, other_start, other_count):
    """Per sentence: its best cosine with the other side's sentence just before its bead
    (``dots[:, 0]``) or just after it (``dots[:, count + 1]``)."""
    rows = np.arange(len(dots))
    best = np.zeros(len(dots))
    if not len(dots):
        return best
    start = other_start[bead_of]
    count = other_count[bead_of]
    after_col = np.minimum(count + 1, _WINDOW - 1)
    for col_dots, other in ((dots[:, 0], start - 1), (dots[rows, after_col], start + count)):
        valid = (other >= 0) & (other < len(other_norm))
        scale = own_norm * other_norm[np.clip(other, 0, max(len(other_norm) - 1, 0))]
        c = np.divide(col_dots, scale, out=np.zeros(len(dots)), where=valid & (scale > 0))
        best = np.maximum(best, c)
    return best


def _norms(vec) -> np.ndarray:
    ptr, _, val = vec
    sq = np.concatenate([[0.0], np.cumsum(val.astype(np.float64) ** 2)])
    return np.sqrt(sq[ptr[1:]] - sq[ptr[:-1]])


def _side_square(vec, bead_of, start, count, kernels) -> np.ndarray:
    """``|sum of the bead's sentence vectors|²`` per bead (0 for an empty side)."""
    rows = len(bead_of)
    width = 4
    gram = np.zeros((rows, width))
    if rows:
        kernels.band_dots(*vec, *vec, np.arange(rows, dtype=np.int64), gram)
    k = np.arange(width)
    pos = np.arange(rows) - start[bead_of] if rows else np.zeros(0, dtype=np.int64)
    left = count[bead_of] - 1 - pos if rows else pos
    weight = np.where(k == 0, 1.0, 2.0) * (k <= left[:, None])
    return np.bincount(bead_of, weights=(gram * weight).sum(axis=1), minlength=len(count))


def _null_rows(beads: list[RawBead], is_paired, ev: Evidence) -> np.ndarray:
    best = null_partner_cosines(beads, ev)
    return np.column_stack([np.ones(len(beads)), best])[~is_paired]


def null_partner_cosines(beads: list[RawBead], ev: Evidence, reach: int = 3) -> np.ndarray:
    """Per bead (0 for paired ones): the best cosine between a null bead's sentence and the
    other side's sentences near where the path passes it — those left alone in the same run
    of null beads (the DP orders a run's 1–0 and 0–1 beads arbitrarily) and ``reach`` more
    on each side. High: a likely partner beside it; near 0: no partner in sight."""
    out = np.zeros(len(beads))
    n, m = len(ev.src_len), len(ev.tgt_len)
    i = j = k = 0
    while k < len(beads):
        if beads[k].src and beads[k].tgt:
            i, j, k = i + len(beads[k].src), j + len(beads[k].tgt), k + 1
            continue
        end = k
        while end < len(beads) and not (beads[end].src and beads[end].tgt):
            end += 1
        run = beads[k:end]
        i1 = i + sum(len(b.src) for b in run)
        j1 = j + sum(len(b.tgt) for b in run)
        tgt_near = range(max(0, j - reach), min(m, j1 + reach))
        src_near = range(max(0, i - reach), min(n, i1 + reach))
        for q in range(k, end):
            b = beads[q]
            if b.src:
                near = (_cosine(ev.src_vec, b.src[0], ev.tgt_vec, o) for o in tgt_near)
            else:
                near = (_cosine(ev.tgt_vec, b.tgt[0], ev.src_vec, o) for o in src_near)
            out[q] = max(near, default=0.0)
        i, j, k = i1, j1, end
    return out


def _cosine(a_vec, a: int, b_vec, b: int) -> float:
    pa, ia, va = a_vec
    pb, ib, vb = b_vec
    x = dict(zip(ia[pa[a] : pa[a + 1]].tolist(), va[pa[a] : pa[a + 1]].tolist(), strict=True))
    y_idx, y_val = ib[pb[b] : pb[b + 1]], vb[pb[b] : pb[b + 1]]
    dot = sum(x.get(int(i), 0.0) * float(v) for i, v in zip(y_idx, y_val, strict=True))
    nx = math.sqrt(sum(v * v for v in x.values()))
    ny = float(np.sqrt((y_val**2).sum()))
    return dot / (nx * ny) if nx > 0 and ny > 0 else 0.0
