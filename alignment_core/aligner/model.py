"""A trained aligner: Viterbi alignments, symmetrisation, posteriors, ``.npz`` save and load.

Posteriors: each direction's HMM gives, by forward-backward, P(emitted word's state is the
other word | both sentences). The matrix returned for a pair is the mean of the two
directions' matrices (source→target: P(a_j = i); target→source: P(b_i = j)), so a cell both
directions are sure of is near 1, a cell only one direction proposes is near 0.5.

Words or word pairs never seen in training get ``config.unseen_prob``; an unseen word facing
an identical unseen word (identity lexicon on) gets the model's typical t(w | w) of a rare word
instead, so new names and numbers still align to themselves.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from alignment_core.aligner._kernels import get_kernels
from alignment_core.aligner.config import AlignerConfig
from alignment_core.aligner.symmetrize import links_from_states
from alignment_core.aligner.symmetrize import symmetrize as symmetrize_links
from alignment_core.aligner.table import (
    DIRECTIONS,
    CellTable,
    Direction,
    jump_class_table,
    lookup_table,
)
from alignment_core.aligner.vocab import (
    UNK_ID,
    FlatCorpus,
    Vocabulary,
    encode_corpus,
    normalise_tokens,
)
from alignment_core.alignment import Alignment

FORMAT_VERSION = 1
R = TypeVar("R")
TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]
# Aligning and posteriors run over chunks of pairs holding at most this many grid cells
# ((N+1)·(M+1) a pair), so their buffers (cell table, states, posteriors: ~40 bytes a cell)
# stay bounded however large the corpus; a single pair larger than this is its own chunk.
CHUNK_CELLS = 2_000_000


def pair_chunks(pairs: TokenPairs, max_cells: int | None = None) -> list[tuple[int, int]]:
    """[lo, hi) index ranges covering ``pairs`` in order, each of at most ``max_cells`` cells
    (default CHUNK_CELLS) unless one pair alone is larger."""
    budget = max_cells or CHUNK_CELLS
    bounds: list[tuple[int, int]] = []
    start, cells = 0, 0
    for n, (s, t) in enumerate(pairs):
        size = (len(s) + 1) * (len(t) + 1)
        if cells and cells + size > budget:
            bounds.append((start, n))
            start, cells = n, 0
        cells += size
    bounds.append((start, len(pairs)))
    return bounds


@dataclass
class TrainedDirection:
    """One direction's parameters: ``t`` per table entry (+ 2 fallback slots) and jump weights."""

    t: np.ndarray
    jump_weights: np.ndarray
    ibm1_loglik: list[float] = field(default_factory=list)
    hmm_loglik: list[float] = field(default_factory=list)


class AlignerModel:
    """Vocabularies, the sparse translation table and both directions' parameters."""

    def __init__(
        self,
        *,
        config: AlignerConfig,
        src_vocab: Vocabulary,
        tgt_vocab: Vocabulary,
        keys: np.ndarray,
        forward: TrainedDirection,
        backward: TrainedDirection,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.config = config
        self.src_vocab = src_vocab
        self.tgt_vocab = tgt_vocab
        self.keys = keys
        self.forward = forward
        self.backward = backward
        self.info = dict(info or {})
        self._cache: tuple[list, FlatCorpus, CellTable] | None = None
        for d in (forward, backward):
            # store-precision parameters, so a saved and reloaded model aligns identically
            d.t = d.t.astype(np.float32).astype(np.float64)

    # -- training-time helpers ----------------------------------------------------------
    @property
    def log_likelihoods(self) -> dict[str, list[float]]:
        """Per-iteration EM objective, keyed ``"IBM1 source→target"``, ``"HMM target→source"``…"""
        return {
            f"{m} {d.name}": list(getattr(p, f"{m.lower()}_loglik"))
            for d, p in zip(DIRECTIONS, (self.forward, self.backward), strict=True)
            for m in ("IBM1", "HMM")
        }

    def set_identity_fallback(self, lexicon: list[str], toks: TokenPairs) -> None:
        """Use the median t(w | w) of words seen once as the unseen-identical-word probability."""
        K = len(self.keys)
        if not lexicon:
            return
        freq: dict[str, int] = {}
        for s, t in toks:
            for w in (*s, *t):
                freq[w] = freq.get(w, 0) + 1
        rare = [w for w in lexicon if freq.get(w, 0) <= 1] or lexicon
        ids = np.array(
            [self.src_vocab.get(w) * len(self.tgt_vocab) + self.tgt_vocab.get(w) for w in rare],
            dtype=np.int64,
        )
        pos = np.searchsorted(self.keys, ids)
        ok = (pos < K) & (self.keys[np.minimum(pos, K - 1)] == ids)
        for d in (self.forward, self.backward):
            if ok.any():
                value = float(np.median(d.t[pos[ok]]))
                d.t[K + 1] = max(float(np.float32(value)), d.t[K])

    def remember_training_corpus(self, toks: list, corpus: FlatCorpus, table: CellTable) -> None:
        """Keep the training pairs' cells so aligning them right after training skips a lookup."""
        n = len(toks)
        sub = FlatCorpus(
            corpus.src[: corpus.src_off[n]],
            corpus.src_off[: n + 1],
            corpus.tgt[: corpus.tgt_off[n]],
            corpus.tgt_off[: n + 1],
        )
        self._cache = (
            toks,
            sub,
            CellTable(table.cells[: table.cell_off[n]], table.cell_off[: n + 1]),
        )

    # -- preparing pairs ----------------------------------------------------------------
    def _prepare(self, pairs: TokenPairs) -> tuple[FlatCorpus, CellTable]:
        cfg = self.config
        toks = [
            (normalise_tokens(s, cfg.lowercase), normalise_tokens(t, cfg.lowercase))
            for s, t in pairs
        ]
        if self._cache is not None and len(self._cache[0]) == len(toks) and self._cache[0] == toks:
            return self._cache[1], self._cache[2]
        corpus = encode_corpus(toks, self.src_vocab, self.tgt_vocab, grow=False)
        table, _ = lookup_table(corpus, self.keys, len(self.tgt_vocab), get_kernels())
        if cfg.identity_lexicon:
            self._mark_unseen_identities(toks, corpus, table)
        return corpus, table

    def _mark_unseen_identities(self, toks: list, corpus: FlatCorpus, table: CellTable) -> None:
        identity_slot = len(self.keys) + 1
        for n, (s, t) in enumerate(toks):
            src_ids = corpus.src[corpus.src_off[n] : corpus.src_off[n + 1]]
            tgt_ids = corpus.tgt[corpus.tgt_off[n] : corpus.tgt_off[n + 1]]
            if not ((src_ids == UNK_ID).any() and (tgt_ids == UNK_ID).any()):
                continue
            M = len(t)
            base = int(table.cell_off[n])
            for i in np.flatnonzero(src_ids == UNK_ID):
                for j in np.flatnonzero(tgt_ids == UNK_ID):
                    if s[i] == t[j]:
                        table.cells[base + i * (M + 1) + j] = identity_slot

    def _both(self, fn: Callable[[Direction, TrainedDirection], R]) -> list[R]:
        params = (self.forward, self.backward)
        if self.config.threads < 2:
            return [fn(d, p) for d, p in zip(DIRECTIONS, params, strict=True)]
        with ThreadPoolExecutor(2) as pool:
            futures = [pool.submit(fn, d, p) for d, p in zip(DIRECTIONS, params, strict=True)]
            return [f.result() for f in futures]

    # -- alignment ----------------------------------------------------------------------
    def viterbi(self, pairs: TokenPairs) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Directional Viterbi alignments (0-based; -1 = NULL).

        Returns ``(forward, backward)``: ``forward[n][j]`` is the source position of target
        word j of pair n, ``backward[n][i]`` the target position of source word i.
        """
        chunks = pair_chunks(pairs)
        if len(chunks) > 1:  # bounded memory: one chunk at a time
            parts = [self.viterbi(pairs[lo:hi]) for lo, hi in chunks]
            return [a for f, _ in parts for a in f], [a for _, b in parts for a in b]
        corpus, table = self._prepare(pairs)
        kernels = get_kernels()
        hmm = self.config.hmm_iterations > 0
        max_len = int(max(corpus.src_len().max(initial=1), corpus.tgt_len().max(initial=1)))
        jclass, jofs, _ = jump_class_table(
            max_len, self.config.jump_exact, self.config.jump_buckets
        )

        def run(d: Direction, p: TrainedDirection) -> list[np.ndarray]:
            out_off = corpus.src_off if d.transposed else corpus.tgt_off
            out = np.empty(int(out_off[-1]), dtype=np.int64)
            args = (
                corpus.src_off,
                corpus.tgt_off,
                table.cells,
                table.cell_off,
                0,
                corpus.n_pairs,
                d.transposed,
                p.t,
            )
            if hmm:
                kernels.hmm_viterbi(
                    *args,
                    p.jump_weights,
                    jclass,
                    np.int64(jofs),
                    self.config.null_prob,
                    self.config.end_jump,
                    out,
                    out_off,
                )
            else:
                kernels.ibm1_decode(*args, out, out_off, np.zeros(0), np.zeros(1, dtype=np.int64))
            return [out[out_off[n] : out_off[n + 1]] for n in range(corpus.n_pairs)]

        forward, backward = self._both(run)
        return forward, backward

    def align(self, pairs: TokenPairs, symmetrize: str | None = None) -> list[Alignment]:
        """Symmetrised alignments (all links sure), in input order. ``symmetrize`` overrides
        ``config.symmetrize``."""
        method = symmetrize or self.config.symmetrize
        forward, backward = self.viterbi(pairs)
        out = []
        for (s, t), fwd, bwd in zip(pairs, forward, backward, strict=True):
            f, b = links_from_states(fwd.tolist(), bwd.tolist())
            out.append(Alignment.from_sets(symmetrize_links(f, b, len(s), len(t), method)))
        return out

    def posteriors(self, pairs: TokenPairs) -> list[np.ndarray]:
        """Per pair an N×M float32 matrix of link posteriors (mean of both directions). One chunk
        of pairs at a time, so only that chunk's float64 directional matrices are alive."""
        out: list[np.ndarray] = []
        for lo, hi in pair_chunks(pairs):
            forward, backward = self.directional_posteriors(pairs[lo:hi])
            out.extend(
                ((f + b) * 0.5).astype(np.float32) for f, b in zip(forward, backward, strict=True)
            )
        return out

    def directional_posteriors(
        self, pairs: TokenPairs
    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Each direction's N×M float64 link posteriors: ``(forward, backward)``, forward[n][i, j]
        = P(a_j = i) (source→target), backward[n][i, j] = P(b_i = j) (target→source)."""
        chunks = pair_chunks(pairs)
        if len(chunks) > 1:  # bounded memory: one chunk at a time
            parts = [self.directional_posteriors(pairs[lo:hi]) for lo, hi in chunks]
            return [m for f, _ in parts for m in f], [m for _, b in parts for m in b]
        corpus, table = self._prepare(pairs)
        kernels = get_kernels()
        sizes = corpus.src_len() * corpus.tgt_len()
        post_off = np.zeros(corpus.n_pairs + 1, dtype=np.int64)
        np.cumsum(sizes, out=post_off[1:])
        max_len = int(max(corpus.src_len().max(initial=1), corpus.tgt_len().max(initial=1)))
        jclass, jofs, n_classes = jump_class_table(
            max_len, self.config.jump_exact, self.config.jump_buckets
        )
        weights = np.ones(corpus.n_pairs)
        hmm = self.config.hmm_iterations > 0

        def run(d: Direction, p: TrainedDirection) -> np.ndarray:
            post = np.zeros(int(post_off[-1]))
            cells, cell_off, n = table.cells, table.cell_off, corpus.n_pairs
            if hmm:
                kernels.hmm_forward_backward(
                    corpus.src_off, corpus.tgt_off, cells, cell_off, weights, 0, n, d.transposed,
                    p.t, p.jump_weights, jclass, np.int64(jofs), self.config.null_prob,
                    self.config.end_jump, False, np.zeros(0), np.zeros(n_classes),
                    np.zeros((1, 1)), post, post_off,
                )  # fmt: skip
            else:
                out_off = corpus.src_off if d.transposed else corpus.tgt_off
                out = np.empty(int(out_off[-1]), dtype=np.int64)
                kernels.ibm1_decode(
                    corpus.src_off, corpus.tgt_off, cells, cell_off, 0, n, d.transposed, p.t,
                    out, out_off, post, post_off,
                )  # fmt: skip
            return post

        fwd, bwd = self._both(run)
        src_len, tgt_len = corpus.src_len(), corpus.tgt_len()
        shapes = [(int(src_len[n]), int(tgt_len[n])) for n in range(corpus.n_pairs)]
        return (
            [fwd[post_off[n] : post_off[n + 1]].reshape(shapes[n]) for n in range(len(shapes))],
            [bwd[post_off[n] : post_off[n + 1]].reshape(shapes[n]) for n in range(len(shapes))],
        )

    # -- persistence --------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write vocabularies, parameters and config to an ``.npz`` file (no pickles)."""
        with open(path, "wb") as fh:
            np.savez(
                fh,
                format_version=np.array(FORMAT_VERSION),
                config_json=np.array(json.dumps(self.config.to_dict())),
                info_json=np.array(
                    json.dumps({**self.info, "log_likelihoods": self.log_likelihoods})
                ),
                src_words=self.src_vocab.to_array(),
                tgt_words=self.tgt_vocab.to_array(),
                keys=self.keys,
                t_forward=self.forward.t.astype(np.float32),
                t_backward=self.backward.t.astype(np.float32),
                jump_forward=self.forward.jump_weights,
                jump_backward=self.backward.jump_weights,
            )

    @classmethod
    def load(cls, path: str | Path) -> AlignerModel:
        """Read a model written by ``save``; raises ValueError on a file that is not one."""
        try:
            with np.load(path, allow_pickle=False) as z:
                version = int(z["format_version"])
                if version != FORMAT_VERSION:
                    raise ValueError(
                        f"{path}: aligner model format {version}, expected {FORMAT_VERSION}"
                    )
                config = AlignerConfig.from_dict(json.loads(str(z["config_json"])))
                info = json.loads(str(z["info_json"]))
                lls = info.pop("log_likelihoods", {})
                directions = []
                for name, d in (("forward", DIRECTIONS[0]), ("backward", DIRECTIONS[1])):
                    directions.append(
                        TrainedDirection(
                            t=z[f"t_{name}"].astype(np.float64),
                            jump_weights=z[f"jump_{name}"].astype(np.float64),
                            ibm1_loglik=lls.get(f"IBM1 {d.name}", []),
                            hmm_loglik=lls.get(f"HMM {d.name}", []),
                        )
                    )
                model = cls(
                    config=config,
                    src_vocab=Vocabulary.from_array(z["src_words"]),
                    tgt_vocab=Vocabulary.from_array(z["tgt_words"]),
                    keys=z["keys"].astype(np.int64),
                    forward=directions[0],
                    backward=directions[1],
                    info=info,
                )
        except (KeyError, OSError, ValueError) as exc:
            raise ValueError(f"{path}: not an aligner model ({exc})") from exc
        return model
