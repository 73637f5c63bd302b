"""``train()``: IBM Model 1 then the HMM, by EM in both directions (SPEC §7).

The two directions are independent until symmetrisation, so with ``threads >= 2`` they run
side by side in two threads (the kernels release the GIL). A large corpus's E-step is also cut
into chunks (by corpus size alone, so results never depend on ``threads``), which a pool of
``threads`` workers runs. Progress is reported from the calling thread only.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from alignment_core.aligner._kernels import get_kernels
from alignment_core.aligner.config import AlignerConfig
from alignment_core.aligner.hmm import initial_jump_weights, train_hmm
from alignment_core.aligner.ibm1 import train_ibm1
from alignment_core.aligner.model import AlignerModel, TrainedDirection
from alignment_core.aligner.supervised import GoldLinks, observed_counts
from alignment_core.aligner.table import (
    DIRECTIONS,
    CellTable,
    Direction,
    EStepRunner,
    TNormaliser,
    build_table,
    jump_class_table,
)
from alignment_core.aligner.vocab import FlatCorpus, Vocabulary, encode_corpus, normalise_tokens
from alignment_core.alignment import Alignment
from alignment_core.progress import Progress, silent

# E-step chunks: about one per CELLS_PER_CHUNK cells, at most MAX_CHUNKS per direction.
CELLS_PER_CHUNK = 2_000_000
MAX_CHUNKS = 4
TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]


class _Cancelled(Exception):
    """Raised inside a worker when the caller's progress callback failed."""


@dataclass
class _Shared:
    """Read-only training data both directions use."""

    corpus: FlatCorpus
    table: CellTable
    keys: np.ndarray
    n_src_vocab: int
    n_tgt_vocab: int
    weights: np.ndarray
    gold: GoldLinks | None
    jclass: np.ndarray
    jofs: int
    n_classes: int
    max_states: int


def identity_lexicon(pairs: TokenPairs) -> list[str]:
    """Every word type of the corpus (both sides), in order of first appearance."""
    seen: dict[str, None] = {}
    for source, target in pairs:
        for w in source:
            seen.setdefault(w, None)
        for w in target:
            seen.setdefault(w, None)
    return list(seen)


def train(
    pairs: TokenPairs,
    config: AlignerConfig | None = None,
    gold: Mapping[int, Alignment] | None = None,
    progress: Progress | None = None,
) -> AlignerModel:
    """Train on token pairs; ``gold`` maps 0-based indices into ``pairs`` to hand alignments.

    ``progress(fraction, stage)`` is called from the calling thread after every iteration of
    every model and direction, with ``fraction`` in [0, 1] (0.0 first, 1.0 last). If it raises,
    training stops and the exception propagates.
    """
    cfg = config or AlignerConfig()
    kernels = get_kernels()
    report = progress or silent
    report(0.0, "preparing the corpus")
    toks = [
        (normalise_tokens(s, cfg.lowercase), normalise_tokens(t, cfg.lowercase)) for s, t in pairs
    ]
    lexicon = identity_lexicon(toks) if cfg.identity_lexicon else []
    src_vocab, tgt_vocab = Vocabulary(), Vocabulary()
    shared = _prepare(toks, lexicon, src_vocab, tgt_vocab, cfg, gold, kernels)
    forward, backward = _both_directions(shared, cfg, kernels, report)
    gold_links = shared.gold
    model = AlignerModel(
        config=cfg,
        src_vocab=src_vocab,
        tgt_vocab=tgt_vocab,
        keys=shared.keys,
        forward=forward,
        backward=backward,
        info={
            "pairs": len(toks),
            "gold_pairs": len(gold_links) if gold_links is not None else 0,
            "lexicon_entries": len(lexicon),
            "table_entries": len(shared.keys),
        },
    )
    model.set_identity_fallback(lexicon, toks)
    model.remember_training_corpus(toks, shared.corpus, shared.table)
    report(1.0, "trained")
    return model


def _prepare(toks, lexicon, src_vocab, tgt_vocab, cfg, gold, kernels) -> _Shared:
    """The training data both directions read: the corpus (the pairs, then the identity
    lexicon's one-word pairs) encoded into ``src_vocab``/``tgt_vocab``, its translation table,
    each pair's weight, the gold links and the jump classes."""
    corpus = encode_corpus(toks + [([w], [w]) for w in lexicon], src_vocab, tgt_vocab, grow=True)
    keys, table = build_table(corpus, len(src_vocab), len(tgt_vocab), kernels)
    n = len(toks)
    weights = np.ones(corpus.n_pairs)
    weights[n:] = cfg.identity_weight
    gold_links = None
    if gold:
        gold_links = GoldLinks(gold, corpus.src_len(), corpus.tgt_len(), cfg.gold_possible_weight)
        weights[gold_links.pair_idx] = 0.0
        # λ mixes the corpus's sentence pairs; the identity lexicon is prior knowledge (a
        # dictionary, as in Och & Ney 2000) and keeps its own weight.
        weights[:n] *= 1.0 - cfg.gold_lambda
    max_states = int(max(corpus.src_len().max(initial=1), corpus.tgt_len().max(initial=1)))
    jclass, jofs, n_classes = jump_class_table(max_states, cfg.jump_exact, cfg.jump_buckets)
    return _Shared(
        corpus, table, keys, len(src_vocab), len(tgt_vocab), weights, gold_links, jclass, jofs,
        n_classes, max_states,
    )  # fmt: skip


def _both_directions(shared: _Shared, cfg: AlignerConfig, kernels, report) -> list:
    """Both directions trained, one after the other or (``threads`` >= 2) side by side;
    ``report`` hears every iteration of each, from this thread."""
    total = 2 * (cfg.ibm1_iterations + cfg.hmm_iterations)
    cancel = threading.Event()
    parallel = cfg.threads >= 2
    # The chunking depends on the corpus only, so counts are summed in the same order and the
    # result is the same whatever the number of threads.
    chunks = int(min(MAX_CHUNKS, max(1, len(shared.table.cells) // CELLS_PER_CHUNK)))
    pool_cm = ThreadPoolExecutor(cfg.threads) if parallel and chunks > 1 else nullcontext(None)
    with pool_cm as pool:
        runner = EStepRunner(shared.table, chunks, pool)
        if parallel:
            events: queue.Queue = queue.Queue()
            return _run_parallel(shared, cfg, kernels, runner, events, cancel, report, total)
        results = []
        done = 0
        for d in DIRECTIONS:

            def direct(stage: str) -> None:
                nonlocal done
                done += 1
                report(done / total, stage)

            results.append(_train_direction(shared, d, cfg, kernels, runner, direct, cancel))
        return results


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


def _run_parallel(shared, cfg, kernels, runner, events, cancel, report, total):
    """Both directions in two threads; progress events are relayed from this thread."""
    done = 0
    with ThreadPoolExecutor(2) as drivers:
        futures = []
        for d in DIRECTIONS:

            def worker(d: Direction = d):
                try:
                    return _train_direction(
                        shared, d, cfg, kernels, runner, lambda s: events.put(s), cancel
                    )
                finally:
                    events.put(None)

            futures.append(drivers.submit(worker))
        finished = 0
        try:
            while finished < len(futures):
                stage = events.get()
                if stage is None:
                    finished += 1
                    continue
                done += 1
                report(done / total, stage)
        except BaseException:
            cancel.set()
            raise
        return [f.result() for f in futures]


def _train_direction(
    shared: _Shared,
    d: Direction,
    cfg: AlignerConfig,
    kernels,
    runner: EStepRunner,
    notify: Callable[[str], None],
    cancel: threading.Event,
) -> TrainedDirection:
    corpus = shared.corpus
    K = len(shared.keys)
    norm = TNormaliser.for_direction(
        d, shared.keys, shared.n_src_vocab, shared.n_tgt_vocab, cfg.t_smoothing
    )
    n_emit = shared.n_src_vocab if d.transposed else shared.n_tgt_vocab
    observed = _observed(shared, d, cfg, kernels)
    # t(emitted | state word) starts uniform over the emitted vocabulary
    t = np.full(K + 2, 1.0 / n_emit)

    def step(model: str, total: int) -> Callable[[int], None]:
        def on_iteration(it: int) -> None:
            if cancel.is_set():
                raise _Cancelled
            notify(f"{model} {d.name} iteration {it + 1}/{total}")

        return on_iteration

    common = dict(
        kernels=kernels,
        table=shared.table,
        src_off=corpus.src_off,
        tgt_off=corpus.tgt_off,
        weights=shared.weights,
        direction=d,
        norm=norm,
        t=t,
        observed=observed,
        runner=runner,
    )
    ll1 = train_ibm1(
        **common,
        iterations=cfg.ibm1_iterations,
        on_iteration=step("IBM1", cfg.ibm1_iterations),
    )
    jw = initial_jump_weights(shared.n_classes)
    ll2 = train_hmm(
        **common,
        jump_weights=jw,
        jclass=shared.jclass,
        jofs=shared.jofs,
        max_states=shared.max_states,
        null_prob=cfg.null_prob,
        end_jump=cfg.end_jump,
        iterations=cfg.hmm_iterations,
        on_iteration=step("HMM", cfg.hmm_iterations),
    )
    t[K] = t[K + 1] = cfg.unseen_prob  # the fallback slots (see AlignerModel)
    return TrainedDirection(t=t, jump_weights=jw, ibm1_loglik=ll1, hmm_loglik=ll2)


def _observed(shared: _Shared, d: Direction, cfg: AlignerConfig, kernels):
    """The gold's observed counts in direction ``d`` (seeds/004), or None without gold."""
    if shared.gold is None or not len(shared.gold):
        return None
    return observed_counts(
        kernels=kernels,
        gold=shared.gold,
        table=shared.table,
        src_off=shared.corpus.src_off,
        tgt_off=shared.corpus.tgt_off,
        direction=d,
        n_entries=len(shared.keys),
        n_classes=shared.n_classes,
        max_states=shared.max_states,
        jclass=shared.jclass,
        jofs=shared.jofs,
        end_jump=cfg.end_jump,
        weight=cfg.gold_lambda,
    )
