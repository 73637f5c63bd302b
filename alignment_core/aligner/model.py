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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from alignment_core.aligner._kernels import get_kernels
from alignment_core.aligner.config import AlignerConfig
from alignment_core.aligner.symmetrize import links_from_states
from alignment_core.aligner.symmetrize import symmetrize as symmetrize_links
from alignment_core.aligner.table import DIRECTIONS, Direction, cell_offsets, jump_class_table
from alignment_core.aligner.threads import in_threads
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


def csr_from_keys(keys: np.ndarray, n_src: int, n_tgt: int) -> tuple[np.ndarray, np.ndarray]:
    """``(row_off, col)`` of sorted keys ``src_id * n_tgt + tgt_id``."""
    keys = np.asarray(keys, dtype=np.int64)
    row_off = np.zeros(n_src + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // n_tgt, minlength=n_src)[:n_src], out=row_off[1:])
    return row_off, (keys % n_tgt).astype(np.int32)


def viterbi_states(config: AlignerConfig, corpus: FlatCorpus, cells, cell_off, d: Direction,
                   t: np.ndarray, jump_weights: np.ndarray) -> list[np.ndarray]:  # fmt: skip
    """One direction's Viterbi states of an encoded chunk (-1 = NULL); ``t`` per cell index."""
    kernels = get_kernels()
    max_len = int(max(corpus.src_len().max(initial=1), corpus.tgt_len().max(initial=1)))
    jclass, jofs, _ = jump_class_table(max_len, config.jump_exact, config.jump_buckets)
    out_off = corpus.src_off if d.transposed else corpus.tgt_off
    out = np.empty(int(out_off[-1]), dtype=np.int64)
    t = np.asarray(t, dtype=np.float64)
    args = (corpus.src_off, corpus.tgt_off, cells, cell_off, 0, corpus.n_pairs, d.transposed, t)
    if config.hmm_iterations > 0:
        kernels.hmm_viterbi(*args, jump_weights, jclass, np.int64(jofs), config.null_prob,
                            config.end_jump, out, out_off)  # fmt: skip
    else:
        kernels.ibm1_decode(*args, out, out_off, np.zeros(0), np.zeros(1, dtype=np.int64))
    return [out[out_off[n] : out_off[n + 1]] for n in range(corpus.n_pairs)]


def symmetrised(corpus: FlatCorpus, forward, backward, method: str) -> list[Alignment]:
    """Both directions' Viterbi states of a chunk symmetrised (all links sure)."""
    if method == "intersect":  # the default: (i, j) is in both when each points at the other
        pairs = zip(forward, backward, strict=True)
        return [_intersection(fwd.tolist(), bwd.tolist()) for fwd, bwd in pairs]
    N, M = corpus.src_len().tolist(), corpus.tgt_len().tolist()
    out = []
    for n, (fwd, bwd) in enumerate(zip(forward, backward, strict=True)):
        f, b = links_from_states(fwd.tolist(), bwd.tolist())
        out.append(Alignment.from_sets(symmetrize_links(f, b, N[n], M[n], method)))
    return out


def _intersection(forward: list[int], backward: list[int]) -> Alignment:
    """``symmetrize(..., "intersect")`` of one pair's states, without building either set."""
    return Alignment(
        frozenset((i, j) for j, i in enumerate(forward) if i >= 0 and backward[i] == j)
    )


@dataclass
class TrainedDirection:
    """One direction's parameters: ``t`` per table entry (+ 2 fallback slots) and jump weights."""

    t: np.ndarray
    jump_weights: np.ndarray
    ibm1_loglik: list[float] = field(default_factory=list)
    hmm_loglik: list[float] = field(default_factory=list)


class AlignerModel:
    """Vocabularies, the sparse translation table (CSR: ``row_off`` per source id, ``col``
    target id per entry, see ``_csr_kernels``) and both directions' parameters (``t`` float32
    per entry, then the two fallback slots)."""

    def __init__(
        self,
        *,
        config: AlignerConfig,
        src_vocab: Vocabulary,
        tgt_vocab: Vocabulary,
        row_off: np.ndarray,
        col: np.ndarray,
        forward: TrainedDirection,
        backward: TrainedDirection,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.config = config
        self.src_vocab = src_vocab
        self.tgt_vocab = tgt_vocab
        self.row_off = np.asarray(row_off, dtype=np.int64)
        self.col = np.asarray(col, dtype=np.int32)
        self.forward = forward
        self.backward = backward
        self.info = dict(info or {})
        for d in (forward, backward):
            # store precision, so a saved and reloaded model aligns identically
            d.t = np.asarray(d.t, dtype=np.float32)

    @property
    def n_entries(self) -> int:
        return len(self.col)

    @property
    def keys(self) -> np.ndarray:
        """Every entry's key ``src_id * n_tgt_vocab + tgt_id`` (sorted; the saved form)."""
        rows = np.repeat(np.arange(len(self.row_off) - 1, dtype=np.int64), np.diff(self.row_off))
        return rows * len(self.tgt_vocab) + self.col

    # -- training-time helpers ----------------------------------------------------------
    @property
    def log_likelihoods(self) -> dict[str, list[float]]:
        """Per-iteration EM objective, keyed ``"IBM1 source→target"``, ``"HMM target→source"``…"""
        return {
            f"{m} {d.name}": list(getattr(p, f"{m.lower()}_loglik"))
            for d, p in zip(DIRECTIONS, (self.forward, self.backward), strict=True)
            for m in ("IBM1", "HMM")
        }

    def set_identity_fallback(self, entries: np.ndarray) -> None:
        """Use the median t(w | w) over ``entries`` (the identity pairs of words seen once) as
        the unseen-identical-word probability."""
        K = self.n_entries
        if not len(entries):
            return
        for d in (self.forward, self.backward):
            value = float(np.median(d.t[entries].astype(np.float64)))
            d.t[K + 1] = max(np.float32(value), d.t[K])

    # -- preparing pairs ----------------------------------------------------------------
    def _prepare(self, pairs: TokenPairs) -> tuple[FlatCorpus, np.ndarray, np.ndarray, np.ndarray]:
        """``(corpus, cells, cell_off, entries)``: cells index ``entries`` (sorted indices into
        t; K = a pair never seen, K + 1 = an unseen word facing itself)."""
        cfg = self.config
        toks = [
            (normalise_tokens(s, cfg.lowercase), normalise_tokens(t, cfg.lowercase))
            for s, t in pairs
        ]
        corpus = encode_corpus(toks, self.src_vocab, self.tgt_vocab, grow=False)
        cell_off = cell_offsets(corpus)
        cells = np.empty(int(cell_off[-1]), dtype=np.int64)
        get_kernels().lookup_cells(corpus.src, corpus.src_off, corpus.tgt, corpus.tgt_off,
                                   cell_off, self.row_off, self.col, cells)  # fmt: skip
        cells[cells < 0] = self.n_entries
        if cfg.identity_lexicon:
            self._mark_unseen_identities(toks, corpus, cells, cell_off)
        entries, local = np.unique(cells, return_inverse=True)
        return corpus, local.astype(np.int32).ravel(), cell_off, entries

    def _mark_unseen_identities(self, toks: list, corpus: FlatCorpus, cells, cell_off) -> None:
        identity_slot = self.n_entries + 1
        for n, (s, t) in enumerate(toks):
            src_ids = corpus.src[corpus.src_off[n] : corpus.src_off[n + 1]]
            tgt_ids = corpus.tgt[corpus.tgt_off[n] : corpus.tgt_off[n + 1]]
            if not ((src_ids == UNK_ID).any() and (tgt_ids == UNK_ID).any()):
                continue
            M = len(t)
            base = int(cell_off[n])
            for i in np.flatnonzero(src_ids == UNK_ID):
                for j in np.flatnonzero(tgt_ids == UNK_ID):
                    if s[i] == t[j]:
                        cells[base + i * (M + 1) + j] = identity_slot

    def _both(self, fn: Callable[[Direction, TrainedDirection], R]) -> list[R]:
        params = (self.forward, self.backward)
        return in_threads(lambda i: fn(DIRECTIONS[i], params[i]), (0, 1), self.config.threads)

    def _jumps(self, corpus: FlatCorpus) -> tuple[np.ndarray, int, int]:
        max_len = int(max(corpus.src_len().max(initial=1), corpus.tgt_len().max(initial=1)))
        return jump_class_table(max_len, self.config.jump_exact, self.config.jump_buckets)

    # -- alignment ----------------------------------------------------------------------
    def viterbi(self, pairs: TokenPairs) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Directional Viterbi alignments (0-based; -1 = NULL).

        Returns ``(forward, backward)``: ``forward[n][j]`` is the source position of target
        word j of pair n, ``backward[n][i]`` the target position of source word i. One chunk
        of pairs (``pair_chunks``) at a time, so memory stays bounded.
        """
        forward: list[np.ndarray] = []
        backward: list[np.ndarray] = []
        for lo, hi in pair_chunks(pairs):
            f, b = self.viterbi_encoded(*self._prepare(pairs[lo:hi]))
            forward.extend(f)
            backward.extend(b)
        return forward, backward

    def viterbi_encoded(self, corpus, cells, cell_off, entries):
        """``viterbi`` of an encoded chunk (cells index ``entries``, sorted indices into t)."""

        def run(d: Direction, p: TrainedDirection) -> list[np.ndarray]:
            return viterbi_states(self.config, corpus, cells, cell_off, d, p.t[entries],
                                  p.jump_weights)  # fmt: skip

        forward, backward = self._both(run)
        return forward, backward

    def align(self, pairs: TokenPairs, symmetrize: str | None = None) -> list[Alignment]:
        """Symmetrised alignments (all links sure), in input order. ``symmetrize`` overrides
        ``config.symmetrize``."""
        out: list[Alignment] = []
        for lo, hi in pair_chunks(pairs):
            out.extend(self.align_encoded(*self._prepare(pairs[lo:hi]), symmetrize=symmetrize))
        return out

    def align_encoded(self, corpus, cells, cell_off, entries, symmetrize: str | None = None):
        """``align`` of an encoded chunk (see ``viterbi_encoded``)."""
        forward, backward = self.viterbi_encoded(corpus, cells, cell_off, entries)
        return symmetrised(corpus, forward, backward, symmetrize or self.config.symmetrize)

    def posteriors(self, pairs: TokenPairs) -> list[np.ndarray]:
        """Per pair an N×M float32 matrix of link posteriors (mean of both directions). One chunk
        of pairs at a time, so only that chunk's float64 directional matrices are alive."""
        out: list[np.ndarray] = []
        for lo, hi in pair_chunks(pairs):
            out.extend(self.posteriors_encoded(*self._prepare(pairs[lo:hi])))
        return out

    def posteriors_encoded(self, corpus, cells, cell_off, entries) -> list[np.ndarray]:
        """``posteriors`` of an encoded chunk (see ``viterbi_encoded``)."""
        forward, backward = self._directional_encoded(corpus, cells, cell_off, entries)
        return [((f + b) * 0.5).astype(np.float32) for f, b in zip(forward, backward, strict=True)]

    def directional_posteriors(
        self, pairs: TokenPairs
    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Each direction's N×M float64 link posteriors: ``(forward, backward)``, forward[n][i, j]
        = P(a_j = i) (source→target), backward[n][i, j] = P(b_i = j) (target→source)."""
        forward: list[np.ndarray] = []
        backward: list[np.ndarray] = []
        for lo, hi in pair_chunks(pairs):
            f, b = self._directional_encoded(*self._prepare(pairs[lo:hi]))
            forward.extend(f)
            backward.extend(b)
        return forward, backward

    def _directional_encoded(self, corpus, cells, cell_off, entries):
        kernels = get_kernels()
        sizes = corpus.src_len() * corpus.tgt_len()
        post_off = np.zeros(corpus.n_pairs + 1, dtype=np.int64)
        np.cumsum(sizes, out=post_off[1:])
        jclass, jofs, n_classes = self._jumps(corpus)
        weights = np.ones(corpus.n_pairs)
        hmm = self.config.hmm_iterations > 0

        def run(d: Direction, p: TrainedDirection) -> np.ndarray:
            post = np.zeros(int(post_off[-1]))
            n = corpus.n_pairs
            t = p.t[entries].astype(np.float64)
            if hmm:
                kernels.hmm_forward_backward(
                    corpus.src_off, corpus.tgt_off, cells, cell_off, weights, 0, n, d.transposed,
                    t, p.jump_weights, jclass, np.int64(jofs), self.config.null_prob,
                    self.config.end_jump, False, np.zeros(0), np.zeros(n_classes),
                    np.zeros((1, 1)), post, post_off,
                )  # fmt: skip
            else:
                out_off = corpus.src_off if d.transposed else corpus.tgt_off
                out = np.empty(int(out_off[-1]), dtype=np.int64)
                kernels.ibm1_decode(
                    corpus.src_off, corpus.tgt_off, cells, cell_off, 0, n, d.transposed, t,
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
                t_forward=self.forward.t,
                t_backward=self.backward.t,
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
                            t=z[f"t_{name}"].astype(np.float32),
                            jump_weights=z[f"jump_{name}"].astype(np.float64),
                            ibm1_loglik=lls.get(f"IBM1 {d.name}", []),
                            hmm_loglik=lls.get(f"HMM {d.name}", []),
                        )
                    )
                src_vocab = Vocabulary.from_array(z["src_words"])
                tgt_vocab = Vocabulary.from_array(z["tgt_words"])
                row_off, col = csr_from_keys(z["keys"], len(src_vocab), len(tgt_vocab))
                model = cls(
                    config=config,
                    src_vocab=src_vocab,
                    tgt_vocab=tgt_vocab,
                    row_off=row_off,
                    col=col,
                    forward=directions[0],
                    backward=directions[1],
                    info=info,
                )
        except (KeyError, OSError, ValueError) as exc:
            raise ValueError(f"{path}: not an aligner model ({exc})") from exc
        return model
