"""The chunked EM workspace: E-steps of chunks in any order and in separate opens (as Celery
workers run them) give the model ``train`` gives in one process, bit for bit."""

from __future__ import annotations

import random
import tempfile

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, train
from alignment_core.aligner.synthetic import synthetic_corpus
from alignment_core.aligner.training import run_em
from alignment_core.aligner.workspace import Workspace
from alignment_core.aligner.workspace_setup import read_links

CONFIG = AlignerConfig(ibm1_iterations=3, hmm_iterations=3, chunk_pairs=70, threads=1)


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus(300, vocab_size=250, min_len=5, max_len=11, seed=5)


def _run_shuffled(path, seed: int) -> None:
    """Every step's E-steps in a shuffled chunk order, each from a fresh ``open`` (a worker),
    one chunk run twice (a retried task), then the M-step from another fresh open."""
    rng = random.Random(seed)
    for step in range(Workspace.open(path).n_steps):
        chunks = list(range(Workspace.open(path).n_chunks))
        rng.shuffle(chunks)
        for chunk in [*chunks, chunks[0]]:
            Workspace.open(path).estep(step, chunk)
        Workspace.open(path).mstep(step)


def test_chunks_in_any_order_give_the_in_process_model(tmp_path, corpus):
    gold = {3: corpus.gold[3], 150: corpus.gold[150]}
    in_process = train(corpus.pairs, CONFIG, gold=gold)
    ws = Workspace.create(tmp_path / "ws", iter(corpus.pairs), CONFIG, gold=gold)
    assert ws.n_corpus_chunks == 5 and ws.n_chunks > ws.n_corpus_chunks  # + lexicon chunks
    assert ws.step_label(0) == "IBM1 iteration 1/3" and ws.step_label(4) == "HMM iteration 2/3"
    _run_shuffled(tmp_path / "ws", seed=1)
    model = Workspace.open(tmp_path / "ws").model()
    assert model.log_likelihoods == in_process.log_likelihoods
    assert np.array_equal(model.forward.t, in_process.forward.t)
    assert np.array_equal(model.backward.jump_weights, in_process.backward.jump_weights)
    links = []
    final = Workspace.open(tmp_path / "ws")
    for chunk in reversed(range(final.n_corpus_chunks)):
        final.align_chunk(chunk, tmp_path / f"links{chunk}.npz", model=model)
    for chunk in range(final.n_corpus_chunks):
        first, alignments = read_links(tmp_path / f"links{chunk}.npz")
        assert first == len(links)
        links.extend(alignments)
    assert links == in_process.align(corpus.pairs)


def test_the_m_step_waits_for_every_chunk(tmp_path, corpus):
    ws = Workspace.create(tmp_path / "ws", corpus.pairs[:100], CONFIG)
    ws.estep(0, 0)
    with pytest.raises(ValueError, match=r"no counts yet for chunk\(s\) 1, 2"):
        ws.mstep(0)
    with pytest.raises(ValueError, match="training is not finished"):
        ws.model()
    with pytest.raises(ValueError, match="step 6 out of range"):
        ws.estep(6, 0)


def test_a_workspace_needs_an_empty_folder(tmp_path, corpus):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "x").write_text("x")
    with pytest.raises(ValueError, match="empty folder"):
        Workspace.create(tmp_path / "ws", corpus.pairs[:10], CONFIG)
    with pytest.raises(ValueError, match="not an aligner workspace"):
        Workspace.open(tmp_path / "ws")


def test_a_corpus_of_one_chunk_trains_in_memory_to_the_folders_bits(tmp_path, corpus, monkeypatch):
    """``train`` keeps a corpus of at most one chunk (a list, or a stream read ahead) in memory
    — no file while it trains — and gets the very model a workspace folder gives; a longer
    stream goes to a folder."""
    pairs, gold = corpus.pairs[:70], {3: corpus.gold[3]}
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    seen: list[int] = []

    def progress(fraction, stage):
        seen.append(len(list((tmp_path / "tmp").rglob("*"))))

    for one_chunk in (pairs, iter(pairs)):
        seen.clear()
        in_memory = train(one_chunk, CONFIG, gold=gold, progress=progress)
        assert len(seen) > 2 and not any(seen)
    ws = Workspace.create(tmp_path / "ws", iter(pairs), CONFIG, gold=gold)
    run_em(ws)
    on_disk = ws.model()
    assert in_memory.log_likelihoods == on_disk.log_likelihoods
    assert np.array_equal(in_memory.forward.t, on_disk.forward.t)
    assert np.array_equal(in_memory.backward.t, on_disk.backward.t)
    assert np.array_equal(in_memory.forward.jump_weights, on_disk.forward.jump_weights)
    assert in_memory.align(pairs) == on_disk.align(pairs)
    seen.clear()
    train(iter(corpus.pairs[:71]), CONFIG, progress=progress)
    assert max(seen) > 0  # two chunks: trained in a folder


def test_the_m_step_and_alignment_on_threads_give_one_threads_bits(tmp_path, corpus, monkeypatch):
    """The M-step's blocks (made small here: many blocks a direction) normalised on two
    threads, and the two directions' Viterbi side by side, give the one-thread model and
    links bit for bit."""
    from alignment_core.aligner import em_chunks

    monkeypatch.setattr(em_chunks, "BLOCK_ENTRIES", 40)
    results = []
    for threads in (1, 2):
        cfg = CONFIG.replace(threads=threads)
        ws = Workspace.create(tmp_path / f"ws{threads}", iter(corpus.pairs), cfg)
        assert len(em_chunks._row_blocks(ws.row_off)) > 10
        run_em(ws, threads)
        links = [a for c in range(ws.n_corpus_chunks) for a in ws.alignments(c)]
        results.append((ws.model(), links))
    (one, one_links), (two, two_links) = results
    assert np.array_equal(one.forward.t, two.forward.t)
    assert np.array_equal(one.backward.t, two.backward.t)
    assert one.log_likelihoods == two.log_likelihoods
    assert one_links == two_links and sum(map(len, one_links)) > 1000
