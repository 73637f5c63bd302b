"""GIZA++ A3 records, including the shapes the MSR RTE2 release uses (written here by hand)."""

from __future__ import annotations

import pytest

from alignment_core.alignment import Alignment
from alignment_core.formats import FormatError, format_pairs, parse_pairs

GIZA = (
    "# Sentence pair (1) source length 3 target length 3 alignment score : 1.5e-08\n"
    "the black cat\n"
    "NULL ({ 2 }) le ({ 1 }) chat ({ 3 p2 }) noir ({ p2 })\n"
)
# MSR style: "# sentence pair N", BOMs mid-line, CRLF, "/" separators, trailing spaces.
MSR = (
    "\ufeff\ufeff# sentence pair 12\r\n"
    "\ufeffRegina Schueller declined . \r\n"
    "NULL ({ / / }) \ufeffRegina ({ 1 / / }) works ({ / / }) . ({ 4 p3 / / }) \r\n"
    "# sentence pair 13\r\n"
    "a b\r\n"
    "NULL ({ / / }) c ({ 2 / / }"  # the file ends inside a truncated "})"
)


def fails(text: str, line: int, reason: str) -> None:
    with pytest.raises(FormatError) as info:
        parse_pairs(text, "giza-a3", name="x.A3")
    assert (info.value.file, info.value.line) == ("x.A3", line), str(info.value)
    assert reason in info.value.reason, str(info.value)


def test_reads_giza_output() -> None:
    [pair] = parse_pairs(GIZA, "giza-a3")
    assert (pair.id, pair.source, pair.target) == (
        "1",
        ["the", "black", "cat"],
        ["le", "chat", "noir"],
    )
    assert pair.alignment == Alignment.from_sets({(0, 0), (2, 1)}, {(1, 1), (1, 2)})
    assert pair.metadata == {"alignment_score": "1.5e-08"}


def test_reads_msr_shape() -> None:
    pairs = parse_pairs(MSR.encode(), "giza-a3")
    assert [p.id for p in pairs] == ["12", "13"]
    assert pairs[0].source == ["Regina", "Schueller", "declined", "."]
    assert pairs[0].target == ["Regina", "works", "."]
    assert pairs[0].alignment == Alignment.from_sets({(0, 0), (3, 2)}, {(2, 2)})
    assert pairs[1].alignment == Alignment.from_sets({(1, 0)})


def test_writer_shape_and_round_trip() -> None:
    pairs = parse_pairs(GIZA, "giza-a3")
    text = "".join(format_pairs(pairs, "giza-a3"))
    assert text == (
        "# Sentence pair (1) source length 3 target length 3 alignment score : 1.5e-08\n"
        "the black cat\n"
        "NULL ({ }) le ({ 1 }) chat ({ p2 3 }) noir ({ p2 })\n"
    )
    assert parse_pairs(text, "giza-a3") == pairs


def test_writer_lists_unaligned_source_under_null() -> None:
    pairs = parse_pairs("# sentence pair (a:1)\nx y z\nNULL ({ }) u ({ 2 })\n", "giza-a3")
    assert "".join(format_pairs(pairs, "giza-a3")).splitlines()[2] == "NULL ({ 1 3 }) u ({ 2 })"


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("the cat\n", 1, "expected a '# sentence pair (N) ...' header"),
        ("# Sentence pair (1)\na b\nNULL ({ }) c ({ 3 })\n", 3, "links source position 3"),
        ("# Sentence pair (1)\na b\nNULL ({ }) c ({ 1 1 })\n", 3, "duplicate link"),
        ("# Sentence pair (1)\na b\nNULL ({ }) c ({ 1 p1 })\n", 3, "both sure and possible"),
        ("# Sentence pair (1)\na b\nNULL ({ }) c ({ x1 })\n", 3, "malformed position 'x1'"),
        ("# Sentence pair (1)\na b\nNULL ({ }) c ({ 0 })\n", 3, "1-based"),
        ("# Sentence pair (1)\na b\nNULL ({ }) c d ({ })\n", 3, "'c' is not followed by"),
        ("# Sentence pair (1)\na b\nNULL ({ }) c ({ 1\n", 3, "never closed"),
        ("# Sentence pair (1)\na b\n", 1, "ends before its source and target"),
        ("# Sentence pair (1)\n\nNULL ({ }) c ({ })\n", 2, "empty source sentence"),
        ("# Sentence pair (1)\na\nNULL ({ })\n", 3, "empty target sentence"),
        (GIZA + GIZA, 4, "duplicate pair id '1'"),
    ],
)
def test_rejects(text: str, line: int, reason: str) -> None:
    fails(text, line, reason)
