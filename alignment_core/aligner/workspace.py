"""Chunked EM on disk: the one training loop, run in one process (``training.train``) or spread
over workers (one E-step task per chunk, then one M-step).

    ws = Workspace.create(path, pairs, config, gold=None, chunk_pairs=None)  # streams pairs
    ws = Workspace.open(path)              # any process that sees the folder
    for step in range(ws.n_steps):         # one EM iteration of IBM1 or the HMM, both directions
        for chunk in range(ws.n_chunks):   # any order, any process, any number of times
            ws.estep(step, chunk)          # writes counts/sSSS/cCCCCC.* atomically
            # or ws.estep(step, chunk, 0) and ws.estep(step, chunk, 1): one direction each
        ws.mstep(step)                     # sums the chunks' counts in chunk order → params
    model = ws.model()                     # the trained AlignerModel
    ws.align_chunk(chunk, out_path, posteriors=False)   # links (and posteriors) of one chunk

Guarantees:

* ``estep(step, chunk)`` depends only on the folder's state (the corpus, ``params`` of
  ``step``): rerunning it (a retried task) rewrites the same bytes. Every file is written to a
  temporary name and renamed, so a killed worker leaves no half-written file; a direction's
  ``.f.done.npz`` / ``.b.done.npz`` file is written last and marks its counts complete.
* ``mstep(step)`` refuses to run (ValueError naming them) while any chunk's counts are
  missing; it adds the chunks' counts in chunk order (0, 1, 2, …), so the parameters, and so
  the links, are bit-identical whatever the number of workers and the order they ran in.
  Rerunning it rewrites the same parameters. The chunking itself (``chunk_pairs``) is part of
  the result: another chunk size gives the same model up to floating-point summation order.
* ``training.train`` runs exactly this loop (its chunks on ``config.threads`` threads), so a
  distributed run gives the same links as ``train`` with the same config and ``chunk_pairs``.

Layout of the folder: ``meta.json``; ``src_words.npy``/``tgt_words.npy`` (vocabularies);
``table_row_off.npy``/``table_col.npy`` (CSR translation table, ``_csr_kernels``);
``chunks/cNNNNN.npz`` (+ ``.entries.npy``; ``corpus_store``); ``gold.npz`` (observed counts
of hand-aligned pairs); ``params/pSSS.*`` (parameters before step SSS: t per direction as
float32, jump weights, log-likelihoods); ``counts/sSSS/`` (E-step output).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path

import numpy as np

from alignment_core.aligner import em_chunks
from alignment_core.aligner._kernels import get_kernels
from alignment_core.aligner.config import AlignerConfig
from alignment_core.aligner.corpus_store import build_table, encode_chunks
from alignment_core.aligner.hmm import initial_jump_weights
from alignment_core.aligner.model import (
    AlignerModel,
    TrainedDirection,
    symmetrised,
    viterbi_states,
)
from alignment_core.aligner.table import DIRECTIONS, jump_class_table
from alignment_core.aligner.threads import in_threads
from alignment_core.aligner.vocab import Vocabulary
from alignment_core.aligner.workspace_setup import gold_counts, identity_entries, write_links
from alignment_core.aligner.workspace_store import FolderStore, MemoryStore
from alignment_core.alignment import Alignment

FORMAT = 1


def release_memory() -> None:
    """Hand freed heap memory back to the system (glibc keeps large freed blocks of worker
    threads' arenas otherwise, and resident memory would keep a chunk's peak for good)."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        ctypes.CDLL("libc.so.6").malloc_trim(0)


TokenPairs = Iterable[tuple[Sequence[str], Sequence[str]]]


class Workspace:
    """A training run's folder (see the module docstring)."""

    def __init__(self, store: FolderStore | MemoryStore, meta: dict) -> None:
        self.store = store
        self.meta = meta
        self.config = AlignerConfig.from_dict(meta["config"])
        self.kernels = get_kernels()
        self._t_cache: dict[tuple[int, int], np.ndarray] = {}
        self._lock = threading.Lock()

    # -- creating and opening ------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: str | Path,
        pairs: TokenPairs,
        config: AlignerConfig | None = None,
        gold: Mapping[int, Alignment] | None = None,
        chunk_pairs: int | None = None,
    ) -> Workspace:
        """Encode ``pairs`` (streamed once; token lists, 0-based ``gold`` indices into them)
        into a new folder ``path`` (created; must be empty or absent), ready for step 0."""
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        if any(root.iterdir()):
            raise ValueError(f"{root}: a new workspace needs an empty folder")
        return cls._create(FolderStore(root), pairs, config, gold, chunk_pairs)

    @classmethod
    def in_memory(
        cls,
        pairs: TokenPairs,
        config: AlignerConfig | None = None,
        gold: Mapping[int, Alignment] | None = None,
        chunk_pairs: int | None = None,
    ) -> Workspace:
        """``create`` with every array kept in this process instead of a folder (for a corpus
        that fits in memory: the same EM, the same bits, no file; ``workspace_store``)."""
        return cls._create(MemoryStore(), pairs, config, gold, chunk_pairs)

    @classmethod
    def _create(cls, store, pairs, config, gold, chunk_pairs) -> Workspace:
        cfg = config or AlignerConfig()
        size = int(chunk_pairs or cfg.chunk_pairs)
        if size < 1:
            raise ValueError(f"chunk_pairs must be at least 1, got {size}")
        gold = dict(gold or {})
        kernels = get_kernels()
        enc = encode_chunks(store, pairs, chunk_pairs=size, lowercase=cfg.lowercase,
                            identity_lexicon=cfg.identity_lexicon,
                            gold_indices={int(n) for n in gold}, kernels=kernels)  # fmt: skip
        n_chunks = len(enc.chunk_starts)
        n_corpus_chunks = sum(1 for s in enc.chunk_starts if s < enc.n_pairs)
        row_off, col = build_table(store, n_chunks, len(enc.src_vocab))
        store.save("src_words.npy", enc.src_vocab.to_array())
        store.save("tgt_words.npy", enc.tgt_vocab.to_array())
        store.save("identity_entries.npy", identity_entries(enc, row_off, col, kernels))
        meta = {
            "format": FORMAT, "config": cfg.to_dict(), "chunk_pairs": size,
            "n_pairs": enc.n_pairs, "n_total": enc.n_pairs + len(enc.lexicon),
            "chunk_starts": enc.chunk_starts, "n_corpus_chunks": n_corpus_chunks,
            "n_src": len(enc.src_vocab), "n_tgt": len(enc.tgt_vocab), "n_entries": len(col),
            "max_states": enc.max_len, "lexicon_entries": len(enc.lexicon),
            "gold_pairs": len(gold),
        }  # fmt: skip
        ws = cls(store, meta)
        gold_counts(ws, enc, gold, row_off, col)
        ws._initial_params()
        ws._release_memory()
        store.save_json("meta.json", meta)
        return ws

    @classmethod
    def open(cls, path: str | Path) -> Workspace:
        """A workspace ``create`` made (in this or another process)."""
        root = Path(path)
        try:
            meta = json.loads((root / "meta.json").read_text())
        except (OSError, ValueError) as exc:
            raise ValueError(f"{root}: not an aligner workspace ({exc})") from exc
        if meta.get("format") != FORMAT:
            raise ValueError(f"{root}: workspace format {meta.get('format')}, expected {FORMAT}")
        return cls(FolderStore(root), meta)

    # -- shape of the run ----------------------------------------------------------------
    @property
    def n_chunks(self) -> int:
        """Chunks of pairs (the corpus's, then the identity lexicon's)."""
        return len(self.meta["chunk_starts"])

    @property
    def n_corpus_chunks(self) -> int:
        """The chunks holding corpus pairs (those ``align_chunk`` aligns): 0..this-1."""
        return int(self.meta["n_corpus_chunks"])

    @property
    def n_steps(self) -> int:
        """EM iterations: IBM1's, then the HMM's; each covers both directions."""
        return self.config.ibm1_iterations + self.config.hmm_iterations

    def step_label(self, step: int) -> str:
        """``"IBM1 iteration 2/5"``, ``"HMM iteration 1/5"``."""
        self._check_step(step)
        ibm1 = self.config.ibm1_iterations
        if step < ibm1:
            return f"IBM1 iteration {step + 1}/{ibm1}"
        return f"HMM iteration {step - ibm1 + 1}/{self.config.hmm_iterations}"

    def chunk_pairs(self, chunk: int) -> tuple[int, int]:
        """The [lo, hi) corpus pair indices of a chunk (lexicon chunks: beyond ``n_pairs``)."""
        starts = [*self.meta["chunk_starts"], self.meta["n_total"]]
        return int(starts[chunk]), int(starts[chunk + 1])

    def is_done(self, step: int) -> bool:
        """Whether ``mstep(step)`` has written the parameters of step + 1."""
        return self.store.exists(self._params_path(step + 1, ".npz"))

    # -- EM ------------------------------------------------------------------------------
    def estep(self, step: int, chunk: int, direction: int | None = None) -> None:
        """Expected counts of one chunk under the parameters of ``step``, written to
        ``counts/sSSS/`` (see the module docstring): both directions, or only ``direction``
        (0 = source→target, 1 = target→source; then the process holds only that direction's
        table, and the chunk is complete once both have run)."""
        self._check_step(step)
        if not 0 <= chunk < self.n_chunks:
            raise ValueError(f"chunk {chunk} out of range 0..{self.n_chunks - 1}")
        if direction not in (None, 0, 1):
            raise ValueError(f"direction must be 0, 1 or None, got {direction!r}")
        data = em_chunks.load_chunk(self, chunk)
        hmm = step >= self.config.ibm1_iterations
        jumps = self._jumps(step)
        folder = self._counts_dir(step)
        for i in (0, 1) if direction is None else (direction,):
            t = self._t(step, i)
            result = em_chunks.estep(self, data, DIRECTIONS[i], t, jumps[i], hmm)
            em_chunks.write_counts(self.store, folder, chunk, "fb"[i], result)
            del result
        del data

    def mstep(self, step: int) -> None:
        """Parameters of ``step + 1`` from every chunk's counts of ``step`` (chunk order)."""
        self._check_step(step)
        folder = self._counts_dir(step)
        missing = [
            c for c in range(self.n_chunks) if not em_chunks.counts_done(self.store, folder, c)
        ]
        if missing:
            shown = ", ".join(map(str, missing[:10])) + (" …" if len(missing) > 10 else "")
            raise ValueError(f"step {step}: no counts yet for chunk(s) {shown}")
        self._release_memory()  # what the E-steps freed, before the M-step's tables
        em_chunks.mstep(self, step, folder)
        self._forget(step - 1)
        self._release_memory()

    def model(self) -> AlignerModel:
        """The trained model (after the last M-step)."""
        last = self.n_steps
        self._check_finished()
        z = self.store.load_arrays(self._params_path(last, ".npz"))
        lls = {k: v.tolist() for k, v in z.items() if k.startswith("ll_")}
        jumps = [z["jump_f"], z["jump_b"]]
        ibm1 = self.config.ibm1_iterations
        directions = []
        for i, tag in enumerate("fb"):
            K = self.n_entries
            t = np.empty(K + 2, dtype=np.float32)
            t[:K] = self._t(last, i)
            t[K] = t[K + 1] = self.config.unseen_prob
            ll = lls[f"ll_{tag}"]
            directions.append(TrainedDirection(t, jumps[i], ll[:ibm1], ll[ibm1:]))
        model = AlignerModel(
            config=self.config, src_vocab=self.src_vocab, tgt_vocab=self.tgt_vocab,
            row_off=self.row_off, col=self.col, forward=directions[0], backward=directions[1],
            info={"pairs": self.meta["n_pairs"], "gold_pairs": self.meta["gold_pairs"],
                  "lexicon_entries": self.meta["lexicon_entries"], "table_entries": K},
        )  # fmt: skip
        model.set_identity_fallback(self.store.load("identity_entries.npy"))
        return model

    def alignments(self, chunk: int) -> list[Alignment]:
        """The trained model's links of one corpus chunk (``config.symmetrize``), straight from
        the chunk's stored cells: one direction's table in memory at a time, no vocabulary."""
        if not 0 <= chunk < self.n_corpus_chunks:
            raise ValueError(f"chunk {chunk} holds no corpus pairs (0..{self.n_corpus_chunks - 1})")
        last = self.n_steps
        self._check_finished()
        data = em_chunks.load_chunk(self, chunk)
        jumps = self._jumps(last)
        tables = [self._t_entries(last, i, data.entries) for i in (0, 1)]

        def states(i: int) -> list[np.ndarray]:
            return viterbi_states(self.config, data.corpus, data.cells, data.cell_off,
                                  DIRECTIONS[i], tables[i], jumps[i])  # fmt: skip

        forward, backward = in_threads(states, (0, 1), self.config.threads)  # side by side
        return symmetrised(data.corpus, forward, backward, self.config.symmetrize)

    def align_chunk(
        self,
        chunk: int,
        out: str | Path,
        posteriors: bool = False,
        model: AlignerModel | None = None,
    ) -> None:
        """``alignments(chunk)`` written atomically to ``out`` (``.npz``; ``read_links`` reads
        it), with the posterior matrices when ``posteriors`` (those need ``model``, default
        ``self.model()``: pass it when aligning many chunks in one process)."""
        links = self.alignments(chunk)
        data = em_chunks.load_chunk(self, chunk) if posteriors else None
        if posteriors:
            model = model or self.model()
        write_links(Path(out), links, self.chunk_pairs(chunk)[0], model, data)

    # -- files ---------------------------------------------------------------------------
    @cached_property
    def row_off(self) -> np.ndarray:
        return self.store.load("table_row_off.npy")

    @property
    def col(self) -> np.ndarray:
        """The table's target ids, memory-mapped afresh: a caller that drops it unmaps it (the
        E-steps and the aligning never need it resident)."""
        return self.store.load_mapped("table_col.npy")

    @cached_property
    def src_vocab(self) -> Vocabulary:
        return Vocabulary.from_array(self.store.load("src_words.npy"))

    @cached_property
    def tgt_vocab(self) -> Vocabulary:
        return Vocabulary.from_array(self.store.load("tgt_words.npy"))

    @cached_property
    def _gold(self) -> dict[str, np.ndarray]:
        return self.store.load_arrays("gold.npz")

    @property
    def gold_pair_idx(self) -> np.ndarray:
        """The hand-aligned pairs (sorted corpus indices)."""
        return self._gold["pair_idx"]

    def observed(self, d_index: int) -> dict[str, np.ndarray] | None:
        """The gold's observed counts in one direction (sorted table ``idx``, ``t``, ``jumps``,
        ``rows``), or None without gold."""
        g = self._gold
        if not len(g["pair_idx"]):
            return None
        tag = "fb"[d_index]
        return {"idx": g["idx"], "t": g[f"t_{tag}"], "jumps": g[f"jumps_{tag}"],
                "rows": g[f"rows_{tag}"]}  # fmt: skip

    @property
    def n_entries(self) -> int:
        return int(self.meta["n_entries"])

    @cached_property
    def jump_classes(self) -> tuple[np.ndarray, int, int]:
        cfg = self.config
        return jump_class_table(self.meta["max_states"], cfg.jump_exact, cfg.jump_buckets)

    def _release_memory(self) -> None:
        """``release_memory`` before and after an M-step over files (~1 ms a call): an in-memory
        workspace keeps its arrays anyway, and its corpus is one chunk. Not after each E-step:
        the next chunk reuses the memory its predecessor freed, where trimming it would make
        the kernel fault every page in again (1.75 M minor faults against 0.94 M on 100,000
        pairs, docs/benchmarks.md)."""
        if isinstance(self.store, FolderStore):
            release_memory()

    def _check_step(self, step: int) -> None:
        if not 0 <= step < self.n_steps:
            raise ValueError(f"step {step} out of range 0..{self.n_steps - 1}")

    def _check_finished(self) -> None:
        last = self.n_steps
        if not self.store.exists(self._params_path(last, ".npz")):
            where = getattr(self.store, "root", "the workspace")
            raise ValueError(f"{where}: training is not finished (step {last} not reached)")

    def _params_path(self, step: int, suffix: str) -> str:
        return f"params/p{step:03d}{suffix}"

    def _counts_dir(self, step: int) -> str:
        return f"counts/s{step:03d}"

    def _t(self, step: int, d_index: int) -> np.ndarray:
        """t of a direction before ``step`` (float32, read once per process and step)."""
        key = (step, d_index)
        with self._lock:
            if key not in self._t_cache:
                self._t_cache = {}  # one table at a time: E-steps run direction by direction
                self._t_cache[key] = self.store.load(
                    self._params_path(step, f".{'fb'[d_index]}.npy")
                )
            return self._t_cache[key]

    def _t_entries(self, step: int, d_index: int, entries: np.ndarray) -> np.ndarray:
        """``_t(step, d_index)[entries]`` gathered from the mapped file: aligning chunk after
        chunk reads both directions' tables, and a copy of each per chunk (the one-table
        cache) would read both whole for every chunk."""
        mapped = self.store.load_mapped(self._params_path(step, f".{'fb'[d_index]}.npy"))
        try:
            return mapped[entries]
        finally:
            del mapped

    def drop_tables(self) -> None:
        """Forget the t tables read so far (the next ``_t`` reads its file again)."""
        with self._lock:
            self._t_cache = {}

    def _jumps(self, step: int) -> list[np.ndarray]:
        z = self.store.load_arrays(self._params_path(step, ".npz"))
        return [z["jump_f"], z["jump_b"]]

    def _initial_params(self) -> None:
        """Step 0: t uniform over each direction's emitted vocabulary, uniform jumps."""
        n_classes = self.jump_classes[2]
        for tag, n_emit in (("f", self.meta["n_tgt"]), ("b", self.meta["n_src"])):
            t = np.full(self.n_entries, 1.0 / n_emit, dtype=np.float32)
            self.store.save(self._params_path(0, f".{tag}.npy"), t)
            del t  # before the next direction's: one table in memory, not two
        w = initial_jump_weights(n_classes)
        self.write_params(0, {"jump_f": w, "jump_b": w, "ll_f": [], "ll_b": []})

    def write_params(self, step: int, arrays: dict) -> None:
        """The small parameters of ``step`` (written after its t files: their marker)."""
        self.store.save_arrays(
            self._params_path(step, ".npz"),
            {k: np.asarray(v, np.float64) for k, v in arrays.items()},
        )

    def write_t(self, step: int, d_index: int, t: np.ndarray) -> None:
        self.store.save(self._params_path(step, f".{'fb'[d_index]}.npy"), t)

    def params_lls(self, step: int) -> dict[str, list[float]]:
        z = self.store.load_arrays(self._params_path(step, ".npz"))
        return {"ll_f": z["ll_f"].tolist(), "ll_b": z["ll_b"].tolist()}

    def _forget(self, step: int) -> None:
        """Drop what no later step reads: the counts of ``step`` and its t files."""
        if step < 0:
            return
        self.store.remove_folder(self._counts_dir(step))
        for tag in "fb":
            self.store.remove(self._params_path(step, f".{tag}.npy"))
