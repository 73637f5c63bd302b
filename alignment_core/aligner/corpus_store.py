"""The training corpus on disk, encoded while it streams in, and its sparse translation table.

Memory is bounded by the vocabulary and one chunk, never by the corpus:

* ``encode_chunks`` reads token pairs one at a time, maps words to ids (``vocab``), and every
  ``chunk_pairs`` pairs writes one chunk file ``chunks/cNNNNN.npz``: the chunk's flat ids and
  offsets (``FlatCorpus``, offsets local to the chunk), and its cells as indices into the
  chunk's own sorted list of distinct word pairs (``cells``, ``cell_off``; the layout of
  ``_kernels``). The identity lexicon's one-word pairs (``[w], [w]``) follow as the last chunks.
* ``build_table`` merges the chunks' word pairs into the CSR table (``row_off``: int64 per
  source id + 1, ``col``: int32 target id per entry, entries sorted by (source, target)) and
  writes each chunk's ``entries`` (int32: the table index of each of its distinct pairs, so
  ``entries[cells]`` are the chunk's cells as table indices). It works source-id range by
  range, so only one range's keys are in memory at a time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alignment_core.aligner.table import cell_offsets
from alignment_core.aligner.vocab import FlatCorpus, Vocabulary, normalise_tokens

# The keys a table range holds at most (with repeats across chunks) while it is merged.
RANGE_KEYS = 1_500_000
_SHIFT = np.int64(32)
_LOW = np.int64(0xFFFFFFFF)


# np.load parses each header with ast.literal_eval, which CPython 3.11 cannot run in two
# threads at once ("AST constructor recursion depth mismatch"): E-steps on threads load under it.
LOAD_LOCK = threading.Lock()


def chunk_name(chunk: int, suffix: str = ".npz") -> str:
    """A chunk's name in the workspace's store (``workspace_store``)."""
    return f"chunks/c{chunk:05d}{suffix}"


def save_atomic(path: Path, writer) -> None:
    """Write ``path`` through a temporary file in the same folder and ``os.replace``: a reader
    sees the old file or the whole new one, never a part."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        writer(fh)
    os.replace(tmp, path)


@dataclass
class Encoded:
    """What streaming the corpus learnt (besides the chunk files)."""

    src_vocab: Vocabulary
    tgt_vocab: Vocabulary
    n_pairs: int  # corpus pairs (without the lexicon's)
    chunk_starts: list[int]  # first pair of each chunk (corpus, then lexicon chunks)
    lexicon: list[str]
    src_freq: np.ndarray  # corpus tokens per source id
    tgt_freq: np.ndarray
    gold_pairs: dict[int, tuple[np.ndarray, np.ndarray]]  # pair index → (src ids, tgt ids)
    max_len: int


class _Encoder:
    def __init__(self, store, chunk_pairs: int, kernels, keep: set[int]) -> None:
        self.store, self.chunk_pairs, self.kernels, self.keep = store, chunk_pairs, kernels, keep
        self.src_vocab, self.tgt_vocab = Vocabulary(), Vocabulary()
        self.seen: dict[str, None] = {}
        self.src: list[int] = []
        self.tgt: list[int] = []
        self.src_len: list[int] = []
        self.tgt_len: list[int] = []
        self.starts: list[int] = []
        self.n = 0
        self.max_len = 1
        self.src_freq = np.zeros(0, dtype=np.int64)
        self.tgt_freq = np.zeros(0, dtype=np.int64)
        self.gold: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def add(self, source: Sequence[str], target: Sequence[str], lexicon: bool) -> None:
        s = self._ids(self.src_vocab, source, lexicon)
        t = self._ids(self.tgt_vocab, target, lexicon)
        if self.n in self.keep:
            self.gold[self.n] = (np.asarray(s, np.int32), np.asarray(t, np.int32))
        if not self.src_len:
            self.starts.append(self.n)
        self.src.extend(s)
        self.tgt.extend(t)
        self.src_len.append(len(s))
        self.tgt_len.append(len(t))
        self.max_len = max(self.max_len, len(s), len(t))
        self.n += 1
        if len(self.src_len) >= self.chunk_pairs:
            self.flush(lexicon)

    def _ids(self, vocab: Vocabulary, words: Sequence[str], lexicon: bool) -> list[int]:
        """The words' ids, adding new ones; a word new to either side's vocabulary may be new
        to the lexicon too (a word already in it was seen, so only these are checked)."""
        index = vocab._index
        out = []
        for w in words:
            i = index.get(w)
            if i is None:
                i = vocab.add(w)
                if not lexicon:
                    self.seen.setdefault(w, None)
            out.append(i)
        return out

    def flush(self, lexicon: bool) -> None:
        if not self.src_len:
            return
        corpus = FlatCorpus(
            np.asarray(self.src, np.int32), _offsets(self.src_len),
            np.asarray(self.tgt, np.int32), _offsets(self.tgt_len),
        )  # fmt: skip
        self.src, self.tgt, self.src_len, self.tgt_len = [], [], [], []
        if not lexicon:
            self.src_freq = _add_counts(self.src_freq, corpus.src, len(self.src_vocab))
            self.tgt_freq = _add_counts(self.tgt_freq, corpus.tgt, len(self.tgt_vocab))
        _write_chunk(self.store, len(self.starts) - 1, corpus, self.kernels, self.src_vocab,
                     self.tgt_vocab)  # fmt: skip


def _offsets(lengths: list[int]) -> np.ndarray:
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=off[1:])
    return off


def _add_counts(acc: np.ndarray, ids: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=np.int64)
    out[: len(acc)] = acc
    out += np.bincount(ids, minlength=size)[:size]
    return out


def _write_chunk(store, index, corpus, kernels, src_vocab, tgt_vocab) -> None:
    """One chunk's ids, its cells (local indices) and its sorted distinct keys (packed
    ``src << 32 | tgt``, so they compare as (source, target) whatever the vocabularies grow to)."""
    cell_off = cell_offsets(corpus)
    n_src, n_tgt = np.int64(len(src_vocab)), np.int64(len(tgt_vocab))
    raw = np.empty(int(cell_off[-1]), dtype=np.int64)
    kernels.cell_keys(corpus.src, corpus.src_off, corpus.tgt, corpus.tgt_off, cell_off, n_tgt, raw)
    if len(raw) >= 2**31:
        raise ValueError("a chunk has 2**31 cells or more; use smaller chunks")
    cells = np.empty(len(raw), dtype=np.int32)
    uniq = kernels.unique_keys(raw, n_src, n_tgt, cells)
    del raw
    keys = ((uniq // n_tgt) << _SHIFT) | (uniq % n_tgt)

    store.save_arrays(chunk_name(index), {"src": corpus.src, "src_off": corpus.src_off,
                      "tgt": corpus.tgt, "tgt_off": corpus.tgt_off, "cells": cells,
                      "cell_off": cell_off})  # fmt: skip
    store.save(chunk_name(index, ".keys.npy"), keys)


def encode_chunks(
    store,
    pairs: Iterable[tuple[Sequence[str], Sequence[str]]],
    *,
    chunk_pairs: int,
    lowercase: bool,
    identity_lexicon: bool,
    gold_indices: set[int],
    kernels,
) -> Encoded:
    """Stream ``pairs`` into chunk files in ``store`` (see the module docstring)."""
    enc = _Encoder(store, chunk_pairs, kernels, gold_indices)
    for source, target in pairs:
        enc.add(normalise_tokens(source, lowercase), normalise_tokens(target, lowercase), False)
    enc.flush(False)
    n_pairs = enc.n
    lexicon = list(enc.seen) if identity_lexicon else []
    enc.keep = set()
    for w in lexicon:
        enc.add([w], [w], True)
    enc.flush(True)
    return Encoded(
        enc.src_vocab, enc.tgt_vocab, n_pairs, enc.starts, lexicon,
        _add_counts(enc.src_freq, np.zeros(0, np.int32), len(enc.src_vocab)),
        _add_counts(enc.tgt_freq, np.zeros(0, np.int32), len(enc.tgt_vocab)),
        enc.gold, enc.max_len,
    )  # fmt: skip


def _ranges(store, n_chunks: int, n_src: int) -> list[tuple[int, int]]:
    """Source-id ranges [lo, hi) each holding at most about RANGE_KEYS keys (with repeats)."""
    per_row = np.zeros(n_src + 1, dtype=np.int64)
    for c in range(n_chunks):
        keys = store.load(chunk_name(c, ".keys.npy"))
        per_row += np.bincount(keys >> _SHIFT, minlength=n_src + 1)[: n_src + 1]
    cum = np.cumsum(per_row)
    bounds = [0]
    while bounds[-1] < n_src:
        lo = bounds[-1]
        base = cum[lo - 1] if lo else 0
        hi = int(np.searchsorted(cum, base + RANGE_KEYS, side="right"))
        bounds.append(min(max(hi, lo + 1), n_src))
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def build_table(store, n_chunks: int, n_src: int) -> tuple[np.ndarray, np.ndarray]:
    """The CSR table ``(row_off, col)`` of every word pair in the chunks, saved as
    ``table_row_off.npy`` and ``table_col.npy`` (``col`` is returned memory-mapped: it is
    written range by range, never whole in memory); writes each chunk's ``entries`` file and
    removes its keys file."""
    for c in range(n_chunks):
        n_keys = len(store.load_mapped(chunk_name(c, ".keys.npy")))
        store.new_array(chunk_name(c, ".entries.npy"), np.int32, n_keys)
    row_len = np.zeros(n_src, dtype=np.int64)
    base = 0
    with store.appending("table_col.npy", np.int32) as cols:
        for lo, hi in _ranges(store, n_chunks, n_src):
            merged = _sorted_unique(_range_keys(store, n_chunks, lo, hi))
            row_len[lo:hi] = np.bincount((merged >> _SHIFT) - lo, minlength=hi - lo)[: hi - lo]
            cols.append((merged & _LOW).astype(np.int32))
            _write_entries(store, n_chunks, lo, hi, merged, base)
            base += len(merged)
            del merged
    for c in range(n_chunks):
        store.remove(chunk_name(c, ".keys.npy"))
    row_off = np.zeros(n_src + 1, dtype=np.int64)
    np.cumsum(row_len, out=row_off[1:])
    store.save("table_row_off.npy", row_off)
    return row_off, store.load_mapped("table_col.npy")


def _sorted_unique(parts: list[np.ndarray]) -> np.ndarray:
    """The distinct keys of ``parts``, sorted (a sort and a mask: numpy's hash-based
    ``unique`` is many times slower on millions of int64 keys)."""
    keys = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    keys.sort()
    if len(keys) < 2:
        return keys
    keep = np.empty(len(keys), dtype=bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


def _slice(keys: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    a, b = np.searchsorted(keys, [np.int64(lo) << _SHIFT, np.int64(hi) << _SHIFT])
    return int(a), int(b)


def _range_keys(store, n_chunks: int, lo: int, hi: int) -> list[np.ndarray]:
    out = []
    for c in range(n_chunks):
        keys = store.load_mapped(chunk_name(c, ".keys.npy"))
        a, b = _slice(keys, lo, hi)
        out.append(np.array(keys[a:b]))
        del keys
    return out


def _write_entries(store, n_chunks, lo, hi, merged, base) -> None:
    for c in range(n_chunks):
        keys = store.load_mapped(chunk_name(c, ".keys.npy"))
        a, b = _slice(keys, lo, hi)
        if b > a:
            with store.updating(chunk_name(c, ".entries.npy")) as entries:
                entries[a:b] = base + np.searchsorted(merged, keys[a:b])
        del keys
