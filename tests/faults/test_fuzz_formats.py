"""Fuzzing every format reader (issue 10): whatever bytes a file holds, reading it either gives
pairs or raises the formats' own ``FormatError`` naming the file (and the line when there is
one) — never another exception type (a traceback is not an answer).

Three kinds of input per format: arbitrary bytes, text drawn from the characters the format
gives meaning to, and a valid file (written by the format's own writer) with a few bytes
inserted, deleted or replaced — the last reaches deep into the readers. Bounded with
``max_examples`` so the file runs in seconds.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alignment_core.alignment import AlignedPair, Alignment
from alignment_core.formats import FORMATS, FormatError, format_pairs, format_sentences, parse_pairs

FUZZ = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)

TEXT_PAIRS = [
    AlignedPair("a", ["le", "chat", "noir"], ["the", "black", "cat"]),
    AlignedPair("b", ["oui"], ["yes", "indeed"]),
]
SAMPLE_PAIRS = [
    AlignedPair(
        "news-common:1",
        ["le", "chat", "noir"],
        ["the", "black", "cat"],
        Alignment.from_sets([(0, 0), (1, 2)], [(2, 1)]),
        subcorpus="news",
        metadata={"note": "x", "n": 2},
    ),
    AlignedPair("news-common:2", ["oui"], ["yes", "indeed"], Alignment.from_sets([(0, 0)], [])),
]

# Characters that carry meaning in some format, plus the ones that have broken readers before.
ALPHABET = st.sampled_from(
    list("0123456789-?:|SP \t\n\r{}[]()\",.#NUL") + ["NULL", "({", "})", "|||", "\\u0000"]
    + ["\x00", "\ud800", "\ufeff", "\u200b", "\x85", "\u2028", "é", "1e400", "NaN", "-1"]
)  # fmt: skip


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # lone surrogates too: bytes no codec accepts


FORMAT_TEXT = st.lists(ALPHABET, max_size=80).map(lambda parts: _encode("".join(parts)))
ANY_BYTES = st.binary(max_size=200)


def sample(fmt: str) -> bytes:
    """A valid file of ``fmt`` (sentences only for the text formats)."""
    if fmt == "parallel":
        return "".join(format_sentences(SAMPLE_PAIRS, "source")).encode()
    return "".join(format_pairs(SAMPLE_PAIRS, fmt)).encode()


@st.composite
def mutated(draw, fmt: str) -> bytes:
    data = bytearray(sample(fmt))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        how = draw(st.sampled_from(["insert", "delete", "replace"]))
        chunk = draw(st.one_of(st.binary(min_size=1, max_size=3), ALPHABET.map(_encode)))
        if how == "insert":
            data[at:at] = chunk
        elif how == "delete":
            del data[at : at + len(chunk)]
        else:
            data[at : at + len(chunk)] = chunk
    return bytes(data)


def read(fmt: str, data: bytes, other: bytes | None = None) -> None:
    """Parse ``data`` as ``fmt``; ``other`` is the second input a format takes (the target side
    of parallel, the sure-only file of edinburgh). Link-only formats get fixed text pairs."""
    kwargs: dict = {}
    if fmt == "parallel":
        kwargs["target_lines"] = other if other is not None else sample("parallel")
    elif FORMATS[fmt].needs_text:
        kwargs["text_pairs"] = TEXT_PAIRS
    elif fmt == "edinburgh" and other is not None:
        kwargs["sure_data"] = other
    try:
        pairs = parse_pairs(
            data, fmt, name="fuzz.in", target_name="fuzz.tgt", sure_name="fuzz.sure", **kwargs
        )
    except FormatError as err:
        assert str(err).startswith(("fuzz.in", "fuzz.tgt", "fuzz.sure", "<text>")), str(err)
        assert err.reason.strip(), "a FormatError without a reason"
        return
    assert isinstance(pairs, list)
    for pair in pairs:  # what a reader returns is a well-formed pair
        assert isinstance(pair, AlignedPair)
        pair.validate()


ALL = sorted(FORMATS)


def test_every_format_is_fuzzed():
    assert set(ALL) == set(FORMATS) and len(ALL) == 9


@pytest.mark.parametrize("fmt", ALL)
@FUZZ
@given(data=ANY_BYTES)
def test_any_bytes(fmt, data):
    read(fmt, data)


@pytest.mark.parametrize("fmt", ALL)
@FUZZ
@given(data=FORMAT_TEXT)
def test_text_made_of_the_formats_characters(fmt, data):
    read(fmt, data)


@pytest.mark.parametrize("fmt", ALL)
@FUZZ
@given(data=st.data())
def test_a_valid_file_with_a_few_bytes_changed(fmt, data):
    read(fmt, data.draw(mutated(fmt)))


@pytest.mark.parametrize("fmt", ["parallel", "edinburgh"])
@FUZZ
@given(data=st.data())
def test_the_second_file_of_two_file_formats(fmt, data):
    """parallel's target side and edinburgh's sure-only file are fuzzed too."""
    other = data.draw(st.one_of(mutated(fmt), FORMAT_TEXT))
    read(fmt, sample(fmt), other)
