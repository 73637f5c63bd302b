"""Observed counts from hand-aligned pairs (Callison-Burch, Talbot & Osborne 2004; seeds/004).

A pair with a gold alignment skips the E-step; it adds whole counts to the M-step of both
models and both directions, weighted λ (the other pairs' expected counts weigh 1 − λ).

How gold links become counts, per direction (the emitted side's words each carry one unit):

* an emitted word with links splits its unit over them in proportion to the link weights —
  1 for a sure link, ``gold_possible_weight`` for a possible one (both kinds are links in
  A_P, SPEC §1; possible links mark real but less certain correspondences);
* an emitted word without links (or only zero-weight ones) counts once for NULL;
* a state word without links generates nothing in that direction (it is counted, as NULL,
  by the opposite direction, where it is emitted);
* HMM jumps are counted from the previous linked emitted word's states (position -1 at the
  start) to this word's states, weighted by both shares; unlinked words are skipped, as the
  model's null states keep the last position. The jump into NULL has fixed probability p0
  and gets no count.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from alignment_core.aligner.table import CellTable, Direction, Observed
from alignment_core.alignment import Alignment


class GoldLinks:
    """Gold links of some corpus pairs as flat arrays for the ``observed_counts`` kernel."""

    def __init__(
        self,
        gold: Mapping[int, Alignment],
        src_len: np.ndarray,
        tgt_len: np.ndarray,
        possible_weight: float,
    ) -> None:
        idx = sorted(int(n) for n in gold)
        s: list[int] = []
        t: list[int] = []
        w: list[float] = []
        off = [0]
        for n in idx:
            if not 0 <= n < len(src_len):
                raise ValueError(
                    f"gold alignment for pair index {n}, but there are {len(src_len)} pairs"
                )
            alignment = gold[n]
            try:
                alignment.validate(int(src_len[n]), int(tgt_len[n]))
            except ValueError as exc:
                raise ValueError(f"gold alignment of pair {n}: {exc}") from exc
            for i, j in sorted(alignment.sure):
                s.append(i)
                t.append(j)
                w.append(1.0)
            for i, j in sorted(alignment.possible):
                s.append(i)
                t.append(j)
                w.append(possible_weight)
            off.append(len(s))
        self.pair_idx = np.asarray(idx, dtype=np.int64)
        self.link_s = np.asarray(s, dtype=np.int64)
        self.link_t = np.asarray(t, dtype=np.int64)
        self.link_w = np.asarray(w, dtype=np.float64)
        self.link_off = np.asarray(off, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.pair_idx)


def observed_counts(
    *,
    kernels,
    gold: GoldLinks,
    table: CellTable,
    src_off: np.ndarray,
    tgt_off: np.ndarray,
    direction: Direction,
    n_entries: int,
    n_classes: int,
    max_states: int,
    jclass: np.ndarray,
    jofs: int,
    end_jump: bool,
    weight: float,
) -> Observed:
    """Whole counts of ``gold`` for one direction, multiplied by ``weight`` (λ)."""
    t = np.zeros(n_entries)
    jumps = np.zeros(n_classes)
    rows = np.zeros((max_states + 1, max_states + 1))
    kernels.observed_counts(
        src_off,
        tgt_off,
        table.cells,
        table.cell_off,
        gold.pair_idx,
        gold.link_s,
        gold.link_t,
        gold.link_w,
        gold.link_off,
        direction.transposed,
        jclass,
        np.int64(jofs),
        end_jump,
        t,
        jumps,
        rows,
    )
    t *= weight
    jumps *= weight
    rows *= weight
    return Observed(t, jumps, rows)
