"""``PairInputs``: the input rows of a pair that depend on the pair alone once a seed model is
trained, kept so that each pair's are computed once.

Training reads the unsupervised HMM's cell features and the outside resources' columns of the
gold pairs; the second round (``pseudo_gold``) reads them for the pairs without gold; and the
caller then aligns every pair, which read them all again (a third of a fresh process's
training plus aligning, most of it WordNet's lookups, in Python). Those rows depend only on a
pair's tokens and on what the model fixed in training (its HMM, token statistics and
resources), and each pair's rows are the same whichever other pairs they are computed with
(tests check both), so the model keeps them per pair and reads them back.

Bounded: at most ``budget`` cells per kind (``INPUT_CELLS``); pairs beyond it are computed
when asked, as before. Edinburgh++'s 1,020 pairs are 603k cells (~220 MB of float32 rows)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]

# Cells whose rows a model keeps, per kind of rows (~0.2 kB a cell for the cell features and
# as much for the outside resources' columns): ~400 MB at most.
INPUT_CELLS = 1_000_000


def pair_key(pair: tuple[Sequence[str], Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    """What a pair's rows are kept under: its tokens."""
    source, target = pair
    return (tuple(source), tuple(target))


class PairInputs:
    """Per kind of input block and per pair (by its tokens): the pair's rows of that block, in
    the cell order of ``features.CellGrid`` (row-major, one row per cell)."""

    def __init__(self, budget: int = INPUT_CELLS) -> None:
        self.budget = budget
        self._rows: dict[str, dict[tuple, np.ndarray]] = {}
        self._cells: dict[str, int] = {}
        self._lock = threading.Lock()

    def cells(self, kind: str) -> int:
        """How many cells' rows of ``kind`` are kept."""
        return self._cells.get(kind, 0)

    def room(self, kind: str) -> int:
        """How many more cells' rows of ``kind`` may be kept."""
        return max(self.budget - self.cells(kind), 0)

    def keep(self, kind: str, pairs: TokenPairs, block: np.ndarray) -> None:
        """Keep each pair's rows of ``block`` (the rows of ``pairs``, in order), while there
        is room; a pair kept already keeps its rows."""
        offsets = np.cumsum([0] + [len(s) * len(t) for s, t in pairs])
        if offsets[-1] != len(block):
            raise ValueError(f"{len(block)} rows for {offsets[-1]} cells")
        with self._lock:
            kept = self._rows.setdefault(kind, {})
            for n, pair in enumerate(pairs):
                size = int(offsets[n + 1] - offsets[n])
                key = pair_key(pair)
                if key in kept or self._cells.get(kind, 0) + size > self.budget:
                    continue
                kept[key] = block[offsets[n] : offsets[n + 1]]
                self._cells[kind] = self._cells.get(kind, 0) + size

    def rows(
        self, kind: str, pairs: TokenPairs, compute: Callable[[TokenPairs], np.ndarray]
    ) -> np.ndarray:
        """``compute(pairs)``: the kept pairs' rows read back, the others computed (together,
        in one call) and kept while there is room."""
        kept = self._rows.get(kind, {})
        found = [kept.get(pair_key(p)) for p in pairs]
        missing = [n for n, rows in enumerate(found) if rows is None]
        if len(missing) == len(pairs):
            block = compute(pairs)
            self.keep(kind, pairs, block)
            return block
        if missing:
            chosen = [pairs[n] for n in missing]
            block = compute(chosen)
            self.keep(kind, chosen, block)
            offsets = np.cumsum([0] + [len(s) * len(t) for s, t in chosen])
            for k, n in enumerate(missing):
                found[n] = block[offsets[k] : offsets[k + 1]]
        return np.concatenate(found)
