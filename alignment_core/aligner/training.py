"""``train()``: IBM Model 1 then the HMM, by EM in both directions (SPEC §7).

Training runs the chunked EM of ``workspace`` in a temporary folder: the corpus is encoded
while it streams in, cut into chunks of ``config.chunk_pairs`` pairs, and every iteration's
E-step runs chunk by chunk (on ``config.threads`` threads: two chunks side by side, or the two
directions of a single chunk) before one M-step adds the chunks' counts in chunk order. So
memory is bounded by the vocabulary and the table, not the corpus, the result never depends
on ``threads``, and a run spread over workers (the same ``Workspace`` calls) gives the very
same model. Progress is reported from the calling thread only.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping, Sequence, Sized
from concurrent.futures import ThreadPoolExecutor
from itertools import chain, islice
from pathlib import Path

from alignment_core.aligner.config import AlignerConfig
from alignment_core.aligner.model import AlignerModel
from alignment_core.aligner.table import DIRECTIONS
from alignment_core.aligner.threads import in_threads
from alignment_core.aligner.workspace import Workspace
from alignment_core.alignment import Alignment
from alignment_core.progress import Progress, silent

TokenPairs = Iterable[tuple[Sequence[str], Sequence[str]]]


def train(
    pairs: TokenPairs,
    config: AlignerConfig | None = None,
    gold: Mapping[int, Alignment] | None = None,
    progress: Progress | None = None,
) -> AlignerModel:
    """Train on token pairs (any iterable: it is read once, as it streams); ``gold`` maps
    0-based indices into ``pairs`` to hand alignments.

    ``progress(fraction, stage)`` is called from the calling thread after every iteration of
    every model and direction, with ``fraction`` in [0, 1] (0.0 first, 1.0 last). If it raises,
    training stops and the exception propagates.
    """
    cfg = config or AlignerConfig()
    report = progress or silent
    report(0.0, "preparing the corpus")
    one_chunk, pairs = _one_chunk(pairs, cfg.chunk_pairs)
    if one_chunk:
        ws = Workspace.in_memory(pairs, cfg, gold)
        run_em(ws, cfg.threads, report)
        model = ws.model()
    else:
        with tempfile.TemporaryDirectory(prefix="gridalign-em-") as tmp:
            ws = Workspace.create(Path(tmp) / "em", pairs, cfg, gold)
            run_em(ws, cfg.threads, report)
            model = ws.model()
    report(1.0, "trained")
    return model


def _one_chunk(pairs: TokenPairs, chunk_pairs: int) -> tuple[bool, TokenPairs]:
    """Whether ``pairs`` are one chunk's worth, and the pairs to read (a stream's first chunk
    read ahead, then the rest). Such a corpus trains in memory (``Workspace.in_memory``, no
    file): the E-step holds a whole chunk in memory anyway."""
    if isinstance(pairs, Sized):
        return len(pairs) <= chunk_pairs, pairs
    stream = iter(pairs)
    head = list(islice(stream, chunk_pairs + 1))
    if len(head) <= chunk_pairs:
        return True, head
    return False, chain(head, stream)


def run_em(ws: Workspace, threads: int = 1, progress: Progress | None = None) -> None:
    """Every remaining EM step of ``ws`` in this process: each step's chunks on ``threads``
    threads, then its M-step. ``progress`` hears each step, once per direction."""
    report = progress or silent
    total = 2 * ws.n_steps
    cfg = ws.config
    parallel_chunks = threads >= 2 and ws.n_chunks > 1
    with ThreadPoolExecutor(threads) if parallel_chunks else _no_pool() as pool:
        for step in range(ws.n_steps):
            if ws.is_done(step):
                continue
            _esteps(ws, step, pool, threads)
            ws.mstep(step)
            model, it, n = ("IBM1", step + 1, cfg.ibm1_iterations)
            if step >= cfg.ibm1_iterations:
                model, it, n = ("HMM", step + 1 - cfg.ibm1_iterations, cfg.hmm_iterations)
            for k, d in enumerate(DIRECTIONS):
                done = 2 * step + k + 1
                report(min(done / total, 0.999), f"{model} {d.name} iteration {it}/{n}")


def _esteps(ws: Workspace, step: int, pool, threads: int) -> None:
    """Every chunk's E-step, direction by direction (one table in memory at a time): chunks on
    the pool, or a single chunk's two directions side by side."""
    if pool is not None:
        for i in (0, 1):
            list(pool.map(lambda c, i=i: ws.estep(step, c, i), range(ws.n_chunks)))
    elif threads >= 2 and ws.n_chunks == 1:
        in_threads(lambda i: ws.estep(step, 0, i), (0, 1), 2)
    else:
        for i in (0, 1):
            for chunk in range(ws.n_chunks):
                ws.estep(step, chunk, i)


class _no_pool:
    def __enter__(self):
        return None

    def __exit__(self, *exc) -> None:
        return None


def retrain(
    model: AlignerModel,
    pairs: TokenPairs,
    gold: Mapping[int, Alignment] | None = None,
    progress: Progress | None = None,
) -> AlignerModel:
    """A new model trained from scratch with ``model``'s config (e.g. once gold has grown).

    EM restarts from uniform parameters: the result does not depend on ``model``'s
    parameters, only on ``pairs`` and ``gold`` (indices into ``pairs``, 0-based). (A function
    here, not a method of the model, so ``model`` never imports ``training``.)
    """
    return train(pairs, config=model.config, gold=gold, progress=progress)
