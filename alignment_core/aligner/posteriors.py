"""Link posteriors as stored and sent: one byte a cell. ``POSTERIOR_SCALE`` is the one
definition of the scale (the database's ``SeedAlignment.posteriors`` and the grid page's JSON
both carry round(255·p)); ``quantise_posteriors`` and ``dequantise_posteriors`` turn an N×M
matrix into those bytes and back."""

from __future__ import annotations

import numpy as np

POSTERIOR_SCALE = 255  # one byte a cell: round(255·p)


def quantise_posteriors(matrix: np.ndarray) -> bytes:
    """An N×M matrix of link posteriors in [0, 1] as stored: one byte a cell, round(255·p)
    (values outside [0, 1] clipped), row-major (cell (i, j) at byte i·M + j)."""
    scaled = np.rint(np.clip(np.asarray(matrix, dtype=np.float64), 0.0, 1.0) * POSTERIOR_SCALE)
    return np.ascontiguousarray(scaled, dtype=np.uint8).tobytes()


def dequantise_posteriors(raw: bytes, rows: int, cols: int) -> np.ndarray:
    """The stored bytes back as an N×M float matrix (each cell within 1/510 of the original)."""
    return np.frombuffer(bytes(raw), dtype=np.uint8).reshape(rows, cols) / POSTERIOR_SCALE
