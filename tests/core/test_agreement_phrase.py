"""Phrase-level agreement (SPEC §4) against brute-force phrase sets."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment_core.agreement import batch as batch_module
from alignment_core.agreement import phrase_counts, score_alignments, score_phrase
from alignment_core.agreement.batch import PHRASE_COLUMNS, WORD_COLUMNS, count_pairs
from alignment_core.alignment import Alignment
from alignment_core.phrases import PhrasePair, is_compatible
from tests.core.test_agreement_word import scored_pairs
from tests.core.test_phrases import brute_atomic, brute_consistent

# -- the oracle: SPEC §4 read literally, over every box, sharing nothing with the kernel ---------


def text(tokens, a, b) -> str:
    return " ".join(tokens[a : b + 1]).casefold()


def every_box(n: int, m: int):
    for i1 in range(n):
        for i2 in range(i1, n):
            for j1 in range(m):
                for j2 in range(j1, m):
                    yield (i1, i2, j1, j2)


def inside(link, box) -> bool:
    i, j = link
    return box[0] <= i <= box[1] and box[2] <= j <= box[3]


def crosses(link, box) -> bool:
    """Exactly one of the link's two indices lies inside the box's spans."""
    i, j = link
    return (box[0] <= i <= box[1]) != (box[2] <= j <= box[3])


def oracle_compatible(sure: set, all_links: set, box) -> bool:
    """SPEC §4's second wording: no SURE link crosses the box's edge, and each of the four
    boundary words has a link of B_P inside the box."""
    if any(crosses(x, box) for x in sure):
        return False
    links_inside = [x for x in all_links if inside(x, box)]
    rows = {i for i, _ in links_inside}
    cols = {j for _, j in links_inside}
    i1, i2, j1, j2 = box
    return i1 in rows and i2 in rows and j1 in cols and j2 in cols


def oracle_compat(sure: set, all_links: set, n: int, m: int) -> set:
    return {b for b in every_box(n, m) if oracle_compatible(sure, all_links, b)}


def compat_by_some_alignment(sure: set, possible: set, n: int, m: int) -> set:
    """SPEC §4's first wording: boxes consistent with SOME L, B_S ⊆ L ⊆ B_P (every L tried)."""
    found: set = set()
    extra = sorted(possible)
    for chosen in itertools.product((False, True), repeat=len(extra)):
        links = set(sure) | {x for x, take in zip(extra, chosen, strict=True) if take}
        found |= brute_consistent(links, n, m)
    return found


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
    compat_a = keep(oracle_compat(set(test.sure), a_p_links, n, m))
    compat_b = keep(oracle_compat(set(ref.sure), b_p_links, n, m))
    return [
        len(atom_a_s),
        len(atom_a_s & compat_b),
        len(atom_b_s),
        len(compat_a & atom_b_s),
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


@settings(max_examples=400, deadline=None)
@given(scored_pairs(max_len=4))
def test_the_two_wordings_of_compatible_agree(item) -> None:
    """On tiny grids: consistent with some B_S ⊆ L ⊆ B_P == the edge-and-boundary reading ==
    ``phrases.is_compatible``; and cons(B_P) ⊆ compat(B)."""
    _, _, a, _ = item
    n, m = len(item[0]), len(item[1])
    by_alignments = compat_by_some_alignment(set(a.sure), set(a.possible), n, m)
    by_edges = oracle_compat(set(a.sure), set(a.all_links), n, m)
    assert by_alignments == by_edges
    assert brute_consistent(set(a.all_links), n, m) <= by_edges
    for b in every_box(n, m):
        assert is_compatible(a.sure, a.all_links, n, m, PhrasePair(*b)) == (b in by_edges)


@settings(max_examples=300, deadline=None)
@given(scored_pairs(max_len=4), st.booleans())
def test_sure_columns_match_the_some_alignment_oracle(item, include_identical) -> None:
    """The sure columns counted with compat built from every L between B_S and B_P."""
    source, target, test, ref = item
    n, m = len(source), len(target)

    def keep(boxes):
        return {
            x
            for x in boxes
            if include_identical or text(source, x[0], x[1]) != text(target, x[2], x[3])
        }

    atom_a_s = keep(brute_atomic(set(test.sure), n, m))
    atom_b_s = keep(brute_atomic(set(ref.sure), n, m))
    compat_a = compat_by_some_alignment(set(test.sure), set(test.possible), n, m)
    compat_b = compat_by_some_alignment(set(ref.sure), set(ref.possible), n, m)
    expected = [len(atom_a_s), len(atom_a_s & compat_b), len(atom_b_s), len(compat_a & atom_b_s)]
    rows = count_pairs([item], include_identical=include_identical)
    assert rows[0, len(WORD_COLUMNS) : len(WORD_COLUMNS) + 4].tolist() == expected


# -- properties that need no oracle -----------------------------------------------------------


@settings(max_examples=600, deadline=None)
@given(scored_pairs(max_len=7), st.booleans())
def test_every_alignment_scored_against_itself_gets_one(item, include_identical) -> None:
    source, target, a, _ = item
    word, phrase = score_alignments([(source, target, a, a)], include_identical=include_identical)
    for name, value in {**word.as_dict(), **phrase.as_dict()}.items():
        if value is None:  # undefined (0/0): nothing of that kind to score
            continue
        assert value == (0.0 if name == "aer" else 1.0), name


@settings(max_examples=400, deadline=None)
@given(st.lists(scored_pairs(max_len=7), min_size=1, max_size=4), st.booleans())
def test_swapping_test_and_reference_swaps_precision_and_recall(items, include_identical) -> None:
    swapped = [(s, t, b, a) for s, t, a, b in items]
    w1, p1 = score_alignments(items, include_identical=include_identical)
    w2, p2 = score_alignments(swapped, include_identical=include_identical)
    for one, two in ((w1, w2), (p1, p2)):
        assert one.precision_sure == two.recall_sure
        assert one.recall_sure == two.precision_sure
        assert one.precision_possible == two.recall_possible
        assert one.recall_possible == two.precision_possible
        if one.f1 is None:
            assert two.f1 is None
        else:
            assert one.f1 == pytest.approx(two.f1)


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
    # non-identical atoms of A_S: reached↔arrived at, agreement↔deal; both compatible with B
    assert s.precision_sure == 1.0
    # atoms of B_S: reached↔arrived, agreement↔deal; A's SURE link reached–at crosses the first
    assert s.recall_sure == 0.5
    assert s.f1 == pytest.approx(2 * 1.0 * 0.5 / 1.5)
    assert s.precision_possible == 1.0 and s.recall_possible == 1.0


def test_possible_link_leaving_a_sure_block_does_not_break_it() -> None:
    # sure: big↔large, dog↔hound; possible: big–hound (annotator unsure the adjective goes alone)
    src, tgt = ["a", "big", "dog"], ["one", "large", "hound"]
    a = Alignment.from_sets({(1, 1), (2, 2)}, {(1, 2)})
    s = score_phrase([(src, tgt, a, a)])
    # atom(A_S) = big↔large, dog↔hound. Under the earlier reading (against cons(A_P)) both failed,
    # since big–hound leaves each box; no SURE link crosses either, so both are compatible.
    assert (s.counts.test_sure_atoms, s.counts.test_sure_atoms_matched) == (2, 2)
    assert s.precision_sure == s.recall_sure == s.f1 == 1.0
    # against a reference that never drew big–hound: the sure columns are the same;
    # atom(A_P) = {big dog↔large hound} is consistent with the reference (a composite of it)
    b = Alignment.from_sets({(1, 1), (2, 2)})
    s = score_phrase([(src, tgt, a, b)])
    assert s.precision_sure == s.recall_sure == 1.0
    assert s.precision_possible == 1.0
    # atom(B_P) = big↔large, dog↔hound; big–hound leaves both, so neither is in cons(A_P)
    assert s.recall_possible == 0.0


def test_composite_reference_block_is_not_punished() -> None:
    # the reference aligned one block where the test found two atoms inside it
    src, tgt = ["a", "b"], ["x", "y"]
    test = Alignment.from_sets({(0, 0), (1, 1)})
    ref = Alignment.from_sets({(0, 0), (0, 1), (1, 0), (1, 1)})
    s = score_phrase([(src, tgt, test, ref)])
    assert s.recall_sure == 1.0  # the test's sure links do not cross the reference's block
    assert s.precision_sure == 0.0  # the block's sure links cross each of the test's atoms


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
