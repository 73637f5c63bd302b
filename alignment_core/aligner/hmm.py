"""HMM alignment model trained by EM for one direction (Vogel, Ney & Tillmann 1996; Och & Ney
2003), with an empty word and supervised counts.

* Emission: ``t(emitted | state word)``; the NULL states emit with ``t(emitted | NULL)``.
* Transition to a real position i from last real position i' (``-1`` before the first):
  ``(1 - p0) · w[c(i - i')] / Σ_i'' w[c(i'' - i')]``, ``c`` = jump-width class
  (``table.jump_class_table``); into the empty word: ``p0`` (fixed, ``null_prob``), which keeps
  i' so the jump after an unaligned word is measured from the last aligned one (GIZA's scheme).
* M-step: t as in IBM1; jump weights by MM iterations on the row-normalised likelihood
  (``_kernels.jump_mstep``), which keeps EM monotone — plain "normalise the jump counts"
  (Vogel) is not an exact M-step for this model.
* The recorded log-likelihood is the objective EM climbs, ``(1 - λ) · Σ log p(unlabelled) +
  λ · complete log-lik of the observed counts`` (up to constants).

The loops here run over one cell table of the whole corpus (``table.build_table``); training
runs the same E-step kernels chunk by chunk instead (``workspace``, ``em_chunks``), and these
loops are the reference it is tested against.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alignment_core.aligner.ibm1 import observed_t_loglik
from alignment_core.aligner.table import (
    CellTable,
    Direction,
    EStepRunner,
    Observed,
    TNormaliser,
    sum_results,
)

# MM iterations per M-step for the jump weights (each one raises the objective; 20 is plenty).
MM_ITERATIONS = 20

_EMPTY = np.zeros(0)
_EMPTY_OFF = np.zeros(1, dtype=np.int64)


def train_hmm(
    *,
    kernels,
    table: CellTable,
    src_off: np.ndarray,
    tgt_off: np.ndarray,
    weights: np.ndarray,
    direction: Direction,
    norm: TNormaliser,
    t: np.ndarray,
    jump_weights: np.ndarray,
    jclass: np.ndarray,
    jofs: int,
    max_states: int,
    null_prob: float,
    end_jump: bool,
    iterations: int,
    observed: Observed | None,
    runner: EStepRunner,
    on_iteration: Callable[[int], None] = lambda it: None,
) -> list[float]:
    """Run ``iterations`` EM iterations, updating ``t`` and ``jump_weights`` in place.

    ``max_states`` bounds the number of states (sentence length on the state side).
    Returns the log-likelihood at the start of each iteration (non-decreasing).
    """
    # ``t`` and ``jump_weights`` are updated in place, so one E-step serves every iteration
    estep = _estep(
        kernels, table, src_off, tgt_off, weights, direction, t, jump_weights, jclass, jofs,
        max_states, null_prob, end_jump, len(norm.cond),
    )  # fmt: skip
    lls: list[float] = []
    for it in range(iterations):
        ll, counts, jumps, rows = sum_results(runner.map(estep))
        if observed is not None:
            ll += observed_t_loglik(observed, t)
            ll += kernels.jump_loglik(
                observed.jumps, observed.rows, jump_weights, jclass, np.int64(jofs), end_jump
            )
            counts += observed.t
            jumps += observed.jumps
            rows += observed.rows
        ll += norm.log_prior(t)
        lls.append(float(ll))
        norm.mstep(kernels, counts, t)
        jump_weights[:] = kernels.jump_mstep(
            jumps, rows, jump_weights, jclass, np.int64(jofs), end_jump, MM_ITERATIONS
        )
        on_iteration(it)
    return lls


def _estep(
    kernels, table, src_off, tgt_off, weights, direction, t, jump_weights, jclass, jofs,
    max_states, null_prob, end_jump, n_entries,
) -> Callable[[int, int], tuple[float, np.ndarray, np.ndarray, np.ndarray]]:  # fmt: skip
    """The E-step over pairs lo..hi-1 (a chunk): log-likelihood, expected translation counts,
    jumps per class and jumps out of each row."""

    def estep(lo: int, hi: int) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        counts = np.zeros(n_entries)
        jumps = np.zeros(len(jump_weights))
        rows = np.zeros((max_states + 1, max_states + 1))
        ll = kernels.hmm_forward_backward(
            src_off, tgt_off, table.cells, table.cell_off, weights, lo, hi,
            direction.transposed, t, jump_weights, jclass, np.int64(jofs), null_prob, end_jump,
            True, counts, jumps, rows, _EMPTY, _EMPTY_OFF,
        )  # fmt: skip
        return ll, counts, jumps, rows

    return estep


def initial_jump_weights(n_classes: int) -> np.ndarray:
    """Uniform jump weights: the first HMM E-step sees every position as equally likely."""
    return np.full(n_classes, 1.0 / n_classes)
