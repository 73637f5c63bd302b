"""The training corpus on disk, encoded while it streams in, and its sparse translation table.

Memory is bounded by the vocabulary and one chunk, never by the corpus:

* ``encode_chunks`` reads token pairs one at a time and every ``chunk_pairs`` pairs maps the
  chunk's words to ids at once (``vocab``; no Python code per token) and writes one chunk file ``chunks/cNNNNN.npz``: the chunk's flat ids and
  offsets (``FlatCorpus``, offsets local to the chunk), and its cells as indices into the
  chunk's own sorted list of distinct word pairs (``cells``, ``cell_off``; the layout of
  ``_kernels``). The identity lexicon's one-word pairs (``[w], [w]``) follow as the last chunks.
* ``build_table`` merges the chunks' word pairs into the CSR table (``row_off``: int64 per
  source id + 1, ``col``: int32 target id per entry, entries sorted by (source, target)) and
  writes each chunk's ``entries`` (int32: the table index of each of its distinct pairs, so
  ``entries[cells]`` are the chunk's cells as table indices). It works source-id range by
  range, so only one range's keys are in memory at a time; each chunk's keys are cut at the
  ranges' bounds once, so a range costs one read and one write per chunk (no file mapped or
  synced per range and chunk: the time grows linearly with the corpus).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
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
    """Collects a chunk's tokens as two flat lists (one per side) and maps them to ids a chunk
    at a time: new words are found among the chunk's distinct words, the ids by a C-level
    ``map`` over the dictionary, so no Python code runs per token. A chunk's cells are found
    and written on a second thread (the kernels release the GIL) while this one reads and
    encodes the next chunk; at most one chunk waits there."""

    def __init__(self, store, chunk_pairs: int, kernels, keep: set[int], lowercase: bool):
        self.store, self.chunk_pairs, self.kernels, self.keep = store, chunk_pairs, kernels, keep
        self.lowercase = lowercase
        self.src_vocab, self.tgt_vocab = Vocabulary(), Vocabulary()
        self.seen: dict[str, None] = {}
        self.src: list[str] = []
        self.tgt: list[str] = []
        self.src_len: list[int] = []
        self.tgt_len: list[int] = []
        self.starts: list[int] = []
        self.n = 0
        self.max_len = 1
        self.src_freq = np.zeros(0, dtype=np.int64)
        self.tgt_freq = np.zeros(0, dtype=np.int64)
        self.gold: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="gridalign-encode")
        self.written: Future | None = None

    def add(self, source: Sequence[str], target: Sequence[str], lexicon: bool) -> None:
        if not self.src_len:
            self.starts.append(self.n)
        self.src.extend(source)
        self.tgt.extend(target)
        self.src_len.append(len(source))
        self.tgt_len.append(len(target))
        self.n += 1
        if len(self.src_len) >= self.chunk_pairs:
            self.flush(lexicon)

    def flush(self, lexicon: bool) -> None:
        if not self.src_len:
            return
        if self.lowercase and not lexicon:
            self.src, self.tgt = casefolded(self.src), casefolded(self.tgt)
        src_off, tgt_off = _offsets(self.src_len), _offsets(self.tgt_len)
        src, src_new = _encode(self.src_vocab, self.src)
        tgt, tgt_new = _encode(self.tgt_vocab, self.tgt)
        corpus = FlatCorpus(src, src_off, tgt, tgt_off)
        if not lexicon:
            self._see(src_new, tgt_new, corpus)
        self.max_len = max(self.max_len, max(self.src_len), max(self.tgt_len))
        first = self.n - len(self.src_len)
        for p in sorted(n for n in self.keep if first <= n < self.n):
            k = p - first
            self.gold[p] = (src[src_off[k] : src_off[k + 1]].copy(),
                            tgt[tgt_off[k] : tgt_off[k + 1]].copy())  # fmt: skip
        self.src, self.tgt, self.src_len, self.tgt_len = [], [], [], []
        if not lexicon:
            self.src_freq = _add_counts(self.src_freq, corpus.src, len(self.src_vocab))
            self.tgt_freq = _add_counts(self.tgt_freq, corpus.tgt, len(self.tgt_vocab))
        self.wait()
        self.written = self.writer.submit(
            _write_chunk, self.store, len(self.starts) - 1, corpus, self.kernels,
            len(self.src_vocab), len(self.tgt_vocab),
        )  # fmt: skip

    def wait(self) -> None:
        """Until the chunk on the writing thread is written (its error raised here)."""
        if self.written is not None:
            written, self.written = self.written, None
            written.result()

    def _see(self, src_new: list[tuple[int, str]], tgt_new: list[tuple[int, str]], corpus):
        """Record the words new to either vocabulary in the order a pair-by-pair reading meets
        them (pair, then source before target, then position): the lexicon's order."""
        src_pair = np.searchsorted(corpus.src_off, [p for p, _ in src_new], side="right") - 1
        tgt_pair = np.searchsorted(corpus.tgt_off, [p for p, _ in tgt_new], side="right") - 1
        events = [(int(n), 0, p, w) for n, (p, w) in zip(src_pair, src_new, strict=True)]
        events += [(int(n), 1, p, w) for n, (p, w) in zip(tgt_pair, tgt_new, strict=True)]
        events.sort()
        for *_, w in events:
            self.seen.setdefault(w, None)


def casefolded(tokens: list[str]) -> list[str]:
    """``normalise_tokens(tokens, True)`` for a long list: casefolding maps each character on
    its own, so one joined string is folded at once and split again (unless a token holds the
    separator)."""
    joined = "\x00".join(tokens)
    if joined.count("\x00") != len(tokens) - 1:
        return normalise_tokens(tokens, True)
    return joined.casefold().split("\x00") if tokens else []


def _encode(vocab: Vocabulary, tokens: list[str]) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """``(ids, new)``: the tokens' ids (int32), adding words new to ``vocab`` in the order they
    first occur; ``new`` lists each new word with the position of its first occurrence."""
    index = vocab._index
    before = len(vocab)
    fresh = [w for w in dict.fromkeys(tokens) if w not in index]
    for w in fresh:
        vocab.add(w)
    ids = np.fromiter(map(index.__getitem__, tokens), dtype=np.int32, count=len(tokens))
    if not fresh:
        return ids, []
    at = np.flatnonzero(ids >= before)
    _, first = np.unique(ids[at], return_index=True)  # new ids are numbered in order of first use
    return ids, list(zip(at[first].tolist(), fresh, strict=True))


def _offsets(lengths: list[int]) -> np.ndarray:
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=off[1:])
    return off


def _add_counts(acc: np.ndarray, ids: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=np.int64)
    out[: len(acc)] = acc
    out += np.bincount(ids, minlength=size)[:size]
    return out


def _write_chunk(store, index, corpus, kernels, n_src_words: int, n_tgt_words: int) -> None:
    """One chunk's ids, its cells (local indices) and its sorted distinct keys (packed
    ``src << 32 | tgt``, so they compare as (source, target) whatever the vocabularies grow to).
    ``n_*_words``: the vocabularies' sizes once the chunk was encoded."""
    cell_off = cell_offsets(corpus)
    n_src, n_tgt = np.int64(n_src_words), np.int64(n_tgt_words)
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
    enc = _Encoder(store, chunk_pairs, kernels, gold_indices, lowercase)
    try:
        for source, target in pairs:
            enc.add(source, target, False)
        enc.flush(False)
        n_pairs = enc.n
        lexicon = list(enc.seen) if identity_lexicon else []
        enc.keep = set()
        for w in lexicon:
            enc.add([w], [w], True)
        enc.flush(True)
        enc.wait()
    finally:
        enc.writer.shutdown(wait=True)
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


class _ChunkKeys:
    """Each chunk's sorted keys, cut once at every range's bounds: a range's slice of a chunk is
    one read at a known place, and its entries one write (no mapping, no syncing per range)."""

    def __init__(self, store, n_chunks: int, ranges: list[tuple[int, int]]) -> None:
        edges = np.array([lo for lo, _ in ranges] + [ranges[-1][1] if ranges else 0], np.int64)
        self.files = []
        for c in range(n_chunks):
            keys_name, entries_name = chunk_name(c, ".keys.npy"), chunk_name(c, ".entries.npy")
            keys = store.load_mapped(keys_name)
            store.new_array(entries_name, np.int32, len(keys))
            cuts = np.searchsorted(keys, edges << _SHIFT)
            self.files.append((store.slices(keys_name, np.int64),
                               store.slices(entries_name, np.int32), cuts))  # fmt: skip
            del keys

    def range_keys(self, r: int) -> list[np.ndarray]:
        """Every chunk's keys in range ``r`` (chunk order)."""
        return [keys.read(int(cuts[r]), int(cuts[r + 1])) for keys, _, cuts in self.files]

    def write_entries(self, r: int, sizes: list[int], entries: np.ndarray) -> None:
        """Range ``r``'s table indices of every chunk's keys (concatenated in chunk order)."""
        at = 0
        for (_, out, cuts), size in zip(self.files, sizes, strict=True):
            if size:
                out.write(int(cuts[r]), entries[at : at + size].astype(np.int32))
                at += size


def build_table(store, n_chunks: int, n_src: int) -> tuple[np.ndarray, np.ndarray]:
    """The CSR table ``(row_off, col)`` of every word pair in the chunks, saved as
    ``table_row_off.npy`` and ``table_col.npy`` (``col`` is returned memory-mapped: it is
    written range by range, never whole in memory); writes each chunk's ``entries`` file and
    removes its keys file."""
    ranges = _ranges(store, n_chunks, n_src)
    chunks = _ChunkKeys(store, n_chunks, ranges)
    row_len = np.zeros(n_src, dtype=np.int64)
    base = 0
    with store.appending("table_col.npy", np.int32) as cols:
        for r, (lo, hi) in enumerate(ranges):
            parts = chunks.range_keys(r)
            merged, where = _sorted_unique(parts)
            row_len[lo:hi] = np.bincount((merged >> _SHIFT) - lo, minlength=hi - lo)[: hi - lo]
            cols.append((merged & _LOW).astype(np.int32))
            chunks.write_entries(r, [len(p) for p in parts], where + base)
            base += len(merged)
            del merged, parts, where
    for c in range(n_chunks):
        store.remove(chunk_name(c, ".keys.npy"))
    row_off = np.zeros(n_src + 1, dtype=np.int64)
    np.cumsum(row_len, out=row_off[1:])
    store.save("table_row_off.npy", row_off)
    return row_off, store.load_mapped("table_col.npy")


def _sorted_unique(parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(merged, where)``: the distinct keys of ``parts`` (each sorted), sorted, and each
    key's index in ``merged`` (parts concatenated). One stable argsort (a timsort: it merges
    the sorted parts rather than sorting from scratch) and a mask; numpy's hash-based
    ``unique`` is many times slower on millions of int64 keys."""
    keys = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    keep = np.ones(len(keys), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    where = np.empty(len(keys), dtype=np.int64)
    where[order] = np.cumsum(keep) - 1
    return ordered[keep], where
