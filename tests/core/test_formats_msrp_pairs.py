"""The MSR Paraphrase Corpus format as a corpus format (issue 33: "add it as an import format
too"): pairs to align, tokenised, the Quality kept; written back the same; bad lines named."""

from __future__ import annotations

import pytest

from alignment_core.formats import FORMATS, FormatError, guess_format, parse_pairs, write_pairs
from alignment_core.formats.msrp import tokenize

MSRP = (
    "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
    '1\t702876\t702977\tAmrozi accused his brother, whom he called "the witness".\t'
    'Referring to him as only "the witness", Amrozi accused his brother.\n'
    "0\t2108705\t2108831\tYucaipa owned Dominick's before selling the chain in 1998.\t"
    "Yucaipa bought Dominick's in 1995 for $693 million.\n"
)


def test_tokenize_splits_words_from_punctuation():
    assert tokenize('He said "no," didn\'t he?') == [
        "He",
        "said",
        '"',
        "no",
        ",",
        '"',
        "didn't",
        "he",
        "?",
    ]


def test_msrp_is_a_corpus_format_with_its_quality_kept(tmp_path):
    assert "msrp" in FORMATS and guess_format("train.msrp") == "msrp"
    pairs = parse_pairs(MSRP, "msrp", name="train.msrp")
    assert [p.id for p in pairs] == ["702876-702977", "2108705-2108831"]
    assert pairs[0].source[:3] == ["Amrozi", "accused", "his"] and pairs[0].alignment is None
    assert [p.metadata["msrp_quality"] for p in pairs] == [1, 0]
    out = tmp_path / "back.msrp"
    write_pairs(pairs, out, "msrp")
    again = parse_pairs(out.read_text(encoding="utf-8"), "msrp", name="back.msrp")
    assert [(p.id, p.source, p.target, p.metadata) for p in again] == [
        (p.id, p.source, p.target, p.metadata) for p in pairs
    ]


def test_a_bad_line_is_named():
    bad = MSRP + "1\t1\t2\tonly four fields\n"
    with pytest.raises(FormatError, match=r"train\.msrp:4"):
        parse_pairs(bad, "msrp", name="train.msrp")
