"""IBM Model 1 trained by EM for one direction (Brown et al. 1993), with supervised counts.

Model: each emitted word picks a state word (a position of the other sentence or NULL)
uniformly, ``1 / (S + 1)``, and is generated with ``t(emitted | state word)``.

M-step (seeds/004): ``counts = (1 - λ) · expected + λ · observed``; the ``1 - λ`` factor is
carried by the pair weights, λ by ``Observed``. The log-likelihood recorded per iteration is
the objective EM climbs: ``(1 - λ) · Σ log p(unlabelled pairs) + λ · Σ observed · log t``
(up to constants), evaluated with the parameters the iteration starts from.

The loops here run over one cell table of the whole corpus (``table.build_table``); training
runs the same E-step kernels chunk by chunk instead (``workspace``, ``em_chunks``), and these
loops are the reference it is tested against.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alignment_core.aligner.table import (
    CellTable,
    Direction,
    EStepRunner,
    Observed,
    TNormaliser,
    sum_results,
)


def observed_t_loglik(observed: Observed | None, t: np.ndarray) -> float:
    """``Σ observed_k · log t_k`` over entries with observed counts."""
    if observed is None:
        return 0.0
    mask = observed.t > 0
    if not mask.any():
        return 0.0
    return float(np.dot(observed.t[mask], np.log(np.maximum(t[: len(observed.t)][mask], 1e-300))))


def train_ibm1(
    *,
    kernels,
    table: CellTable,
    src_off: np.ndarray,
    tgt_off: np.ndarray,
    weights: np.ndarray,
    direction: Direction,
    norm: TNormaliser,
    t: np.ndarray,
    iterations: int,
    observed: Observed | None,
    runner: EStepRunner,
    on_iteration: Callable[[int], None] = lambda it: None,
) -> list[float]:
    """Run ``iterations`` EM iterations, updating ``t`` (length ≥ K) in place.

    Returns the log-likelihood at the start of each iteration (non-decreasing).
    """
    K = len(norm.cond)
    lls: list[float] = []
    for it in range(iterations):

        def estep(lo: int, hi: int) -> tuple[float, np.ndarray]:
            counts = np.zeros(K)
            ll = kernels.ibm1_estep(
                src_off,
                tgt_off,
                table.cells,
                table.cell_off,
                weights,
                lo,
                hi,
                direction.transposed,
                t,
                counts,
            )
            return ll, counts

        ll, counts = sum_results(runner.map(estep))
        if observed is not None:
            counts += observed.t
            ll += observed_t_loglik(observed, t)
        ll += norm.log_prior(t)
        lls.append(float(ll))
        norm.mstep(kernels, counts, t)
        on_iteration(it)
    return lls
