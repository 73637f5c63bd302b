"""Word-level agreement (SPEC §3): the paper's worked example, brute force, 0/0 handling."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment_core.agreement import WordScores, score_word, word_counts
from alignment_core.agreement.batch import WORD_COLUMNS, count_pairs
from alignment_core.alignment import Alignment

VOCAB = ["the", "The", "cat", "sat", "mat", "on", "a", "dog", "ran"]


@st.composite
def scored_pairs(draw, max_len: int = 7):
    """(source, target, test, reference) with a small vocabulary, so identical words occur."""
    n = draw(st.integers(1, max_len))
    m = draw(st.integers(1, max_len))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    source = [VOCAB[k] for k in rng.integers(0, len(VOCAB), n)]
    target = [VOCAB[k] for k in rng.integers(0, len(VOCAB), m)]

    def alignment() -> Alignment:
        density = rng.choice([0.0, 0.2, 0.5, 0.9])
        kinds = rng.random((n, m))
        sure = {(i, j) for i in range(n) for j in range(m) if kinds[i, j] < density / 2}
        poss = {(i, j) for i in range(n) for j in range(m) if density / 2 <= kinds[i, j] < density}
        return Alignment.from_sets(sure, poss)

    return source, target, alignment(), alignment()


def brute_counts(source, target, test, ref, include_identical):
    """The SPEC §3 sets, written out independently of the library."""

    def ok(link):
        i, j = link
        return include_identical or source[i].casefold() != target[j].casefold()

    a_s = {x for x in test.sure if ok(x)}
    a_p = {x for x in test.sure | test.possible if ok(x)}
    b_s = {x for x in ref.sure if ok(x)}
    b_p = {x for x in ref.sure | ref.possible if ok(x)}
    return [
        len(a_s),
        len(a_p),
        len(b_s),
        len(b_p),
        len(a_s & b_p),
        len(a_p & b_s),
        len(a_p & b_p),
    ]


def test_paper_worked_example() -> None:
    # |A_S| = 4, |B_S| = 5, all of A's sure links among B's links, four of B's sure links among
    # A's links; plus an identical-word link (discussed–discussed) that only A made.
    source = ["they", "discussed", "the", "dispute", "over", "the", "weekend"]
    target = ["talks", "discussed", "disagreement", "in", "Saturday", "Sunday", "issue"]
    b = Alignment.from_sets({(0, 0), (3, 2), (4, 3), (6, 4), (6, 5)})
    a = Alignment.from_sets({(0, 0), (3, 2), (4, 3), (6, 4), (1, 1)})
    s = score_word([(source, target, a, b)])
    assert s.counts.test_sure == 4 and s.counts.ref_sure == 5
    assert s.precision_sure == 1.0
    assert s.recall_sure == 0.8
    assert s.f1 == pytest.approx(0.889, abs=5e-4)
    with_identical = score_word([(source, target, a, b)], include_identical=True)
    assert with_identical.precision_sure == 0.8  # the identical link now counts, and misses


def test_aer_and_possible_figures() -> None:
    source, target = ["a", "b", "c"], ["x", "y", "z"]
    ref = Alignment.from_sets({(0, 0)}, {(1, 1), (2, 2)})
    test = Alignment.from_sets({(0, 0), (2, 1)}, {(1, 1)})
    s = score_word([(source, target, test, ref)])
    # A_P = {00, 21, 11}, B_S = {00}, B_P = {00, 11, 22}
    assert s.precision_possible == pytest.approx(2 / 3)
    assert s.recall_possible == pytest.approx(2 / 3)
    assert s.aer == pytest.approx(1 - (1 + 2) / (3 + 1))


@settings(max_examples=1500, deadline=None)
@given(scored_pairs(), st.booleans())
def test_counts_match_brute_force(item, include_identical) -> None:
    expected = brute_counts(*item, include_identical)
    rows = count_pairs([item], include_identical=include_identical, phrases=False)
    assert rows[0, : len(WORD_COLUMNS)].tolist() == expected
    assert (
        list(word_counts(*item, include_identical=include_identical).as_dict().values()) == expected
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(scored_pairs(), min_size=1, max_size=6))
def test_micro_average_sums_counts(items) -> None:
    s = score_word(items)
    totals = np.array([brute_counts(*it, False) for it in items]).sum(axis=0)
    assert s.pairs == len(items)
    assert list(s.counts.as_dict().values()) == totals.tolist()
    expected_p = totals[4] / totals[0] if totals[0] else None
    assert s.precision_sure == (pytest.approx(expected_p) if expected_p is not None else None)
    assert [p.counts for p in s.per_pair()] == [word_counts(*it) for it in items]


def test_zero_over_zero_is_none_never_nan() -> None:
    source, target = ["a"], ["b"]
    s = score_word([(source, target, Alignment(), Alignment())])
    assert s.as_dict() == dict.fromkeys(
        ("precision_sure", "recall_sure", "f1", "precision_possible", "recall_possible", "aer")
    )
    json.dumps(s.as_dict(), allow_nan=False)
    # precision and recall both 0 -> F1 is 0, not undefined
    s = score_word(
        [(["a", "b"], ["x", "y"], Alignment.from_sets({(0, 0)}), Alignment.from_sets({(1, 1)}))]
    )
    assert s.precision_sure == 0.0 and s.recall_sure == 0.0 and s.f1 == 0.0


def test_only_identical_links_gives_undefined_figures() -> None:
    a = Alignment.from_sets({(0, 0)})
    s = score_word([(["The"], ["the"], a, a)])
    assert s.precision_sure is None and s.f1 is None
    assert score_word([(["The"], ["the"], a, a)], include_identical=True).f1 == 1.0


def test_empty_corpus_and_shape_of_result() -> None:
    s = score_word([])
    assert isinstance(s, WordScores) and s.pairs == 0 and s.f1 is None
    assert set(s.as_dict()) == {
        "precision_sure",
        "recall_sure",
        "f1",
        "precision_possible",
        "recall_possible",
        "aer",
    }


def test_link_outside_the_grid_is_an_error() -> None:
    with pytest.raises(ValueError, match="outside"):
        score_word([(["a"], ["b"], Alignment.from_sets({(0, 1)}), Alignment())])
