"""The CSR translation table and the chunked EM give the probabilities of (a) a plain-Python
EM over a dense table of word strings (IBM Model 1) and (b) the whole-corpus EM loops over one
global cell table (``ibm1.train_ibm1`` / ``hmm.train_hmm``, the layout before chunking)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, train
from alignment_core.aligner._kernels import get_kernels
from alignment_core.aligner.hmm import initial_jump_weights, train_hmm
from alignment_core.aligner.ibm1 import train_ibm1
from alignment_core.aligner.synthetic import synthetic_corpus
from alignment_core.aligner.table import (
    DIRECTIONS,
    EStepRunner,
    TNormaliser,
    build_table,
    jump_class_table,
)
from alignment_core.aligner.vocab import Vocabulary, encode_corpus

NULL = None


@pytest.fixture(scope="module")
def pairs():
    corpus = synthetic_corpus(60, vocab_size=40, min_len=3, max_len=7, seed=11)
    return corpus.pairs


def _lexicon(pairs) -> list[str]:
    seen: dict[str, None] = {}
    for s, t in pairs:
        for w in (*s, *t):
            seen.setdefault(w, None)
    return list(seen)


def dense_ibm1(pairs, weights, iterations: int) -> dict:
    """Plain EM: t[(state word, emitted word)] for every co-occurring pair, NULL = None."""
    t: dict = defaultdict(lambda: 1.0)
    for _ in range(iterations):
        counts: dict = defaultdict(float)
        for (states, emitted), w in zip(pairs, weights, strict=True):
            for f in emitted:
                options = [*states, NULL]
                total = sum(t[(e, f)] for e in options)
                for e in options:
                    counts[(e, f)] += w * t[(e, f)] / total
        norm: dict = defaultdict(float)
        for (e, _f), c in counts.items():
            norm[e] += c
        t = defaultdict(float, {(e, f): c / norm[e] for (e, f), c in counts.items()})
    return t


def test_the_csr_table_gives_the_dense_em_probabilities(pairs):
    cfg = AlignerConfig(ibm1_iterations=3, hmm_iterations=0, chunk_pairs=13, threads=1)
    model = train(pairs, cfg)
    lexicon = _lexicon(pairs)
    all_pairs = [*pairs, *[([w], [w]) for w in lexicon]]
    weights = [1.0] * len(pairs) + [cfg.identity_weight] * len(lexicon)
    kernels = get_kernels()
    compared = 0
    for d, params in zip(DIRECTIONS, (model.forward, model.backward), strict=True):
        oriented = [(t, s) if d.transposed else (s, t) for s, t in all_pairs]
        oracle = dense_ibm1(oriented, weights, cfg.ibm1_iterations)
        for (e, f), p in oracle.items():
            src, tgt = (f, e) if d.transposed else (e, f)
            s_id = 0 if src is NULL else model.src_vocab.get(src)
            t_id = 0 if tgt is NULL else model.tgt_vocab.get(tgt)
            k = kernels.find_entry(model.row_off, model.col, s_id, t_id)
            assert k >= 0, (src, tgt)
            assert params.t[k] == pytest.approx(p, rel=2e-6, abs=1e-9)
            compared += 1
    # every entry of the table is a co-occurring pair the oracle knows (NULL rows included)
    assert compared == 2 * model.n_entries - _null_emitting(model)


def _null_emitting(model) -> int:
    """Entries no direction generates: the NULL column forward and the NULL row backward."""
    return int(np.sum(model.col == 0)) + int(model.row_off[1])


def whole_corpus_model(pairs, cfg: AlignerConfig) -> list[np.ndarray]:
    """Both directions' t (indexed by sorted keys) from the whole-corpus loops."""
    kernels = get_kernels()
    lexicon = _lexicon(pairs)
    src_vocab, tgt_vocab = Vocabulary(), Vocabulary()
    corpus = encode_corpus(
        [*pairs, *[([w], [w]) for w in lexicon]], src_vocab, tgt_vocab, grow=True
    )
    keys, table = build_table(corpus, len(src_vocab), len(tgt_vocab), kernels)
    weights = np.ones(corpus.n_pairs)
    weights[len(pairs) :] = cfg.identity_weight
    max_states = int(max(corpus.src_len().max(), corpus.tgt_len().max()))
    jclass, jofs, n_classes = jump_class_table(max_states, cfg.jump_exact, cfg.jump_buckets)
    out = []
    for d in DIRECTIONS:
        norm = TNormaliser.for_direction(d, keys, len(src_vocab), len(tgt_vocab), 0.0)
        n_emit = len(src_vocab) if d.transposed else len(tgt_vocab)
        t = np.full(len(keys) + 2, 1.0 / n_emit)
        common = dict(kernels=kernels, table=table, src_off=corpus.src_off,
                      tgt_off=corpus.tgt_off, weights=weights, direction=d, norm=norm, t=t,
                      observed=None, runner=EStepRunner(table, 1, None))  # fmt: skip
        train_ibm1(**common, iterations=cfg.ibm1_iterations)
        train_hmm(**common, jump_weights=initial_jump_weights(n_classes), jclass=jclass,
                  jofs=jofs, max_states=max_states, null_prob=cfg.null_prob,
                  end_jump=cfg.end_jump, iterations=cfg.hmm_iterations)  # fmt: skip
        out.append(t[: len(keys)])
    return out


def test_the_chunked_hmm_gives_the_whole_corpus_probabilities(pairs):
    cfg = AlignerConfig(ibm1_iterations=2, hmm_iterations=3, chunk_pairs=17, threads=2)
    model = train(pairs, cfg)
    reference = whole_corpus_model([([w.casefold() for w in s], [w.casefold() for w in t])
                                    for s, t in pairs], cfg)  # fmt: skip
    for params, ref in zip((model.forward, model.backward), reference, strict=True):
        assert len(ref) == model.n_entries  # the same co-occurring pairs, the same order
        np.testing.assert_allclose(params.t[: model.n_entries], ref, rtol=1e-5, atol=1e-9)
