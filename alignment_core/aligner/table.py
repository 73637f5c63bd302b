"""The sparse translation table and the pieces both EM models share.

Only word pairs that co-occur in some sentence pair get an entry (a dense V×V table would not
fit for large vocabularies). An entry is identified by its key ``src_id * n_tgt_vocab + tgt_id``
(ids from ``vocab``); ``keys`` is sorted, and an entry's index ``k`` is its position there.
Each direction has its own probability array over the same entries, plus two extra slots:
``k = K`` (a pair never seen in training) and ``k = K + 1`` (an unseen word facing an identical
word, when the identity lexicon is on).

Training no longer builds a cell table for the whole corpus: ``workspace`` keeps the table as
a CSR (``corpus_store``) and cells per chunk. ``build_table``, ``EStepRunner``,
``TNormaliser`` and ``sum_results`` remain as the whole-corpus layout that ``ibm1.train_ibm1``
and ``hmm.train_hmm`` run on: the reference the chunked EM is tested against
(tests/core/test_aligner_sparse_table.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from alignment_core.aligner.vocab import FlatCorpus

T = TypeVar("T")


@dataclass
class CellTable:
    """Per-pair cell → table-entry indices: ``cells[cell_off[n] + i*(M+1) + j]`` (0-based)."""

    cells: np.ndarray  # int32
    cell_off: np.ndarray  # int64, n_pairs + 1


@dataclass(frozen=True)
class Direction:
    """One direction of the model: ``transposed=False`` generates the target from the source."""

    name: str
    transposed: bool

    def cond(self, keys: np.ndarray, n_tgt_vocab: int) -> np.ndarray:
        """The conditioning word id of every table entry (int32), for normalising t."""
        ids = keys % n_tgt_vocab if self.transposed else keys // n_tgt_vocab
        return ids.astype(np.int32)

    def emitted(self, keys: np.ndarray, n_tgt_vocab: int) -> np.ndarray:
        """The emitted word id of every table entry (int32)."""
        ids = keys // n_tgt_vocab if self.transposed else keys % n_tgt_vocab
        return ids.astype(np.int32)


SOURCE_TO_TARGET = Direction("source→target", False)
TARGET_TO_SOURCE = Direction("target→source", True)
DIRECTIONS = (SOURCE_TO_TARGET, TARGET_TO_SOURCE)


def cell_offsets(corpus: FlatCorpus) -> np.ndarray:
    """Offsets of each pair's (N+1)×(M+1) block of cells."""
    sizes = (corpus.src_len() + 1) * (corpus.tgt_len() + 1)
    off = np.zeros(corpus.n_pairs + 1, dtype=np.int64)
    np.cumsum(sizes, out=off[1:])
    return off


def build_table(
    corpus: FlatCorpus, n_src_vocab: int, n_tgt_vocab: int, kernels
) -> tuple[np.ndarray, CellTable]:
    """All co-occurring word pairs (sorted keys) and every cell's entry index."""
    off = cell_offsets(corpus)
    raw = np.empty(int(off[-1]), dtype=np.int64)
    kernels.cell_keys(
        corpus.src, corpus.src_off, corpus.tgt, corpus.tgt_off, off, np.int64(n_tgt_vocab), raw
    )
    if len(raw) >= 2**31:
        raise ValueError("corpus too large for one table (2**31 cells); align it in parts")
    cells = np.empty(len(raw), dtype=np.int32)
    keys = kernels.unique_keys(raw, np.int64(n_src_vocab), np.int64(n_tgt_vocab), cells)
    return keys, CellTable(cells, off)


class EStepRunner:
    """Runs an E-step kernel over chunks of pairs, in a thread pool when there are several.

    Chunks are balanced by number of cells (the work of a pair grows with its size).
    """

    def __init__(self, table: CellTable, n_chunks: int, pool: ThreadPoolExecutor | None) -> None:
        n = len(table.cell_off) - 1
        n_chunks = max(1, min(n_chunks, n))
        work = table.cell_off.astype(np.float64)
        targets = np.linspace(0.0, work[-1], n_chunks + 1)
        cuts = np.searchsorted(work, targets[1:-1])
        bounds = [0, *sorted(set(int(c) for c in cuts)), n]
        self.bounds: list[tuple[int, int]] = [
            (lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo
        ] or [(0, n)]
        self.pool = pool

    def map(self, fn: Callable[[int, int], T]) -> list[T]:
        if self.pool is None or len(self.bounds) == 1:
            return [fn(lo, hi) for lo, hi in self.bounds]
        futures = [self.pool.submit(fn, lo, hi) for lo, hi in self.bounds]
        return [f.result() for f in futures]


@dataclass
class TNormaliser:
    """The t M-step of one direction: add-``alpha`` smoothing over each conditioning word's
    entries, skipping entries that emit NULL (never generated in this direction)."""

    cond: np.ndarray  # int32 conditioning word id per entry
    n_cond: int
    valid: np.ndarray  # bool per entry
    alpha: float

    @classmethod
    def for_direction(
        cls, d: Direction, keys: np.ndarray, n_src_vocab: int, n_tgt_vocab: int, alpha: float
    ) -> TNormaliser:
        n_cond = n_tgt_vocab if d.transposed else n_src_vocab
        valid = d.emitted(keys, n_tgt_vocab) != 0
        return cls(d.cond(keys, n_tgt_vocab), n_cond, valid, float(alpha))

    def mstep(self, kernels, counts: np.ndarray, t: np.ndarray) -> None:
        """``t[:K]`` from the counts (K = number of entries)."""
        K = len(self.cond)
        kernels.normalize_t(
            counts[:K], self.cond, np.int64(self.n_cond), self.valid, self.alpha, t[:K]
        )

    def log_prior(self, t: np.ndarray) -> float:
        """``alpha · Σ log t`` over valid entries: the smoothing's share of the EM objective."""
        if self.alpha == 0.0:
            return 0.0
        return self.alpha * float(np.log(np.maximum(t[: len(self.cond)][self.valid], 1e-300)).sum())


@dataclass
class Observed:
    """Whole counts from hand-aligned pairs for one direction, already multiplied by λ."""

    t: np.ndarray  # per table entry (length K)
    jumps: np.ndarray  # per jump class
    rows: np.ndarray  # [S, p] transitions out of last position p in sentences of S states


def jump_class_table(max_len: int, exact: int, buckets: int) -> tuple[np.ndarray, int, int]:
    """Jump classes for every jump ``d`` in ``[-max_len, max_len]``.

    Returns ``(table, offset, n_classes)``: the class of jump d is ``table[d + offset]``.
    ``|d| <= exact`` has its own class; wider jumps fall into log2-spaced buckets
    ``exact * 2**(b-1) < |d| <= exact * 2**b`` (b = 1..buckets, the last one open-ended).
    """
    offset = max(int(max_len), exact) + 1
    d = np.arange(-offset, offset + 1, dtype=np.int64)
    ad = np.abs(d)
    wide = ad > exact
    b = np.zeros_like(ad)
    if buckets > 0:
        b[wide] = np.minimum(np.ceil(np.log2(ad[wide] / exact)).astype(np.int64), buckets)
        b[wide] = np.maximum(b[wide], 1)
        mag = np.where(wide, exact + b, ad)
    else:
        mag = np.minimum(ad, exact)
    half = exact + buckets
    table = (np.sign(d) * mag + half).astype(np.int32)
    return table, offset, 2 * half + 1


def sum_results(results: Sequence[tuple[float, ...]]) -> tuple:
    """Element-wise sum of per-chunk (ll, arrays...) tuples."""
    first = results[0]
    if len(results) == 1:
        return first
    out = [sum(r[0] for r in results)]
    for idx in range(1, len(first)):
        acc = first[idx].copy()
        for r in results[1:]:
            acc += r[idx]
        out.append(acc)
    return tuple(out)
