"""The report builder (Tables 3-5, series, pairwise) and pair matching across files."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from alignment_core.agreement import (
    KappaPair,
    PairAnnotations,
    build_report,
    kappa_c,
    score_alignments,
)
from alignment_core.agreement.matching import match_pairs
from alignment_core.agreement.report import ALL, TABLE_COLUMNS, table_lines
from alignment_core.alignment import AlignedPair, Alignment

VOCAB = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "big", "small"]


def random_alignment(rng, n, m, density) -> Alignment:
    g = rng.random((n, m)) < density
    cells = [(int(i), int(j)) for i, j in zip(*np.nonzero(g), strict=True)]
    return Alignment.from_sets([c for c in cells if rng.random() < 0.7], cells)


@pytest.fixture(scope="module")
def corpus() -> list[PairAnnotations]:
    rng = np.random.default_rng(4)
    records = []
    for k in range(24):
        n, m = (int(x) for x in rng.integers(3, 12, 2))
        src = [VOCAB[x] for x in rng.integers(0, len(VOCAB), n)]
        tgt = [VOCAB[x] for x in rng.integers(0, len(VOCAB), m)]
        seed = random_alignment(rng, n, m, 0.15)
        ann = {}
        for name in ("ann2", "ann1", "ann3"):  # insertion order decides who is A in Tables 3/4
            if rng.random() < 0.75:
                flips = random_alignment(rng, n, m, 0.08).all_links
                ann[name] = Alignment.from_sets(seed.all_links ^ flips)
        records.append(
            PairAnnotations(str(k), ("mtc", "news")[k % 2], src, tgt, seed if k % 5 else None, ann)
        )
    return records


@pytest.fixture(scope="module")
def report(corpus) -> dict:
    return build_report(corpus, samples=60, rng_seed=3)


def test_report_is_plain_json(report) -> None:
    text = json.dumps(report, allow_nan=False)
    assert json.loads(text) == report


def test_tables_3_and_4_rows_and_values(corpus, report) -> None:
    doubly = [r for r in corpus if len(r.annotations) >= 2]
    sides = [list(r.annotations.values())[:2] for r in doubly]
    table = report["agreement"]
    assert table["pairs"] == len(doubly)
    for level in ("word", "phrase"):
        rows = table[level]
        assert [r["subcorpus"] for r in rows] == ["mtc", "news", ALL]
        for row in rows:
            assert set(TABLE_COLUMNS) <= set(row)
            idx = [k for k, r in enumerate(doubly) if row["subcorpus"] in (ALL, r.subcorpus)]
            word, phrase = score_alignments(
                (doubly[k].source, doubly[k].target, sides[k][0], sides[k][1]) for k in idx
            )
            expected = (word if level == "word" else phrase).as_dict()
            for col in ("precision_sure", "recall_sure", "f1", "precision_possible"):
                assert row[col] == expected[col]
    # κ_C over the pairs with a seed, first annotation against second, same J and seed
    seeded = [(r, s) for r, s in zip(doubly, sides, strict=True) if r.seed is not None]
    names = [list(r.annotations)[:2] for r, _ in seeded]
    k = kappa_c(
        [
            KappaPair(r.source, r.target, r.seed, s[0], s[1], r.subcorpus, r.pair_id, *who)
            for (r, s), who in zip(seeded, names, strict=True)
        ],
        samples=60,
        rng_seed=3,
    )
    all_row = table["phrase"][-1]
    assert all_row["kappa_c"] == k.kappa_c and all_row["kappa_c_pairs"] == k.overall.pairs
    assert table["kappa_c"]["phrase"]["theta0"] == k.theta0
    assert [b["min_length"] for b in table["by_length"]["phrase"]] == [
        lo for lo, _, _ in k.by_length
    ]


def test_table_5_and_pairwise(corpus, report) -> None:
    names = ["ann1", "ann2", "ann3"]
    assert report["annotators"] == names
    for name in names:
        t5 = report["against_seed"][name]
        mine = [r for r in corpus if name in r.annotations and r.seed is not None]
        assert t5["test"] == "seed" and t5["reference"] == name and t5["pairs"] == len(mine)
        word, _ = score_alignments((r.source, r.target, r.seed, r.annotations[name]) for r in mine)
        assert t5["word"][-1]["precision_sure"] == word.precision_sure
        # the seed never edits itself: its edit model is 0
        assert t5["kappa_c"]["phrase"]["edit_models"]["seed"]["intercept"] == 0.0
    pairs = [(p["test"], p["reference"]) for p in report["pairwise"]]
    assert pairs == list(combinations(names, 2))
    for p in report["pairwise"]:
        shared = [
            r for r in corpus if p["test"] in r.annotations and p["reference"] in r.annotations
        ]
        assert p["pairs"] == len(shared)
    assert report["multi_rater"]["items"] > 0


def test_table_lines_render_undefined_as_dash() -> None:
    rows = [dict.fromkeys(TABLE_COLUMNS) | {"subcorpus": "all", "pairs": 0}]
    lines = table_lines(rows, "word")
    assert "–" in lines[-1] and lines[-1].startswith("all")


def test_report_of_nothing() -> None:
    r = build_report([], samples=5)
    assert r["pairs"] == 0 and r["agreement"]["word"][-1]["f1"] is None
    json.dumps(r, allow_nan=False)


# -- matching ----------------------------------------------------------------------------


def ap(pid, src, tgt, links=()) -> AlignedPair:
    return AlignedPair(pid, src.split(), tgt.split(), Alignment.from_sets(links))


def test_match_by_id_reorders_and_reports_token_mismatch() -> None:
    a = [ap("1", "a b", "x y", [(0, 0)]), ap("2", "c d", "z w"), ap("3", "e", "v")]
    b = [ap("3", "e", "v"), ap("2", "c d", "z W"), ap("1", "a b", "x y", [(1, 1)])]
    m = match_pairs([a, b], ["A.jsonl", "B.jsonl"])
    assert m.by_id
    assert [p.id for p in m.pairs] == ["1", "3"]
    assert m.pairs[0].alignments[1] == Alignment.from_sets([(1, 1)])
    assert len(m.problems) == 1
    assert "pair 2" in m.problems[0] and "A.jsonl" in m.problems[0] and "B.jsonl" in m.problems[0]


def test_match_by_position_when_ids_do_not_overlap() -> None:
    a = [ap("a1", "a b", "x y"), ap("a2", "c", "z")]
    b = [ap("b1", "a b", "x y"), ap("b2", "c", "z"), ap("b3", "d", "w")]
    m = match_pairs([a, b], ["A", "B"])
    assert not m.by_id and len(m.pairs) == 2
    assert any("different numbers of pairs" in p for p in m.problems)


def test_missing_pairs_left_out_unless_allowed() -> None:
    a = [ap("1", "a", "x"), ap("2", "b", "y")]
    b = [ap("1", "a", "x")]
    c = [ap("1", "a", "x"), ap("2", "b", "y")]
    assert len(match_pairs([a, b, c], ["A", "B", "C"]).pairs) == 1
    m = match_pairs([a, b, c], ["A", "B", "C"], allow_missing=True)
    assert len(m.pairs) == 2 and m.pairs[1].alignments[1] is None
