"""The workspace's EM arithmetic: one chunk's E-step, and the M-step summing every chunk.

A chunk's cells index its own sorted list of distinct word pairs (``entries``, table indices),
so an E-step gathers ``t[entries]`` (float64) and produces counts for those entries only:
its memory grows with the chunk, never with the table. The M-step adds the chunks' counts
block of table rows by block of table rows, in chunk order, into float64 accumulators and
normalises them (``_csr_kernels``) into the next float32 t.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alignment_core.aligner.corpus_store import chunk_name
from alignment_core.aligner.hmm import MM_ITERATIONS
from alignment_core.aligner.table import DIRECTIONS, Direction
from alignment_core.aligner.threads import in_order
from alignment_core.aligner.vocab import FlatCorpus

# Table entries per M-step block (its float64 accumulator: 8 bytes each).
BLOCK_ENTRIES = 1_000_000
_EMPTY = np.zeros(0)
_EMPTY_OFF = np.zeros(1, dtype=np.int64)


@dataclass
class ChunkData:
    """One chunk: ids (offsets local), cells as indices into ``entries`` (sorted table indices)."""

    corpus: FlatCorpus
    cells: np.ndarray
    cell_off: np.ndarray
    entries: np.ndarray
    weights: np.ndarray


def load_chunk(ws, chunk: int) -> ChunkData:
    z = ws.store.load_arrays(chunk_name(chunk))
    corpus = FlatCorpus(z["src"], z["src_off"], z["tgt"], z["tgt_off"])
    cells, cell_off = z["cells"], z["cell_off"]
    entries = ws.store.load(chunk_name(chunk, ".entries.npy"))
    lo, hi = ws.chunk_pairs(chunk)
    return ChunkData(corpus, cells, cell_off, entries, chunk_weights(ws, lo, hi))


def chunk_weights(ws, lo: int, hi: int) -> np.ndarray:
    """Each pair's weight: 1 (× 1 − λ with gold), 0 for a hand-aligned pair, the identity
    weight for the lexicon's pairs."""
    cfg = ws.config
    if lo >= ws.meta["n_pairs"]:
        return np.full(hi - lo, cfg.identity_weight)
    weights = np.ones(hi - lo)
    gold = ws.gold_pair_idx
    if len(gold):
        inside = gold[(gold >= lo) & (gold < hi)]
        weights[inside - lo] = 0.0
        weights *= 1.0 - cfg.gold_lambda
    return weights


def estep(ws, data: ChunkData, d: Direction, t_table: np.ndarray, jw: np.ndarray, hmm: bool):
    """One direction's expected counts over the chunk: ll, counts per entry, jumps, rows."""
    cfg, k = ws.config, ws.kernels
    c = data.corpus
    t = t_table[data.entries].astype(np.float64)
    counts = np.zeros(len(data.entries))
    n = c.n_pairs
    if not hmm:
        ll = k.ibm1_estep(c.src_off, c.tgt_off, data.cells, data.cell_off, data.weights, 0, n,
                          d.transposed, t, counts)  # fmt: skip
        return {"ll": ll, "counts": counts, "jumps": _EMPTY, "rows": np.zeros((0, 0))}
    jclass, jofs, n_classes = ws.jump_classes
    S = ws.meta["max_states"]
    jumps, rows = np.zeros(n_classes), np.zeros((S + 1, S + 1))
    ll = k.hmm_forward_backward(
        c.src_off, c.tgt_off, data.cells, data.cell_off, data.weights, 0, n, d.transposed, t,
        jw, jclass, np.int64(jofs), cfg.null_prob, cfg.end_jump, True, counts, jumps, rows,
        _EMPTY, _EMPTY_OFF,
    )  # fmt: skip
    return {"ll": ll, "counts": counts, "jumps": jumps, "rows": rows}


def _counts_file(folder: str, chunk: int, suffix: str) -> str:
    return f"{folder}/c{chunk:05d}{suffix}"


def write_counts(store, folder: str, chunk: int, tag: str, result: dict) -> None:
    """One direction's counts, then the small ``.{tag}.done.npz`` that marks them complete."""
    store.save(_counts_file(folder, chunk, f".{tag}.npy"), result["counts"])
    small = {"ll": result["ll"], "jumps": result["jumps"], "rows": result["rows"]}
    store.save_arrays(_counts_file(folder, chunk, f".{tag}.done.npz"), small)


def counts_done(store, folder: str, chunk: int, tags: str = "fb") -> bool:
    return all(store.exists(_counts_file(folder, chunk, f".{tag}.done.npz")) for tag in tags)


def _small_sums(ws, folder: str, tag: str, hmm: bool):
    """The chunks' log-likelihoods, jump counts and row counts, added in chunk order."""
    ll, jumps, rows = 0.0, None, None
    if hmm and not ws.n_chunks:
        S = ws.meta["max_states"]
        jumps, rows = np.zeros(ws.jump_classes[2]), np.zeros((S + 1, S + 1))
    for c in range(ws.n_chunks):
        z = ws.store.load_arrays(_counts_file(folder, c, f".{tag}.done.npz"))
        ll += float(z["ll"])
        if hmm:
            if jumps is None:
                jumps, rows = z["jumps"].copy(), z["rows"].copy()
            else:
                jumps += z["jumps"]
                rows += z["rows"]
    return ll, jumps, rows


def mstep(ws, step: int, folder: str) -> None:
    """Write the parameters of ``step + 1`` (t files first, then the small ``.npz`` marker)."""
    cfg, k = ws.config, ws.kernels
    hmm = step >= cfg.ibm1_iterations
    old_jumps = ws._jumps(step)
    lls = ws.params_lls(step)
    jclass, jofs, _ = ws.jump_classes
    out: dict = {}
    for i, d in enumerate(DIRECTIONS):
        tag = "fb"[i]
        ll, jumps, rows = _small_sums(ws, folder, tag, hmm)
        obs = ws.observed(i)
        jw = old_jumps[i]
        if obs is not None:
            mask = obs["t"] > 0
            t_old = ws._t(step, i)[obs["idx"][mask]]
            logs = np.log(np.maximum(t_old.astype(np.float64), 1e-300))
            ll += float(np.dot(obs["t"][mask], logs))
            if hmm:
                ll += k.jump_loglik(obs["jumps"], obs["rows"], jw, jclass, np.int64(jofs),
                                    cfg.end_jump)  # fmt: skip
                jumps += obs["jumps"]
                rows += obs["rows"]
        if cfg.t_smoothing:
            col = np.asarray(ws.col)
            first = ws.row_off[1]
            t_old = ws._t(step, i)
            ll += cfg.t_smoothing * k.log_prior_sum(t_old, ws.row_off, col, i == 0, first)
        ws.drop_tables()  # the M-step holds the table's columns and the new t only
        ws.write_t(step + 1, i, _normalise(ws, folder, i, d, obs))
        if hmm:
            jw = k.jump_mstep(jumps, rows, jw, jclass, np.int64(jofs), cfg.end_jump, MM_ITERATIONS)
        out[f"jump_{tag}"] = jw
        out[f"ll_{tag}"] = [*lls[f"ll_{tag}"], ll]
    ws.write_params(step + 1, out)


def _row_blocks(row_off: np.ndarray) -> list[tuple[int, int]]:
    """Rows [r0, r1) holding at most BLOCK_ENTRIES entries each (unless one row alone does)."""
    n_rows = len(row_off) - 1
    blocks, r0 = [], 0
    while r0 < n_rows:
        r1 = int(np.searchsorted(row_off, row_off[r0] + BLOCK_ENTRIES, side="right")) - 1
        r1 = min(max(r1, r0 + 1), n_rows)
        blocks.append((r0, r1))
        r0 = r1
    return blocks


class _ChunkCounts:
    """Every chunk's counts of one direction, read block by block: each chunk's cut points at
    the block bounds are found once (its entries are sorted)."""

    def __init__(self, ws, folder: str, tag: str, bounds: np.ndarray, obs) -> None:
        self.ws, self.obs = ws, obs
        self.files = []
        for c in range(ws.n_chunks):
            entries_name = chunk_name(c, ".entries.npy")
            cuts = np.searchsorted(ws.store.load_mapped(entries_name), bounds)
            counts_name = _counts_file(folder, c, f".{tag}.npy")
            self.files.append((ws.store.slices(entries_name, np.int32),
                               ws.store.slices(counts_name, np.float64), cuts))  # fmt: skip

    def block(self, b: int, lo: int, hi: int) -> np.ndarray:
        """Entries lo..hi-1 (block b)'s counts: every chunk's, in chunk order, then observed."""
        acc = np.zeros(hi - lo)
        add = self.ws.kernels.add_sorted
        for entries, counts, cuts in self.files:
            a, z = int(cuts[b]), int(cuts[b + 1])
            if z > a:
                add(acc, lo, entries.read(a, z), counts.read(a, z))
        if self.obs is not None:
            a, z = np.searchsorted(self.obs["idx"], [lo, hi])
            add(acc, lo, self.obs["idx"][a:z], self.obs["t"][a:z])
        return acc


def _normalise(ws, folder: str, i: int, d: Direction, obs) -> np.ndarray:
    """The next t of direction ``i`` (float32), as ``_kernels.normalize_t`` computes it.

    The blocks' counts are read and normalised on ``config.threads`` threads (the kernels
    release the GIL; each block writes its own rows of t). The backward direction's column
    totals are still added block by block in order, so the result is the same, bit for bit,
    on any number of threads. Each block maps the table's columns afresh and drops the mapping
    when done, so the columns are never resident whole (74 MB of a 100,000-pair corpus's)."""
    k, alpha = ws.kernels, float(ws.config.t_smoothing)
    row_off = ws.row_off
    first = int(row_off[1]) if len(row_off) > 1 else 0
    t = np.zeros(ws.n_entries, dtype=np.float32)
    blocks = _row_blocks(row_off)
    forward = not d.transposed
    tot = np.zeros(ws.meta["n_tgt"])
    bounds = np.array([row_off[r0] for r0, _ in blocks] + [row_off[-1]], dtype=np.int64)
    counts = _ChunkCounts(ws, folder, "fb"[i], bounds, obs)

    def block(b: int) -> np.ndarray:
        r0, r1 = blocks[b]
        return counts.block(b, int(row_off[r0]), int(row_off[r1]))

    def normalise(b: int) -> None:
        r0, r1 = blocks[b]
        acc, lo, z = block(b), int(row_off[r0]), np.zeros(r1 - r0)
        col = np.asarray(ws.col)  # a block's own mapping: only its pages become resident
        if forward:
            k.row_sums(acc, lo, row_off, col, r0, r1, alpha, z)
        k.normalise_block(acc, lo, row_off, col, r0, r1, forward, first, z, tot, alpha, t)

    workers = min(ws.config.threads, len(blocks))
    if not forward:  # in block order: the same sums whatever the threads
        for b, acc in enumerate(in_order(block, range(len(blocks)), workers)):
            k.col_sums(acc, int(row_off[blocks[b][0]]), first, np.asarray(ws.col), alpha, tot)
    for _ in in_order(normalise, range(len(blocks)), workers):
        pass
    return t
