"""Cohen, Fleiss and Krippendorff (SPEC §6) against scikit-learn, statsmodels and krippendorff."""

from __future__ import annotations

import json
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from alignment_core.agreement import (
    cohen_kappa_cells,
    fleiss_kappa,
    krippendorff_alpha,
    link_items,
    multi_rater_agreement,
)
from alignment_core.agreement.classic import MISSING, NONE, POSSIBLE, SURE, category_counts
from alignment_core.alignment import Alignment


def random_alignment(rng: np.random.Generator, n: int, m: int, density: float) -> Alignment:
    kinds = rng.random((n, m))
    sure = [(i, j) for i in range(n) for j in range(m) if kinds[i, j] < density * 0.6]
    poss = [(i, j) for i in range(n) for j in range(m) if density * 0.6 <= kinds[i, j] < density]
    return Alignment.from_sets(sure, poss)


def cell_label(a: Alignment, i: int, j: int) -> int:
    return SURE if (i, j) in a.sure else POSSIBLE if (i, j) in a.possible else NONE


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5))
def test_cohen_matches_sklearn(seed, npairs) -> None:
    rng = np.random.default_rng(seed)
    pairs, ya, yb = [], [], []
    for _ in range(npairs):
        n, m = (int(x) for x in rng.integers(1, 8, 2))
        base = random_alignment(rng, n, m, 0.3)
        a = base if rng.random() < 0.3 else random_alignment(rng, n, m, 0.3)
        b = random_alignment(rng, n, m, float(rng.choice([0.0, 0.3, 0.6])))
        pairs.append((n, m, a, b))
        for i in range(n):
            for j in range(m):
                ya.append(cell_label(a, i, j))
                yb.append(cell_label(b, i, j))
    got = cohen_kappa_cells(pairs)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns where κ is undefined; we compare None
        expected = cohen_kappa_score(ya, yb, labels=[NONE, SURE, POSSIBLE])
    if np.isnan(expected):
        assert got is None
    else:
        assert got == pytest.approx(expected, abs=1e-12)


def annotations(rng: np.random.Generator, raters: int, missing: float):
    pairs = []
    for _ in range(int(rng.integers(1, 6))):
        n, m = (int(x) for x in rng.integers(1, 7, 2))
        base = random_alignment(rng, n, m, 0.3)
        pair = {}
        for r in range(raters):
            if rng.random() < missing:
                continue
            noisy = rng.random() < 0.5
            pair[f"r{r}"] = random_alignment(rng, n, m, 0.3) if noisy else base
        pairs.append(pair)
    return pairs, [f"r{r}" for r in range(raters)]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 5))
def test_fleiss_matches_statsmodels(seed, raters) -> None:
    pairs, names = annotations(np.random.default_rng(seed), raters, missing=0.0)
    labels = link_items(pairs, names)
    got, items = fleiss_kappa(labels)
    assert items == labels.shape[0]
    if items == 0:
        assert got is None
        return
    with np.errstate(all="ignore"):
        expected = sm_fleiss_kappa(category_counts(labels), method="fleiss")
    if np.isnan(expected):
        assert got is None
    else:
        assert got == pytest.approx(expected, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 5))
def test_krippendorff_matches_library_with_missing(seed, raters) -> None:
    pairs, names = annotations(np.random.default_rng(seed), raters, missing=0.3)
    labels = link_items(pairs, names)
    got, _ = krippendorff_alpha(labels)
    data = np.where(labels == MISSING, np.nan, labels).T.astype(float)
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    values = np.unique(data[:, pairable][~np.isnan(data[:, pairable])])
    if pairable.sum() == 0 or values.size < 2:
        assert got is None  # nothing to compare, or a single label: undefined
        return
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert got == pytest.approx(expected, abs=1e-10)


def test_link_items_are_the_union_of_links_with_labels() -> None:
    a = Alignment.from_sets({(0, 0)}, {(1, 1)})
    b = Alignment.from_sets({(1, 1), (2, 0)})
    labels = link_items([{"a": a, "b": b, "c": None}], ["a", "b", "c"])
    # items sorted: (0,0), (1,1), (2,0)
    assert labels.tolist() == [
        [SURE, NONE, MISSING],
        [POSSIBLE, SURE, MISSING],
        [NONE, SURE, MISSING],
    ]


def test_perfect_and_undefined_agreement() -> None:
    a = Alignment.from_sets({(0, 0)}, {(1, 1)})
    pairs = [{"x": a, "y": a, "z": a}]
    r = multi_rater_agreement(pairs, ["x", "y", "z"])
    assert r.fleiss_kappa == 1.0 and r.krippendorff_alpha == 1.0 and r.items == 2
    # everyone says "sure" on the only item: chance agreement is total, κ undefined
    s = Alignment.from_sets({(0, 0)})
    r = multi_rater_agreement([{"x": s, "y": s, "z": s}], ["x", "y", "z"])
    assert r.fleiss_kappa is None and r.krippendorff_alpha is None
    json.dumps(r.as_dict(), allow_nan=False)
    assert cohen_kappa_cells([(2, 2, Alignment(), Alignment())]) is None
    assert set(r.as_dict()) == {"items", "fleiss_kappa", "krippendorff_alpha"}


def test_fleiss_leaves_out_items_with_a_missing_annotator() -> None:
    a = Alignment.from_sets({(0, 0)})
    b = Alignment.from_sets({(0, 0), (1, 1)})
    r = multi_rater_agreement([{"x": a, "y": b, "z": b}, {"x": a, "y": b}], ["x", "y", "z"])
    assert r.items == 4 and r.fleiss_items == 2 and r.alpha_items == 4
