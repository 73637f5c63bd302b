"""Phrase-level agreement (SPEC §4) against brute-force phrase sets."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment_core.agreement import batch as batch_module
from alignment_core.agreement import phrase_counts, score_alignments, score_phrase
from alignment_core.agreement.batch import PHRASE_COLUMNS, WORD_COLUMNS, count_pairs
from alignment_core.alignment import Alignment
from tests.core.test_agreement_word import scored_pairs
from tests.core.test_phrases import brute_atomic, brute_consistent


def text(tokens, a, b) -> str:
    return " ".join(tokens[a : b + 1]).casefold()


def brute_phrase_counts(source, target, test, ref, include_identical):
    n, m = len(source), len(target)

    def keep(boxes):
        return {
            x
            for x in boxes
            if include_identical or text(source, x[0], x[1]) != text(target, x[2], x[3])
        }

    a_p_links = set(test.sure | test.possible)
    b_p_links = set(ref.sure | ref.possible)
    atom_a_s = keep(brute_atomic(set(test.sure), n, m))
    atom_b_s = keep(brute_atomic(set(ref.sure), n, m))
    atom_a_p = keep(brute_atomic(a_p_links, n, m))
    atom_b_p = keep(brute_atomic(b_p_links, n, m))
    cons_a_p = keep(brute_consistent(a_p_links, n, m))
    cons_b_p = keep(brute_consistent(b_p_links, n, m))
    return [
        len(atom_a_s),
        len(atom_a_s & cons_b_p),
        len(atom_b_s),
        len(cons_a_p & atom_b_s),
        len(atom_a_p),
        len(atom_a_p & cons_b_p),
        len(atom_b_p),
        len(cons_a_p & atom_b_p),
    ]


@settings(max_examples=1500, deadline=None)
@given(scored_pairs(max_len=6), st.booleans())
def test_counts_match_brute_force(item, include_identical) -> None:
    expected = brute_phrase_counts(*item, include_identical)
    rows = count_pairs([item], include_identical=include_identical)
    assert rows[0, len(WORD_COLUMNS) :].tolist() == expected
    got = phrase_counts(*item, include_identical=include_identical)
    assert list(got.as_dict().values()) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(scored_pairs(max_len=6), min_size=1, max_size=5))
def test_plain_python_kernel_matches_compiled(items) -> None:
    compiled = count_pairs(items)
    kernel = batch_module._count_kernel
    try:
        batch_module._count_kernel = kernel.py_func
        plain = count_pairs(items)
    finally:
        batch_module._count_kernel = kernel
    assert plain.tolist() == compiled.tolist()


def test_paper_style_example() -> None:
    src = ["and", "reached", "an", "agreement"]
    tgt = ["and", "arrived", "at", "a", "deal"]
    a = Alignment.from_sets({(0, 0), (1, 1), (1, 2), (3, 4)})  # atoms: reached↔arrived at, ...
    b = Alignment.from_sets({(0, 0), (1, 1), (3, 4)}, {(1, 2)})  # same, "at" only possible
    s = score_phrase([(src, tgt, a, b)])
    # non-identical atoms of A_S: reached↔arrived at, agreement↔deal; both consistent with B_P
    assert s.precision_sure == 1.0
    # atoms of B_S: reached↔arrived, agreement↔deal; reached↔arrived is not consistent with A_P
    assert s.recall_sure == 0.5
    assert s.f1 == pytest.approx(2 * 1.0 * 0.5 / 1.5)
    assert s.precision_possible == 1.0 and s.recall_possible == 1.0


def test_composite_reference_block_is_not_punished() -> None:
    # the reference aligned one block where the test found two atoms inside it
    src, tgt = ["a", "b"], ["x", "y"]
    test = Alignment.from_sets({(0, 0), (1, 1)})
    ref = Alignment.from_sets({(0, 0), (0, 1), (1, 0), (1, 1)})
    s = score_phrase([(src, tgt, test, ref)])
    assert s.recall_sure == 1.0  # the reference's block is among the test's consistent pairs
    assert s.precision_sure == 0.0  # the test's atoms are not consistent with the block


def test_token_with_space_is_identical_to_two_tokens() -> None:
    src, tgt = ["New York", "is", "big"], ["new", "york", "is", "large"]
    a = Alignment.from_sets({(0, 0), (0, 1), (2, 3)})
    rows = count_pairs([(src, tgt, a, a)])
    # atoms: "New York"↔"new york" (identical text: dropped) and big↔large
    assert rows[0, len(WORD_COLUMNS) + PHRASE_COLUMNS.index("test_atoms")] == 1
    assert brute_phrase_counts(src, tgt, a, a, False)[4] == 1


def test_score_alignments_returns_both_levels_and_json_safe() -> None:
    src, tgt = ["a"], ["b"]
    word, phrase = score_alignments([(src, tgt, Alignment(), Alignment())])
    assert word.pairs == phrase.pairs == 1
    json.dumps({"w": word.as_dict(), "p": phrase.as_dict()}, allow_nan=False)
    assert phrase.as_dict() == dict.fromkeys(
        ("precision_sure", "recall_sure", "f1", "precision_possible", "recall_possible")
    )
