"""The seeding aligner on toy corpora whose alignments are known (no shared data needed)."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.agreement.word import score_word
from alignment_core.aligner import AlignerConfig, AlignerModel, retrain, train
from alignment_core.aligner.synthetic import synthetic_corpus
from alignment_core.alignment import Alignment

# French→English with adjective-noun reordering; the correct word pairs are unambiguous.
FRENCH = [
    ("la maison", "the house"),
    ("la maison bleue", "the blue house"),
    ("la fleur bleue", "the blue flower"),
    ("la fleur", "the flower"),
    ("une maison", "a house"),
    ("une fleur rouge", "a red flower"),
    ("la maison rouge", "the red house"),
    ("une fleur", "a flower"),
    ("une maison bleue", "a blue house"),
]
FRENCH_PAIRS = [(s.split(), t.split()) for s, t in FRENCH]
LEXICON = {
    ("la", "the"),
    ("une", "a"),
    ("maison", "house"),
    ("fleur", "flower"),
    ("bleue", "blue"),
    ("rouge", "red"),
}


def french_gold(source: list[str], target: list[str]) -> set[tuple[int, int]]:
    return {(i, j) for i, s in enumerate(source) for j, t in enumerate(target) if (s, t) in LEXICON}


@pytest.fixture(scope="module")
def small_synthetic():
    return synthetic_corpus(400, vocab_size=300, min_len=6, max_len=12, seed=3)


@pytest.fixture(scope="module")
def small_model(small_synthetic):
    return train(small_synthetic.pairs, AlignerConfig())


def aer(pairs, predicted, gold) -> float:
    items = [(s, t, a, g) for (s, t), a, g in zip(pairs, predicted, gold, strict=True)]
    return score_word(items, include_identical=True).aer


def test_bilingual_toy_links_are_right():
    model = train(FRENCH_PAIRS, AlignerConfig(identity_lexicon=False))
    predicted = model.align(FRENCH_PAIRS)
    found = right = expected = 0
    for (s, t), a in zip(FRENCH_PAIRS, predicted, strict=True):
        gold = french_gold(s, t)
        found += len(a.sure)
        right += len(a.sure & gold)
        expected += len(gold)
        assert not a.possible
    assert right == found  # intersection: every link right
    assert right / expected >= 0.8
    # the reordered adjective is found: "la fleur bleue" / "the blue flower"
    assert {(1, 2), (2, 1)} <= predicted[2].sure


def test_synthetic_known_alignment(small_synthetic, small_model):
    predicted = small_model.align(small_synthetic.pairs)
    assert aer(small_synthetic.pairs, predicted, small_synthetic.gold) < 0.08
    for method in ("union", "grow-diag-final-and"):
        other = small_model.align(small_synthetic.pairs, symmetrize=method)
        assert sum(map(len, other)) >= sum(map(len, predicted))


def test_log_likelihood_never_decreases(small_synthetic):
    gold = {n: small_synthetic.gold[n] for n in range(0, 400, 4)}
    for cfg, g in (
        (AlignerConfig(), None),
        (AlignerConfig(identity_lexicon=False, null_prob=0.3), None),
        (AlignerConfig(t_smoothing=0.01, end_jump=False), None),
        (AlignerConfig(gold_lambda=0.9), gold),
    ):
        model = train(small_synthetic.pairs, cfg, gold=g)
        lls = model.log_likelihoods
        assert set(lls) == {
            "IBM1 source→target",
            "HMM source→target",
            "IBM1 target→source",
            "HMM target→source",
        }
        for name, values in lls.items():
            assert len(values) == 5, name
            for before, after in zip(values, values[1:], strict=False):
                assert after >= before - 1e-9 * abs(before), (cfg, name, values)


def test_gold_counts_pull_toward_gold():
    # "p q" is always "r s", but the order flips: co-occurrence cannot tell p→r from p→s and
    # the HMM's preference for monotone jumps picks the wrong one. Five hand-aligned pairs fix it.
    pairs = [(f"p q x{k}".split(), f"r s x{k}".split()) for k in range(20)]
    crossed = {(0, 1), (1, 0), (2, 2)}
    unsupervised = train(pairs, AlignerConfig()).align(pairs)
    assert all(a.sure != crossed for a in unsupervised[5:])
    gold = {k: Alignment.from_sets(crossed) for k in range(5)}
    supervised = train(pairs, AlignerConfig(gold_lambda=0.9), gold=gold).align(pairs)
    assert all(a.sure == crossed for a in supervised[5:])


def test_retrain_when_gold_grows(tmp_path):
    pairs = [(f"p q x{k}".split(), f"r s x{k}".split()) for k in range(20)]
    crossed = {(0, 1), (1, 0), (2, 2)}
    model = train(pairs, AlignerConfig(null_prob=0.3))
    model.save(tmp_path / "m.npz")
    loaded = AlignerModel.load(tmp_path / "m.npz")
    assert loaded.info["gold_pairs"] == 0
    retrained = retrain(loaded, pairs, gold={k: Alignment.from_sets(crossed) for k in range(4)})
    assert retrained.config == model.config and retrained.info["gold_pairs"] == 4
    assert all(a.sure == crossed for a in retrained.align(pairs))


def test_gold_is_validated():
    with pytest.raises(ValueError, match="out of range"):
        train(FRENCH_PAIRS, gold={0: Alignment.from_sets([(0, 5)])})
    with pytest.raises(ValueError, match="pair index 99"):
        train(FRENCH_PAIRS, gold={99: Alignment()})


def test_save_load_identical(tmp_path, small_synthetic, small_model):
    path = tmp_path / "model.npz"
    small_model.save(path)
    loaded = AlignerModel.load(path)
    assert loaded.config == small_model.config
    new_pairs = [
        (["w1", "zebra", "w2", "w3"], ["w1", "w2", "zebra", "w3~0", "okapi"]),
        ([], ["w1"]),
    ]
    for pairs in (small_synthetic.pairs[:50], new_pairs):
        assert loaded.align(pairs) == small_model.align(pairs)
        for a, b in zip(loaded.posteriors(pairs), small_model.posteriors(pairs), strict=True):
            np.testing.assert_array_equal(a, b)
    assert loaded.log_likelihoods == small_model.log_likelihoods


def test_load_rejects_other_files(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, x=np.zeros(3))
    with pytest.raises(ValueError, match="not an aligner model"):
        AlignerModel.load(bad)


def test_unknown_words(small_model):
    # Unseen words align to an identical unseen word; an empty side gives no links.
    pairs = [(["w1", "zebra", "w2"], ["w1", "zebra", "w2"]), ([], ["w1"]), (["w1"], [])]
    aligned = small_model.align(pairs)
    assert aligned[0].sure == {(0, 0), (1, 1), (2, 2)}
    assert aligned[1] == Alignment() and aligned[2] == Alignment()


def test_degenerate_corpora():
    for pairs in ([], [([], [])], [(["a"], [])]):
        model = train(pairs)
        assert model.align(pairs) == [Alignment() for _ in pairs]
        assert len(model.align([(["x", "a"], ["a", "y"])])) == 1


def test_posteriors(small_synthetic, small_model):
    pairs = small_synthetic.pairs[:30]
    post = small_model.posteriors(pairs)
    aligned = small_model.align(pairs)
    on_links = []
    for (s, t), p, a in zip(pairs, post, aligned, strict=True):
        assert p.shape == (len(s), len(t)) and p.dtype == np.float32
        assert (p >= 0).all() and (p <= 1 + 1e-6).all()
        # each direction gives at most 1 per emitted word: the mean sums to ≤ (N + M) / 2
        assert p.sum() <= (len(s) + len(t)) / 2 + 1e-4
        on_links.extend(float(p[i, j]) for i, j in a.sure)
    # Viterbi paths need not pass through every cell's most probable state, but the links both
    # directions' Viterbi paths agree on are almost all likely ones
    assert np.mean(np.array(on_links) > 0.5) >= 0.97 and min(on_links) > 0.2


def test_ibm1_only(small_synthetic):
    model = train(small_synthetic.pairs, AlignerConfig(hmm_iterations=0))
    predicted = model.align(small_synthetic.pairs)
    assert aer(small_synthetic.pairs, predicted, small_synthetic.gold) < 0.2
    assert model.log_likelihoods["HMM source→target"] == []
    assert model.posteriors(small_synthetic.pairs[:2])[0].shape[0] == len(
        small_synthetic.pairs[0][0]
    )


def test_progress_reports_every_iteration(small_synthetic):
    seen: list[tuple[str, float]] = []
    train(small_synthetic.pairs[:50], AlignerConfig(), progress=lambda f, s: seen.append((s, f)))
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    stages = {s for s, _ in seen}
    for model in ("IBM1", "HMM"):
        for direction in ("source→target", "target→source"):
            for it in range(1, 6):
                assert f"{model} {direction} iteration {it}/5" in stages


@pytest.mark.parametrize("threads", [1, 2])
def test_progress_error_stops_training(small_synthetic, threads):
    class Stop(Exception):
        pass

    def progress(fraction: float, stage: str) -> None:
        if fraction > 0.3:
            raise Stop

    with pytest.raises(Stop):
        train(small_synthetic.pairs[:50], AlignerConfig(threads=threads), progress=progress)


def test_threads_give_the_same_model(small_synthetic, small_model):
    one_thread = train(small_synthetic.pairs, AlignerConfig(threads=1))
    assert one_thread.align(small_synthetic.pairs) == small_model.align(small_synthetic.pairs)
    assert one_thread.log_likelihoods == small_model.log_likelihoods
    # small chunks so that this small corpus is cut into several
    results = []
    for threads in (1, 2, 4):
        model = train(small_synthetic.pairs, AlignerConfig(threads=threads, chunk_pairs=60))
        results.append((model.align(small_synthetic.pairs), model.log_likelihoods))
    assert results[0] == results[1] == results[2]


def test_config_validation():
    with pytest.raises(ValueError, match="symmetrize"):
        AlignerConfig(symmetrize="grow")
    with pytest.raises(ValueError, match="gold_lambda"):
        AlignerConfig(gold_lambda=1.5)
    assert AlignerConfig.from_dict({"hmm_iterations": 3, "unknown": 1}).hmm_iterations == 3
