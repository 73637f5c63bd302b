"""The workspace's one-off pieces: the gold's observed counts, the identity lexicon's rare
entries, and a chunk's links written to (and read from) a file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from alignment_core.aligner.corpus_store import Encoded, save_atomic
from alignment_core.aligner.supervised import GoldLinks, observed_counts
from alignment_core.aligner.table import DIRECTIONS, CellTable, cell_offsets
from alignment_core.aligner.vocab import FlatCorpus
from alignment_core.alignment import Alignment


def _one_word_cells(src_ids, tgt_ids, row_off, col, kernels) -> np.ndarray:
    """The table entry of each (src_ids[x], tgt_ids[x]) (-1 if absent)."""
    n = len(src_ids)
    off = np.arange(n + 1, dtype=np.int64)
    corpus = FlatCorpus(np.asarray(src_ids, np.int32), off, np.asarray(tgt_ids, np.int32), off)
    cell_off = cell_offsets(corpus)
    cells = np.empty(int(cell_off[-1]), dtype=np.int64)
    kernels.lookup_cells(
        corpus.src, off, corpus.tgt, off, cell_off, row_off, np.asarray(col), cells
    )
    return cells[cell_off[:-1]]


def identity_entries(enc: Encoded, row_off, col, kernels) -> np.ndarray:
    """Table entries (w, w) of the lexicon's words seen at most once in the corpus (all of the
    lexicon if none is): their median t(w | w) is the model's guess for an unseen word facing
    itself (``AlignerModel.set_identity_fallback``)."""
    if not enc.lexicon:
        return np.zeros(0, dtype=np.int64)
    sids = np.array([enc.src_vocab.get(w) for w in enc.lexicon], dtype=np.int64)
    tids = np.array([enc.tgt_vocab.get(w) for w in enc.lexicon], dtype=np.int64)
    freq = enc.src_freq[sids] + enc.tgt_freq[tids]
    rare = freq <= 1
    if rare.any():
        sids, tids = sids[rare], tids[rare]
    found = _one_word_cells(sids, tids, row_off, col, kernels)
    return found[found >= 0]


def gold_counts(ws, enc: Encoded, gold: Mapping[int, Alignment], row_off, col) -> None:
    """``gold.npz``: the hand-aligned pairs' indices and, per direction, their observed counts
    (``supervised.observed_counts``) as sorted table indices and values, times λ."""
    n = enc.n_pairs
    src_len = np.zeros(n, dtype=np.int64)
    tgt_len = np.zeros(n, dtype=np.int64)
    for p, (s, t) in enc.gold_pairs.items():
        src_len[p], tgt_len[p] = len(s), len(t)
    links = GoldLinks(gold, src_len, tgt_len, ws.config.gold_possible_weight)  # validates
    arrays: dict[str, np.ndarray] = {"pair_idx": links.pair_idx.copy()}
    if len(links):
        arrays.update(_observed(ws, enc, links, row_off, col))
    ws.store.save_arrays("gold.npz", arrays)


def _observed(ws, enc: Encoded, links: GoldLinks, row_off, col) -> dict[str, np.ndarray]:
    order = links.pair_idx.tolist()
    src = [enc.gold_pairs[p][0] for p in order]
    tgt = [enc.gold_pairs[p][1] for p in order]
    corpus = FlatCorpus(
        np.concatenate(src).astype(np.int32), _off([len(s) for s in src]),
        np.concatenate(tgt).astype(np.int32), _off([len(t) for t in tgt]),
    )  # fmt: skip
    cell_off = cell_offsets(corpus)
    cells = np.empty(int(cell_off[-1]), dtype=np.int64)
    ws.kernels.lookup_cells(corpus.src, corpus.src_off, corpus.tgt, corpus.tgt_off, cell_off,
                            row_off, np.asarray(col), cells)  # fmt: skip
    entries, local = np.unique(cells, return_inverse=True)
    table = CellTable(local.astype(np.int32), cell_off)
    links.pair_idx = np.arange(len(order), dtype=np.int64)
    jclass, jofs, n_classes = ws.jump_classes
    out = {"idx": entries.astype(np.int64)}
    for tag, d in zip("fb", DIRECTIONS, strict=True):
        obs = observed_counts(
            kernels=ws.kernels, gold=links, table=table, src_off=corpus.src_off,
            tgt_off=corpus.tgt_off, direction=d, n_entries=len(entries), n_classes=n_classes,
            max_states=ws.meta["max_states"], jclass=jclass, jofs=jofs,
            end_jump=ws.config.end_jump, weight=ws.config.gold_lambda,
        )  # fmt: skip
        out.update({f"t_{tag}": obs.t, f"jumps_{tag}": obs.jumps, f"rows_{tag}": obs.rows})
    return out


def _off(lengths: list[int]) -> np.ndarray:
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=off[1:])
    return off


def write_links(out: Path, alignments: list[Alignment], first_pair: int, model, data) -> None:
    """One chunk's links (and, with ``model`` and the chunk's ``data``, its posterior
    matrices, ``AlignerModel.posteriors``) as ``.npz``."""
    arrays: dict[str, np.ndarray] = {"first_pair": np.array(first_pair)}
    arrays["pair_off"] = _off([len(a.sure) for a in alignments])
    pairs = [link for a in alignments for link in sorted(a.sure)]
    arrays["links"] = np.array(pairs, dtype=np.int32).reshape(-1, 2)
    if data is not None:
        mats = model.posteriors_encoded(data.corpus, data.cells, data.cell_off, data.entries)
        arrays["post_off"] = _off([m.size for m in mats])
        arrays["post"] = np.concatenate([m.ravel() for m in mats]) if mats else np.zeros(0)
    save_atomic(out, lambda fh: np.savez(fh, **arrays))


def read_links(path: str | Path) -> tuple[int, list[Alignment]]:
    """``(first pair index, alignments)`` from a file ``write_links`` wrote."""
    with np.load(path) as z:
        off, links = z["pair_off"], z["links"]
        out = [
            Alignment.from_sets(map(tuple, links[off[n] : off[n + 1]].tolist()))
            for n in range(len(off) - 1)
        ]
        return int(z["first_pair"]), out
