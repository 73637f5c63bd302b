"""κ_C (SPEC §5): an independent reference on the same random stream, edge cases, determinism."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment_core.agreement import KappaPair, fit_edit_model, kappa_c
from alignment_core.agreement.chance import _sample_flips
from alignment_core.agreement.kappa_c import UNDEFINED_CHANCE, UNDEFINED_EMPTY
from alignment_core.alignment import Alignment
from tests.core.test_phrases import brute_atomic

VOCAB = ["the", "The", "cat", "sat", "mat", "on", "a", "dog"]


def random_pair(rng: np.random.Generator, *, pid: str, subcorpus: str, max_len: int = 7):
    n, m = (int(x) for x in rng.integers(1, max_len + 1, 2))
    src = [VOCAB[k] for k in rng.integers(0, len(VOCAB), n)]
    tgt = [VOCAB[k] for k in rng.integers(0, len(VOCAB), m)]
    seed_grid = rng.random((n, m)) < rng.choice([0.1, 0.3])

    def edited(rate: float) -> Alignment:
        grid = seed_grid ^ (rng.random((n, m)) < rate)
        cells = [(int(i), int(j)) for i, j in zip(*np.nonzero(grid), strict=True)]
        sure = [c for c in cells if rng.random() < 0.7]
        return Alignment.from_sets(sure, cells)

    seed = Alignment.from_sets(
        (int(i), int(j)) for i, j in zip(*np.nonzero(seed_grid), strict=True)
    )
    return KappaPair(src, tgt, seed, edited(0.1), edited(0.2), subcorpus, pid, "ann1", "ann2")


# -- an independent reference -----------------------------------------------------------------


def ref_units(src, tgt, links, level):
    if level == "word":
        return {(i, j) for i, j in links if src[i].casefold() != tgt[j].casefold()}
    n, m = len(src), len(tgt)
    return {
        b
        for b in brute_atomic(set(links), n, m)
        if " ".join(src[b[0] : b[1] + 1]).casefold() != " ".join(tgt[b[2] : b[3] + 1]).casefold()
    }


def ref_theta(ua, ub) -> float:
    low = min(len(ua), len(ub))
    return len(ua & ub) / low if low else 0.0


def reference_kappa(pairs, level, samples, rng_seed, models=None):
    """SPEC §5 written out with sets and np.polyfit; sampling through the kernel's sampler in
    plain Python (``py_func``) so that it consumes the same random stream.

    ``models`` (annotator -> (intercept, slope)) replaces the np.polyfit line for sampling: a
    rate that differs in the 17th digit can be 0 on one side and 1e-17 on the other, and only
    the latter draws a random number, so the streams would part."""
    kept = []
    for p in pairs:
        ua = ref_units(p.source, p.target, p.first.all_links, level)
        ub = ref_units(p.source, p.target, p.second.all_links, level)
        if ua or ub:
            kept.append((p, ref_theta(ua, ub)))
    fits = {}
    for who in ("ann1", "ann2"):
        xs, ys = [], []
        for p, _ in kept:
            ann = p.first if who == "ann1" else p.second
            n, m = len(p.source), len(p.target)
            xs.append(n + m)
            ys.append(len(ann.all_links ^ p.seed.all_links) / (n * m))
        if len(set(xs)) > 1:
            slope, intercept = np.polyfit(xs, ys, 1)
        else:
            slope, intercept = 0.0, float(np.mean(ys)) if ys else 0.0
        fits[who] = (intercept, slope)
    lines = models or fits
    rng = np.random.default_rng(rng_seed)
    out = []
    for p, th in kept:
        n, m = len(p.source), len(p.target)
        seed = np.zeros(n * m, np.uint8)
        for i, j in p.seed.all_links:
            seed[i * m + j] = 1
        rates = [min(1.0, max(0.0, a + b * (n + m))) for a, b in (lines["ann1"], lines["ann2"])]
        draws = []
        for _ in range(samples):
            grids = []
            for rate in rates:
                g = np.empty(n * m, np.uint8)
                _sample_flips.py_func(seed, rate, rng, g)
                grids.append({(c // m, c % m) for c in np.nonzero(g)[0].tolist()})
            ua = ref_units(p.source, p.target, grids[0], level)
            ub = ref_units(p.source, p.target, grids[1], level)
            draws.append(ref_theta(ua, ub))
        out.append((th, float(np.mean(draws)), float(np.var(draws, ddof=1))))
    return out, fits


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["phrase", "word"]))
def test_matches_independent_reference(seed, level) -> None:
    rng = np.random.default_rng(seed)
    pairs = [random_pair(rng, pid=str(k), subcorpus="xy"[k % 2]) for k in range(6)]
    result = kappa_c(pairs, level=level, samples=25, rng_seed=seed)
    models = {k: (v.intercept, v.slope) for k, v in result.edit_models.items()}
    expected, fits = reference_kappa(pairs, level, 25, seed, models)
    assert len(result.per_pair) == len(expected)
    for got, (th, th0, var) in zip(result.per_pair, expected, strict=True):
        assert got.theta == pytest.approx(th, abs=1e-12)
        assert got.theta0 == pytest.approx(th0, abs=1e-12)
        assert got.theta0_var == pytest.approx(var, abs=1e-12)
    for who, (a, b) in fits.items():
        assert result.edit_models[who].intercept == pytest.approx(a, abs=1e-9)
        assert result.edit_models[who].slope == pytest.approx(b, abs=1e-9)
    if expected:
        theta = np.mean([e[0] for e in expected])
        theta0 = np.mean([e[1] for e in expected])
        assert result.theta == pytest.approx(theta)
        assert result.theta0 == pytest.approx(theta0)
        if theta0 < 1:
            assert result.kappa_c == pytest.approx((theta - theta0) / (1 - theta0))


# -- the chance model's sampler ---------------------------------------------------------------


@pytest.mark.parametrize("p", [0.0, 0.02, 0.3, 0.5, 0.8, 0.97, 1.0])
def test_sampler_flips_each_cell_with_probability_p(p) -> None:
    rng = np.random.default_rng(7)
    seed = (np.arange(30 * 20) % 7 == 0).astype(np.uint8)
    out = np.empty_like(seed)
    draws = 400
    flips = np.zeros(seed.size)
    for _ in range(draws):
        _sample_flips(seed, p, rng, out)
        flips += out != seed
    rate = flips / draws
    total = flips.sum() / (draws * seed.size)
    sigma = math.sqrt(p * (1 - p) / (draws * seed.size))
    assert abs(total - p) <= 5 * sigma + 1e-12
    # every cell is flipped at about the same rate (no position is favoured)
    cell_sigma = math.sqrt(p * (1 - p) / draws)
    assert np.all(np.abs(rate - p) <= 6 * cell_sigma + 1e-12)


# -- edge cases ----------------------------------------------------------------------------


SRC = ["he", "bought", "a", "car"]
TGT = ["she", "purchased", "an", "automobile"]
DIAG = Alignment.from_sets({(0, 0), (1, 1), (2, 2), (3, 3)})


def pair(seed, a, b, src=SRC, tgt=TGT, **kw) -> KappaPair:
    return KappaPair(src, tgt, seed, a, b, **kw)


def test_identical_annotators_agree_fully() -> None:
    seed = Alignment.from_sets({(0, 0)})
    r = kappa_c([pair(seed, DIAG, DIAG)] * 3, samples=200, rng_seed=1)
    assert r.theta == 1.0
    assert r.theta0 < 1.0
    assert r.kappa_c == 1.0


def test_nobody_edits_the_seed_is_undefined_not_a_crash() -> None:
    r = kappa_c([pair(DIAG, DIAG, DIAG)] * 2, samples=50)
    assert r.theta == 1.0 and r.theta0 == 1.0
    assert r.kappa_c is None and r.stderr is None
    assert r.overall.reason == UNDEFINED_CHANCE
    d = r.as_dict()
    json.dumps(d, allow_nan=False)
    assert d["kappa_c"] is None and d["reason"] == UNDEFINED_CHANCE


def test_everyone_flips_every_cell_is_undefined() -> None:
    # seed empty, both annotators align every cell: fitted edit rate 1, so every sample is the
    # full block and only the whole-sentence pair can be extracted (the paper's other extreme)
    full = Alignment.from_sets({(i, j) for i in range(4) for j in range(4)})
    r = kappa_c([pair(Alignment(), full, full)], samples=20)
    assert r.edit_models["A"].rate(8) == 1.0
    assert r.theta0 == 1.0 and r.kappa_c is None


def test_empty_alignments_are_skipped_everywhere() -> None:
    seed = Alignment.from_sets({(0, 0)})
    r = kappa_c([pair(seed, Alignment(), Alignment())] * 3, samples=10)
    assert r.skipped_empty == 3 and r.overall.pairs == 0
    assert r.kappa_c is None and r.overall.reason == UNDEFINED_EMPTY
    assert r.by_subcorpus == {} and r.by_length == []
    assert r.edit_models == {}
    mixed = kappa_c(
        [pair(seed, Alignment(), Alignment()), pair(seed, DIAG, DIAG)], samples=10, rng_seed=3
    )
    assert mixed.skipped_empty == 1 and mixed.overall.pairs == 1
    assert mixed.edit_models["A"].pairs == 1  # the skipped pair is not in the fit either


def test_one_empty_side_gives_theta_zero() -> None:
    r = kappa_c([pair(Alignment(), DIAG, Alignment())], samples=30)
    assert r.theta == 0.0
    assert r.theta0 == 0.0  # B never edits: its samples are the empty seed
    assert r.kappa_c == 0.0


def test_one_word_sentences() -> None:
    one = Alignment.from_sets({(0, 0)})
    r = kappa_c([pair(Alignment(), one, one, ["cat"], ["feline"])], samples=30)
    assert r.theta == 1.0 and r.theta0 == 1.0 and r.kappa_c is None
    r = kappa_c([pair(one, one, Alignment(), ["cat"], ["feline"])], samples=30)
    assert r.theta == 0.0 and r.kappa_c == 0.0
    # identical one-word pair: no units at all, skipped
    r = kappa_c([pair(Alignment(), one, one, ["cat"], ["Cat"])], samples=30)
    assert r.skipped_empty == 1 and r.kappa_c is None


def test_deterministic_for_a_seed_and_seed_matters() -> None:
    rng = np.random.default_rng(11)
    pairs = [random_pair(rng, pid=str(k), subcorpus="s", max_len=12) for k in range(15)]
    a = kappa_c(pairs, samples=100, rng_seed=5).as_dict()
    b = kappa_c(pairs, samples=100, rng_seed=5).as_dict()
    c = kappa_c(pairs, samples=100, rng_seed=6).as_dict()
    assert a == b
    assert a["theta"] == c["theta"] and a["theta0"] != c["theta0"]
    assert a["rng_seed"] == 5 and a["samples"] == 100


def test_stderr_definition_and_calibration() -> None:
    rng = np.random.default_rng(3)
    pairs = [random_pair(rng, pid=str(k), subcorpus="s", max_len=10) for k in range(12)]
    r = kappa_c(pairs, samples=40, rng_seed=0)
    n = len(r.per_pair)
    se0 = math.sqrt(sum(p.theta0_var for p in r.per_pair) / 40) / n
    assert r.overall.theta0_stderr == pytest.approx(se0)
    assert r.stderr == pytest.approx(abs(1 - r.theta) / (1 - r.theta0) ** 2 * se0)
    # the standard error predicts the spread of θ̂_0 across independent seeds
    spread = np.std([kappa_c(pairs, samples=40, rng_seed=s).theta0 for s in range(60)], ddof=1)
    assert 0.6 < spread / se0 < 1.6


def test_groups_are_means_of_their_pairs() -> None:
    rng = np.random.default_rng(8)
    pairs = [
        random_pair(rng, pid=str(k), subcorpus=("mtc", "news")[k % 2], max_len=14)
        for k in range(20)
    ]
    r = kappa_c(pairs, samples=30, rng_seed=2, bin_width=4)
    for name, summary in r.by_subcorpus.items():
        rows = [p for p in r.per_pair if p.subcorpus == name]
        assert summary.pairs == len(rows)
        assert summary.theta == pytest.approx(np.mean([p.theta for p in rows]))
        assert summary.theta0 == pytest.approx(np.mean([p.theta0 for p in rows]))
    assert sum(s.pairs for _, _, s in r.by_length) == r.overall.pairs
    for lo, hi, summary in r.by_length:
        assert hi - lo == 3 and (lo - 1) % 4 == 0
        rows = [p for p in r.per_pair if lo <= p.shorter <= hi]
        assert summary.pairs == len(rows) > 0


def test_edit_model_fit() -> None:
    m = fit_edit_model([10, 20, 30], [0.1, 0.2, 0.3])
    assert m.intercept == pytest.approx(0.0, abs=1e-12) and m.slope == pytest.approx(0.01)
    assert m.rate(1000) == 1.0 and m.rate(-50) == 0.0  # clipped to [0, 1]
    flat = fit_edit_model([8, 8, 8], [0.1, 0.2, 0.6])
    assert flat.slope == 0.0 and flat.intercept == pytest.approx(0.3)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        kappa_c([], level="sentence")
    with pytest.raises(ValueError):
        kappa_c([], samples=0)
