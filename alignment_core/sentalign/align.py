"""Parallel sentence alignment: two passes of the banded DP, block anchors, bead confidences.

1. First pass, in a band around the diagonal: Gale–Church length cost plus the cosine of the
   lexical vectors (``lexical``: numbers, names, cognates, punctuation).
2. An IBM Model 1 (``ibm1``) is trained on the first pass's confident 1–1 / 1–2 / 2–1 beads in
   both directions and its translation vectors are added to the lexical ones.
3. Second pass in a band around the first pass's path.
4. Each bead's confidence: a calibrated probability that it is right (``confidence``).

With block structure (HTML), blocks are aligned first with the same DP (a block = its
sentences concatenated), and the sentences are then aligned inside each block bead: the block
boundaries are anchors the path must pass through (seed 003: tree first, then sentences).

``mode="gale-church"`` is plain Gale & Church (1993): lengths and their bead priors only, one
pass. It is the anchor the benchmark measures in the same run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from alignment_core.sentalign import confidence, ibm1
from alignment_core.sentalign._kernels import get_kernels
from alignment_core.sentalign.dp import (
    CostModel,
    Evidence,
    RawBead,
    bead_path,
    length_band,
    near_edge,
    path_band,
)
from alignment_core.sentalign.dp import run_dp as _run_dp
from alignment_core.sentalign.lexical import LexicalConfig, hstack_csr, vectorise

# Gale & Church's bead priors (1993, table 5), as −log P.
GALE_CHURCH_PRIORS = {
    (1, 1): -math.log(0.89),
    (1, 0): -math.log(0.0099 / 2),
    (0, 1): -math.log(0.0099 / 2),
    (2, 1): -math.log(0.089 / 2),
    (1, 2): -math.log(0.089 / 2),
    (2, 2): -math.log(0.011),
}

# The first pass's band width (cells per row) around the length diagonal, before widening.
FIRST_BAND = 128

FULL_TYPES: tuple[tuple[int, int], ...] = (
    (1, 1), (1, 0), (0, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2), (1, 4), (4, 1),
)  # fmt: skip


@dataclass(frozen=True)
class Bead:
    """Source and target sentence indices (0-based, consecutive; one side may be empty) and the
    aligner's confidence in [0, 1]."""

    src: tuple[int, ...]
    tgt: tuple[int, ...]
    confidence: float


@dataclass(frozen=True)
class ParallelConfig:
    mode: str = "full"  # "full" or "gale-church"
    lexical: LexicalConfig = field(default_factory=LexicalConfig)
    types: tuple[tuple[int, int], ...] = FULL_TYPES
    type_pen: dict[tuple[int, int], float] = field(
        default_factory=lambda: {
            (1, 2): 2.0, (2, 1): 2.0, (2, 2): 4.0, (1, 3): 4.0, (3, 1): 4.0,
            (2, 3): 6.0, (3, 2): 6.0, (1, 4): 6.0, (4, 1): 6.0,
        }
    )  # fmt: skip
    w_len: float = 1.0
    w_lex: float = 2.0
    null_cost: float = 4.0
    var: float = 6.8
    log_eps: float = 0.2
    band: int = 0  # first-pass band width in cells; 0 = automatic
    radius: int = 12  # second-pass band radius around the first path
    ibm1_iterations: int = 5
    ibm1_min_confidence: float = 0.9
    # at most this many EM cells (word pairs of the training beads); above it, a sample of
    # the beads spread over the document (bounds IBM1's memory; 0 = no bound)
    ibm1_max_cells: int = 2_000_000
    w_ibm1: float = 3.0
    second_pass: bool = True
    ibm1_passes: int = 1  # passes after the first, each retraining IBM1 on the last one's beads
    confidence_scale: float = 1.0


def align_parallel(
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    config: ParallelConfig | None = None,
    src_blocks: Sequence[int] | None = None,
    tgt_blocks: Sequence[int] | None = None,
    plain: bool | None = None,
) -> list[Bead]:
    """Beads covering every sentence of both sides exactly once, in order.

    ``src_blocks[i]`` / ``tgt_blocks[j]`` (optional) are the block numbers of the sentences
    (non-decreasing, e.g. from ``split.html_blocks``); given on both sides, block boundaries
    become anchors.
    """
    cfg = config or ParallelConfig()
    n, m = len(src), len(tgt)
    if n == 0 or m == 0:
        return [Bead((i,), (), 1.0) for i in range(n)] + [Bead((), (j,), 1.0) for j in range(m)]
    if src_blocks is not None and tgt_blocks is not None:
        return _align_with_blocks(src, tgt, list(src_blocks), list(tgt_blocks), cfg, plain)
    return _align_plain(src, tgt, cfg, plain)


def _align_plain(src, tgt, cfg: ParallelConfig, plain) -> list[Bead]:
    raw, ev, model, first = _raw_beads(src, tgt, cfg, plain)
    if cfg.mode == "gale-church":
        return [Bead(b.src, b.tgt, _cost_confidence(b, model, cfg)) for b in raw]
    probs = confidence.confidences(raw, ev, model, get_kernels(plain), (src, tgt), first)
    return [Bead(b.src, b.tgt, p) for b, p in zip(raw, probs, strict=True)]


@dataclass(frozen=True)
class BeadEvidence:
    """What the confidences of one alignment are computed from (for refitting them):
    the beads, their features (``confidence.PAIRED_FEATURES`` / ``NULL_FEATURES`` columns,
    paired and null beads apart, in order), and the confidences before calibration."""

    beads: list[RawBead]
    paired: np.ndarray
    null: np.ndarray
    is_paired: np.ndarray
    uncalibrated: list[float]


def bead_evidence(src, tgt, config: ParallelConfig | None = None, plain=None) -> BeadEvidence:
    """The full aligner's beads of two documents (no block anchors) with their features."""
    cfg = config or ParallelConfig()
    raw, ev, model, first = _raw_beads(src, tgt, cfg, plain)
    paired, null, is_paired = confidence.features(
        raw, ev, model, get_kernels(plain), (src, tgt), first
    )
    best = confidence.null_partner_cosines(raw, ev)
    old = [
        _cost_confidence(b, model, cfg) if b.src and b.tgt else 1.0 - float(best[k])
        for k, b in enumerate(raw)
    ]
    return BeadEvidence(raw, paired, null, is_paired, old)


def _raw_beads(src, tgt, cfg: ParallelConfig, plain):
    """``(beads, evidence, cost model, first path)``: the final pass's beads and what they
    were computed from, and the first pass's path (DP cells, an ``(k, 2)`` array)."""
    n, m = len(src), len(tgt)
    src_len = np.array([max(len(s), 1) for s in src], dtype=np.float64)
    tgt_len = np.array([max(len(t), 1) for t in tgt], dtype=np.float64)
    # Characters of target per character of source. The documents' totals include whatever
    # one side adds (captions, notes), so the ratio is taken within [2/3, 3/2]. (Re-estimating
    # it from the first pass's beads cost 0.015 strict F1 on Text+Berg dev.)
    ratio = float(np.clip(tgt_len.sum() / src_len.sum(), 2 / 3, 3 / 2))
    # The band follows the length diagonal (``length_band``) with a fixed width, so time and
    # memory grow linearly with the documents; where the path nears its edge it is recentred
    # on the path and doubled (``_run_widening``).
    width = min(m + 1, cfg.band or FIRST_BAND)
    row_lo = length_band(src_len, tgt_len, width)
    if cfg.mode == "gale-church":
        model = CostModel(
            types=tuple(GALE_CHURCH_PRIORS),
            type_pen=GALE_CHURCH_PRIORS,
            w_len=1.0,
            ratio=ratio,
            var=cfg.var,
            w_null_len=1.0,
        )
        ev = Evidence(src_len, tgt_len, _empty_csr(n), _empty_csr(m))
        beads = _run_widening(ev, model, row_lo, width, plain)
        return beads, ev, model, np.array(bead_path(beads), dtype=np.int64)
    model = CostModel(
        types=cfg.types,
        type_pen=cfg.type_pen,
        w_len=cfg.w_len,
        w_lex=cfg.w_lex,
        null_cost=cfg.null_cost,
        ratio=ratio,
        var=cfg.var,
        log_eps=cfg.log_eps,
    )
    src_vec, tgt_vec = vectorise(src, tgt, cfg.lexical)
    ev = Evidence(src_len, tgt_len, src_vec, tgt_vec)
    beads = _run_widening(ev, model, row_lo, width, plain)
    first = np.array(bead_path(beads), dtype=np.int64)
    lexical_ev = ev
    for _ in range(cfg.ibm1_passes if cfg.second_pass else 0):
        ev = _with_ibm1(src, tgt, lexical_ev, beads, model, cfg)
        row_lo2, width2 = path_band(bead_path(beads), n, m, cfg.radius)
        beads, _ = _run_dp(ev, model, row_lo2, width2, plain=plain)
    return beads, ev, model, first


def _run_widening(ev: Evidence, model: CostModel, row_lo, width: int, plain) -> list[RawBead]:
    """The DP in the band; while its path comes near an inner edge of the band (the best path
    may lie outside it), the band is recentred on that path, doubled, and the DP run again.
    Each round at least doubles the width, so the rounds cost at most twice the last one."""
    n, m = len(ev.src_len), len(ev.tgt_len)
    while True:
        beads, _ = _run_dp(ev, model, row_lo, width, plain=plain)
        path = bead_path(beads)
        if width >= m + 1 or not near_edge(path, row_lo, width, m):
            return beads
        row_lo, width = path_band(path, n, m, width)


def _align_with_blocks(src, tgt, src_blocks, tgt_blocks, cfg, plain) -> list[Bead]:
    s_groups = _groups(src_blocks)
    t_groups = _groups(tgt_blocks)
    s_text = [" ".join(src[i] for i in g) for g in s_groups]
    t_text = [" ".join(tgt[j] for j in g) for g in t_groups]
    block_cfg = replace(cfg, second_pass=False)
    out: list[Bead] = []
    for bb in _align_plain(s_text, t_text, block_cfg, plain):
        s_ids = [i for g in bb.src for i in s_groups[g]]
        t_ids = [j for g in bb.tgt for j in t_groups[g]]
        inner = align_parallel(
            [src[i] for i in s_ids], [tgt[j] for j in t_ids], config=cfg, plain=plain
        )
        for b in inner:
            out.append(
                Bead(tuple(s_ids[i] for i in b.src), tuple(t_ids[j] for j in b.tgt), b.confidence)
            )
    return out


def _groups(blocks: list[int]) -> list[list[int]]:
    groups: list[list[int]] = []
    last = None
    for k, blk in enumerate(blocks):
        if blk != last:
            groups.append([])
            last = blk
        groups[-1].append(k)
    return groups


def _cost_confidence(bead: RawBead, model: CostModel, cfg: ParallelConfig) -> float:
    """A bead's own cost squashed to (0, 1): 0.5 at the cost of leaving one sentence
    unaligned (``null_cost``), higher for cheaper beads; null beads 0.5. Not a probability
    (``confidence`` makes those): it picks the beads IBM1 trains on, and gives the plain
    Gale–Church mode its confidences."""
    if not bead.src or not bead.tgt:
        return 0.5
    pivot = model.null_cost or 4.0
    z = (bead.cost - pivot) / cfg.confidence_scale
    return float(1.0 / (1.0 + math.exp(min(z, 700.0))))


def _empty_csr(rows: int):
    return np.zeros(rows + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)


def _with_ibm1(src, tgt, ev: Evidence, beads, model: CostModel, cfg: ParallelConfig) -> Evidence:
    """Add both IBM1 directions' translation vectors, trained on the confident beads."""
    s_words, t_words = ibm1.word_ids(src), ibm1.word_ids(tgt)
    train = _training_beads(beads, s_words, t_words, model, cfg)
    ns, nt = s_words.vocab, t_words.vocab
    fwd = ibm1.train_ibm1(train, ns, nt, cfg.ibm1_iterations)
    rev = ibm1.train_ibm1([(t, s) for s, t in train], nt, ns, cfg.ibm1_iterations)
    del train
    s_fwd, t_bag = ibm1.translation_vectors(s_words, t_words, fwd, ibm1.idf(t_words))
    t_rev, s_bag = ibm1.translation_vectors(t_words, s_words, rev, ibm1.idf(s_words))
    del fwd, rev, s_words, t_words
    w = math.sqrt(cfg.w_ibm1)
    for _, _, values in (s_fwd, t_bag, t_rev, s_bag):
        values *= w  # in place: the four are fresh arrays
    base = int(max(ev.src_vec[1].max(initial=-1), ev.tgt_vec[1].max(initial=-1))) + 1
    src_vec = hstack_csr([(ev.src_vec, 0), (s_fwd, base), (s_bag, base + nt)])
    del s_fwd, s_bag
    tgt_vec = hstack_csr([(ev.tgt_vec, 0), (t_bag, base), (t_rev, base + nt)])
    return Evidence(ev.src_len, ev.tgt_len, src_vec, tgt_vec)


def _training_beads(beads, s_words, t_words, model: CostModel, cfg: ParallelConfig):
    """The confident non-null beads' words (views, not copies); when their EM cells
    ((source words + NULL) × target words) exceed ``cfg.ibm1_max_cells``, every k-th of them,
    spread over the whole document."""
    chosen = [
        (b.src[0], b.src[-1], b.tgt[0], b.tgt[-1])
        for b in beads
        if b.src and b.tgt and _cost_confidence(b, model, cfg) >= cfg.ibm1_min_confidence
    ]
    if not chosen:
        return []
    ends = np.array(chosen, dtype=np.int64)
    s_len = s_words.ptr[ends[:, 1] + 1] - s_words.ptr[ends[:, 0]]
    t_len = t_words.ptr[ends[:, 3] + 1] - t_words.ptr[ends[:, 2]]
    cells = int(((s_len + 1) * t_len).sum())
    step = math.ceil(cells / cfg.ibm1_max_cells) if cfg.ibm1_max_cells else 1
    return [(s_words.span(a, b), t_words.span(c, d)) for a, b, c, d in chosen[:: max(step, 1)]]
