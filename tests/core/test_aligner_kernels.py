"""The numba kernels against their plain-Python originals, and the jump classes."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, _kernels, train
from alignment_core.aligner._kernels import get_kernels
from alignment_core.aligner.synthetic import synthetic_corpus
from alignment_core.aligner.table import jump_class_table
from alignment_core.alignment import Alignment


@pytest.fixture(scope="module")
def tiny():
    return synthetic_corpus(16, vocab_size=25, min_len=3, max_len=6, seed=7)


def test_plain_path_gives_identical_alignments(tiny, monkeypatch):
    gold = {0: tiny.gold[0], 5: tiny.gold[5]}
    cfg = AlignerConfig(ibm1_iterations=3, hmm_iterations=3, threads=1)
    compiled = train(tiny.pairs, cfg, gold=gold)
    monkeypatch.setitem(_kernels._PLAIN, "default", True)
    assert (
        get_kernels().hmm_viterbi.__code__ is get_kernels(plain=False).hmm_viterbi.py_func.__code__
    )
    plain = train(tiny.pairs, cfg, gold=gold)
    for method in ("intersect", "grow-diag-final-and"):
        assert plain.align(tiny.pairs, symmetrize=method) == compiled.align(
            tiny.pairs, symmetrize=method
        )
    for a, b in zip(plain.posteriors(tiny.pairs), compiled.posteriors(tiny.pairs), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for name, values in plain.log_likelihoods.items():
        np.testing.assert_allclose(values, compiled.log_likelihoods[name], rtol=1e-9)


def test_plain_path_ibm1_decoding(tiny, monkeypatch):
    cfg = AlignerConfig(ibm1_iterations=3, hmm_iterations=0, threads=1)
    compiled = train(tiny.pairs, cfg).align(tiny.pairs)
    monkeypatch.setitem(_kernels._PLAIN, "default", True)
    assert train(tiny.pairs, cfg).align(tiny.pairs) == compiled


def test_jump_classes():
    table, offset, n_classes = jump_class_table(40, exact=3, buckets=2)
    assert n_classes == 2 * (3 + 2) + 1

    def cls(d: int) -> int:
        return int(table[d + offset])

    # exact widths -3..3, then (3, 6] and (6, ∞) on each side
    assert [cls(d) for d in range(-3, 4)] == [2, 3, 4, 5, 6, 7, 8]
    assert cls(4) == cls(6) == 9 and cls(7) == cls(40) == 10
    assert cls(-4) == cls(-6) == 1 and cls(-7) == cls(-40) == 0


def test_synthetic_corpus_is_seeded_and_consistent():
    a = synthetic_corpus(50, vocab_size=100, seed=11)
    b = synthetic_corpus(50, vocab_size=100, seed=11)
    c = synthetic_corpus(50, vocab_size=100, seed=12)
    assert a.pairs == b.pairs and a.gold == b.gold and a.pairs != c.pairs
    substituted = total = 0
    for (source, target), gold in zip(a.pairs, a.gold, strict=True):
        assert 15 <= len(source) <= 25
        gold.validate(len(source), len(target))
        assert isinstance(gold, Alignment) and not gold.possible
        targets = [j for _, j in gold.sure]
        assert len(targets) == len(set(targets))  # one-to-one
        for i, j in gold.sure:
            assert target[j] == source[i] or target[j].startswith(source[i] + "~")
            substituted += target[j] != source[i]
            total += 1
    assert 0.12 < substituted / total < 0.28


def test_edit_distances_compiled_and_plain_agree():
    rng = np.random.default_rng(0)
    width, count = 12, 300
    a = rng.integers(97, 101, size=(count, width))  # a small alphabet: many shared letters
    b = rng.integers(97, 101, size=(count, width))
    la, lb = rng.integers(0, width + 1, count), rng.integers(0, width + 1, count)
    compiled, plain = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
    get_kernels(plain=False).edit_distances(a, la, b, lb, compiled)
    get_kernels(plain=True).edit_distances(a, la, b, lb, plain)
    assert np.array_equal(compiled, plain)
    assert (compiled <= np.maximum(la, lb)).all() and (compiled >= np.abs(la - lb)).all()


def test_the_edge_chooses_plain_kernels(monkeypatch, tmp_path):
    """Only an edge reads GRIDALIGN_ALIGNER_PLAIN (here the CLI, as it starts a command): the
    kernels module never reads the environment, so setting the variable alone changes nothing."""
    from alignment_core.cli import main

    monkeypatch.setitem(_kernels._PLAIN, "default", False)
    monkeypatch.setenv("GRIDALIGN_ALIGNER_PLAIN", "1")
    assert get_kernels().hmm_viterbi is get_kernels(plain=False).hmm_viterbi
    main(["resources", "status", "--folder", str(tmp_path)])  # exit 1: nothing installed there
    assert (
        get_kernels().hmm_viterbi.__code__ is get_kernels(plain=False).hmm_viterbi.py_func.__code__
    )
    monkeypatch.setenv("GRIDALIGN_ALIGNER_PLAIN", "0")
    main(["resources", "status", "--folder", str(tmp_path)])
    assert get_kernels().hmm_viterbi is get_kernels(plain=False).hmm_viterbi


def test_a_plain_twin_is_plain_throughout():
    """A kernel split into parts: its plain twin calls the parts' plain originals, not their
    compiled versions, so the plain path checks the compiled one end to end."""
    from numba.core.dispatcher import Dispatcher

    plain, compiled = get_kernels(plain=True), get_kernels(plain=False)
    parts = {
        "hmm_forward_backward": ("_forward", "_backward", "_count_jumps", "_last_position"),
        "hmm_viterbi": ("_log_transitions", "_viterbi_forward", "_viterbi_trace"),
        "observed_counts": ("_link_weights", "_count_gold_pair"),
    }
    for kernel, names in parts.items():
        twin = getattr(plain, kernel)
        assert not isinstance(twin, Dispatcher) and isinstance(
            getattr(compiled, kernel), Dispatcher
        )
        for name in names:
            assert isinstance(getattr(compiled, kernel).py_func.__globals__[name], Dispatcher)
            assert not isinstance(twin.__globals__[name], Dispatcher), (kernel, name)
