"""Property tests: writing then reading loses nothing a format can carry (SPEC §2).

Random pairs use unicode tokens (any non-whitespace characters) and random sure/possible
alignments. Link-only formats (pharaoh, naacl) round-trip together with their text.
"""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from alignment_core.alignment import AlignedPair, Alignment
from alignment_core.formats import (
    edinburgh_id_info,
    format_pairs,
    format_sentences,
    parse_pairs,
    write_pairs,
)
from alignment_core.formats.textcheck import tokens_problem

# Tokens readers accept: no control characters, surrogates or invisible-only tokens (textcheck).
TOKEN = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff"),
    min_size=1,
    max_size=5,
).filter(lambda t: t.split() == [t] and t != "|||" and tokens_problem([t], "x") is None)
SENTENCE = st.lists(TOKEN, min_size=1, max_size=6)
PAIR_ID = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,8}", fullmatch=True)
EDINBURGH_ID = st.builds(
    "{}-{}:{}".format,
    st.sampled_from(["mtc", "news", "novels"]),
    st.sampled_from(["common", "A", "C", "trial"]),
    st.integers(0, 9999),
)
STORABLE_TEXT = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
META = st.dictionaries(
    st.text(STORABLE_TEXT, min_size=1, max_size=4),
    st.one_of(st.text(STORABLE_TEXT, max_size=4), st.integers()),
    max_size=2,
)


@st.composite
def pair_lists(draw, ids=PAIR_ID, aligned: bool = True) -> list[AlignedPair]:
    n = draw(st.integers(1, 4))
    pids = draw(st.lists(ids, min_size=n, max_size=n, unique=True))
    out = []
    for pid in pids:
        source, target = draw(SENTENCE), draw(SENTENCE)
        alignment = None
        if aligned:
            cells = [(i, j) for i in range(len(source)) for j in range(len(target))]
            labels = draw(
                st.lists(st.sampled_from("-SP"), min_size=len(cells), max_size=len(cells))
            )
            alignment = Alignment.from_sets(
                (c for c, lab in zip(cells, labels, strict=True) if lab == "S"),
                (c for c, lab in zip(cells, labels, strict=True) if lab == "P"),
            )
        out.append(
            AlignedPair(
                pid,
                source,
                target,
                alignment,
                subcorpus=draw(st.sampled_from(["", "mtc", "news"])),
                annotator=draw(
                    st.one_of(
                        st.none(),
                        st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=4),
                    )
                ),
                metadata=draw(META),
            )
        )
    return out


def text_of(pairs: list[AlignedPair], fmt: str) -> str:
    return "".join(format_pairs(pairs, fmt))


def core(p: AlignedPair) -> tuple:
    return (p.source, p.target, p.alignment)


@settings(max_examples=60)
@given(pair_lists())
def test_jsonl_round_trip_is_exact(pairs: list[AlignedPair]) -> None:
    assert parse_pairs(text_of(pairs, "jsonl").encode(), "jsonl") == pairs


@settings(max_examples=60)
@given(pair_lists(aligned=False))
def test_tsv_round_trip(pairs: list[AlignedPair]) -> None:
    back = parse_pairs(text_of(pairs, "tsv"), "tsv")
    assert [(p.id, p.source, p.target, p.subcorpus, p.metadata) for p in back] == [
        (p.id, p.source, p.target, p.subcorpus, p.metadata) for p in pairs
    ]
    assert all(p.alignment is None for p in back)


@settings(max_examples=60)
@given(pair_lists(aligned=False))
def test_bitext_round_trip(pairs: list[AlignedPair]) -> None:
    back = parse_pairs(text_of(pairs, "bitext"), "bitext")
    assert [(p.id, p.source, p.target) for p in back] == [(p.id, p.source, p.target) for p in pairs]


@settings(max_examples=60)
@given(pair_lists(aligned=False))
def test_parallel_round_trip(pairs: list[AlignedPair]) -> None:
    src, tgt = io.StringIO(), io.StringIO()
    write_pairs(pairs, src, "parallel", target_text=tgt)
    back = parse_pairs(src.getvalue(), "parallel", target_lines=tgt.getvalue().encode())
    assert [(p.id, p.source, p.target) for p in back] == [
        (str(n), p.source, p.target) for n, p in enumerate(pairs, 1)
    ]


@settings(max_examples=60)
@given(pair_lists())
def test_giza_a3_round_trip(pairs: list[AlignedPair]) -> None:
    back = parse_pairs(text_of(pairs, "giza-a3"), "giza-a3")
    assert [(p.id, *core(p)) for p in back] == [(p.id, *core(p)) for p in pairs]


@settings(max_examples=60)
@given(pair_lists(ids=EDINBURGH_ID | PAIR_ID))
def test_edinburgh_round_trip(pairs: list[AlignedPair]) -> None:
    back = parse_pairs(text_of(pairs, "edinburgh"), "edinburgh")
    assert [(p.id, *core(p)) for p in back] == [(p.id, *core(p)) for p in pairs]
    assert [p.subcorpus for p in back] == [edinburgh_id_info(p.id)[0] for p in pairs]
    assert parse_pairs(text_of(back, "edinburgh"), "edinburgh") == back  # a fixed point


@settings(max_examples=60)
@given(pair_lists())
def test_pharaoh_round_trips_with_parallel_text(pairs: list[AlignedPair]) -> None:
    links, src, tgt = io.StringIO(), io.StringIO(), io.StringIO()
    write_pairs(pairs, links, "pharaoh", source_text=src, target_text=tgt)
    back = parse_pairs(
        links.getvalue(), "pharaoh", source_lines=src.getvalue(), target_lines=tgt.getvalue()
    )
    assert [core(p) for p in back] == [core(p) for p in pairs]
    assert [p.id for p in back] == [str(n) for n in range(1, len(pairs) + 1)]


@settings(max_examples=60)
@given(pair_lists())
def test_pharaoh_and_naacl_round_trip_with_tsv_text(pairs: list[AlignedPair]) -> None:
    text = parse_pairs(text_of(pairs, "tsv"), "tsv")
    for fmt in ("pharaoh", "naacl"):
        back = parse_pairs(text_of(pairs, fmt), fmt, text_pairs=text)
        assert [(p.id, p.subcorpus, *core(p)) for p in back] == [
            (p.id, p.subcorpus, *core(p)) for p in pairs
        ]


@settings(max_examples=40)
@given(pair_lists())
def test_a_chain_through_every_aligned_format_keeps_tokens_and_links(
    pairs: list[AlignedPair],
) -> None:
    current = pairs
    for fmt in ("giza-a3", "edinburgh", "jsonl"):
        current = parse_pairs(text_of(current, fmt), fmt)
    sentences = {side: "".join(format_sentences(current, side)) for side in ("source", "target")}
    current = parse_pairs(
        text_of(current, "pharaoh"),
        "pharaoh",
        source_lines=sentences["source"],
        target_lines=sentences["target"],
    )
    assert [core(p) for p in current] == [core(p) for p in pairs]
