"""Posteriors as bytes: the one scale the database and the grid page share."""

from __future__ import annotations

import numpy as np

from alignment_core.aligner.posteriors import (
    POSTERIOR_SCALE,
    dequantise_posteriors,
    quantise_posteriors,
)


def test_one_byte_a_cell_row_major_within_half_a_step():
    rng = np.random.default_rng(3)
    matrix = rng.random((4, 7))
    matrix[0, 0], matrix[3, 6] = 0.0, 1.0
    raw = quantise_posteriors(matrix)
    assert len(raw) == 4 * 7 and raw[0] == 0 and raw[-1] == POSTERIOR_SCALE == 255
    # cell (i, j) at byte i·M + j, written from the definition: the nearest of 0/255 … 255/255
    for i, j in ((1, 2), (2, 6), (3, 0)):
        nearest = min(range(256), key=lambda b: abs(b / 255 - matrix[i, j]))
        assert raw[i * 7 + j] == nearest
    back = dequantise_posteriors(raw, 4, 7)
    assert back.shape == (4, 7) and np.abs(back - matrix).max() <= 0.5 / 255 + 1e-12


def test_noise_outside_zero_one_is_clipped_and_bytes_round_trip():
    assert quantise_posteriors(np.array([[-0.01, 1.02]])) == bytes([0, 255])
    every = bytes(range(256))
    assert quantise_posteriors(dequantise_posteriors(every, 16, 16)) == every
