"""The corpus store encodes a chunk of pairs at a time and merges the table range by range;
both must give exactly what a plain pair-by-pair reading and one global sort give."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.aligner import corpus_store
from alignment_core.aligner._kernels import get_kernels
from alignment_core.aligner.corpus_store import build_table, chunk_name, encode_chunks
from alignment_core.aligner.synthetic import synthetic_corpus
from alignment_core.aligner.vocab import Vocabulary
from alignment_core.aligner.workspace_store import FolderStore, MemoryStore


@pytest.fixture(params=["folder", "memory"])
def store(request, tmp_path):
    """Both stores a workspace keeps its arrays in: the same code must give the same arrays."""
    return FolderStore(tmp_path) if request.param == "folder" else MemoryStore()


def _pairs():
    corpus = synthetic_corpus(90, vocab_size=60, min_len=2, max_len=9, seed=5)
    pairs = [([w.upper() if i % 3 == 0 else w for i, w in enumerate(s)], list(t))
             for s, t in corpus.pairs]  # fmt: skip
    pairs[4] = (["ΣΟΦΟΣ", "Straße", "a\x00B"], ["σοφος", "strasse", "A\x00b"])
    pairs[7] = ([], ["lonely"])
    return pairs


def _reference(pairs):
    """Pair by pair, word by word: the ids, and the lexicon (each word at its first use)."""
    src_vocab, tgt_vocab, lexicon = Vocabulary(), Vocabulary(), {}
    ids = []
    for s, t in pairs:
        s, t = [w.casefold() for w in s], [w.casefold() for w in t]
        ids.append(([src_vocab.add(w) for w in s], [tgt_vocab.add(w) for w in t]))
        for w in (*s, *t):
            lexicon.setdefault(w, None)
    return src_vocab, tgt_vocab, ids, list(lexicon)


def _encode(store, pairs, chunk_pairs):
    return encode_chunks(store, iter(pairs), chunk_pairs=chunk_pairs, lowercase=True,
                         identity_lexicon=True, gold_indices={4, 31},
                         kernels=get_kernels())  # fmt: skip


def test_chunked_encoding_gives_the_ids_and_lexicon_of_a_pair_by_pair_reading(store):
    pairs = _pairs()
    src_vocab, tgt_vocab, ids, lexicon = _reference(pairs)
    enc = _encode(store, pairs, chunk_pairs=16)
    assert enc.lexicon == lexicon
    assert enc.n_pairs == len(pairs)
    got = []
    for c in range(sum(1 for s in enc.chunk_starts if s < enc.n_pairs)):
        z = store.load_arrays(chunk_name(c))
        for n in range(len(z["src_off"]) - 1):
            got.append((z["src"][z["src_off"][n] : z["src_off"][n + 1]].tolist(),
                        z["tgt"][z["tgt_off"][n] : z["tgt_off"][n + 1]].tolist()))  # fmt: skip
    assert got == ids
    # the lexicon's one-word pairs add the words missing on a side after the corpus's
    for w in lexicon:
        src_vocab.add(w), tgt_vocab.add(w)
    assert enc.src_vocab.words == src_vocab.words
    assert enc.tgt_vocab.words == tgt_vocab.words
    assert [enc.gold_pairs[p][0].tolist() for p in (4, 31)] == [ids[4][0], ids[31][0]]
    assert enc.max_len == max(max(len(s), len(t)) for s, t in pairs)


def test_table_merged_range_by_range_holds_every_cell_of_every_chunk(store, monkeypatch):
    monkeypatch.setattr(corpus_store, "RANGE_KEYS", 500)
    pairs = _pairs()
    enc = _encode(store, pairs, chunk_pairs=16)
    n_chunks, n_src, n_tgt = len(enc.chunk_starts), len(enc.src_vocab), len(enc.tgt_vocab)
    assert len(corpus_store._ranges(store, n_chunks, n_src)) > 3
    row_off, col = build_table(store, n_chunks, n_src)
    rows = np.repeat(np.arange(n_src), np.diff(row_off))
    table_keys = rows * n_tgt + np.asarray(col)
    every = []
    for c in range(n_chunks):
        z = store.load_arrays(chunk_name(c))
        n = len(z["src_off"]) - 1
        raw = np.empty(int(z["cell_off"][-1]), dtype=np.int64)
        get_kernels().cell_keys(z["src"], z["src_off"], z["tgt"], z["tgt_off"],
                                z["cell_off"], np.int64(n_tgt), raw)  # fmt: skip
        entries = store.load(chunk_name(c, ".entries.npy"))
        assert n > 0
        np.testing.assert_array_equal(table_keys[entries[z["cells"]]], raw)
        every.append(raw)
    np.testing.assert_array_equal(table_keys, np.unique(np.concatenate(every)))
