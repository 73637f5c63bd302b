"""Text normalisation is offered, never silent (issue 34): a token with a control character is
refused, and the error names ``--normalize``; with it, control characters inside tokens are
removed and tokens put in NFC, the token counts (so the links) unchanged; a token made only
of control characters is refused even then."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alignment_core.cli import main
from alignment_core.formats import FormatError, Normalization, parse_pairs, read_pairs

DIRTY = "Ca\u0082fe"  # U+0082 inside a token, as in a real release
DECOMPOSED = "ne\u0301"  # "né" with a combining accent: NFC makes it one code point


def jsonl_line(pid, source, target, sure=()):
    return json.dumps({"id": pid, "source": source, "target": target, "sure": list(sure)})


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(jsonl_line(*row) + "\n" for row in rows), encoding="utf-8")
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- the readers ------------------------------------------------------------------------------


def test_refused_by_default_naming_the_option():
    with pytest.raises(FormatError) as caught:
        parse_pairs(jsonl_line("p1", [DIRTY, "x"], ["y", "z"]), "jsonl")
    reason = str(caught.value)
    assert "U+0082" in reason and "--normalize" in reason and '"normalize": true' in reason


def test_normalize_cleans_tokens_and_keeps_links():
    norm = Normalization()
    text = jsonl_line("p1", ["a", DIRTY, DECOMPOSED], ["b", "cafe", "né"], [[1, 1], [2, 2]])
    (pair,) = parse_pairs(text, "jsonl", normalize=norm)
    assert pair.source == ["a", "Cafe", "n\u00e9"]
    assert pair.alignment.sure == {(1, 1), (2, 2)}
    assert (norm.tokens_changed, norm.pairs_changed) == (2, 1)


def test_clean_text_is_left_alone_and_counts_nothing():
    norm = Normalization()
    (pair,) = parse_pairs(jsonl_line("p1", ["a", "né"], ["b"]), "jsonl", normalize=norm)
    assert pair.source == ["a", "né"]
    assert (norm.tokens_changed, norm.pairs_changed) == (0, 0)


def test_a_token_of_control_characters_only_is_refused_even_normalized():
    """Removing it would shift every later token and the links that point at them."""
    text = jsonl_line("p1", ["a", "\u0082", "b"], ["a", "b"], [[2, 1]])
    with pytest.raises(FormatError) as caught:
        parse_pairs(text, "jsonl", normalize=Normalization())
    assert "only control characters" in str(caught.value) and "fix the file" in str(caught.value)


def test_pharaoh_links_read_against_cleaned_sentences():
    norm = Normalization()
    (pair,) = parse_pairs(
        "0-0 1-1 2-2",
        "pharaoh",
        source_lines=f"x {DIRTY} y",
        target_lines="x cafe y",
        normalize=norm,
    )
    assert pair.source == ["x", "Cafe", "y"] and len(pair.alignment.sure) == 3
    assert norm.tokens_changed == 1


def test_edinburgh_sure_file_counted_once(tmp_path):
    rows = [{"id": "p1", "source": f"a {DIRTY}", "target": "a cafe", "sureAlign": "0-0 1-1"}]
    main_file = tmp_path / "x.json"
    main_file.write_text(json.dumps(rows), encoding="utf-8")
    sure_file = tmp_path / "x.sure.json"
    sure_file.write_text(json.dumps(rows), encoding="utf-8")
    norm = Normalization()
    pairs = read_pairs(main_file, "edinburgh", sure_path=sure_file, normalize=norm)
    assert pairs[0].source == ["a", "Cafe"]
    assert norm.tokens_changed == 1


def test_tsv_file_with_control_character(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text(f"p1\tthe {DIRTY} .\tthe cafe .\n", encoding="utf-8")
    with pytest.raises(FormatError, match="--normalize"):
        read_pairs(path)
    assert read_pairs(path, normalize=Normalization())[0].source == ["the", "Cafe", "."]


# -- the commands -----------------------------------------------------------------------------

CORPUS = [
    ("p1", ["the", DIRTY, "was", "open", "."], ["the", "cafe", "was", "open", "."]),
    ("p2", ["a", "dog", "sat", "."], ["a", "dog", "was", "sitting", "."]),
    ("p3", ["the", "dog", "saw", "the", "cafe", "."], ["the", "dog", "noticed", "it", "."]),
]


def test_align_refuses_then_normalizes(tmp_path, capsys):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    out = tmp_path / "seeds.jsonl"
    code, _, err = run(capsys, "align", corpus, "--out", out, "--threads", "1", "--quiet")
    assert code == 1 and "U+0082" in err and "--normalize" in err and not out.exists()
    code, _, err = run(
        capsys, "align", corpus, "--out", out, "--threads", "1", "--quiet", "--normalize"
    )
    assert code == 0, err
    assert "normalize: 1 token(s) cleaned in 1 pair(s)" in err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["source"] == ["the", "Cafe", "was", "open", "."]
    assert all(max(i for i, _ in r["sure"]) < len(r["source"]) for r in rows if r["sure"])


def scored(tmp_path):
    gold = [(pid, s, t, [[k, k] for k in range(min(len(s), len(t)))]) for pid, s, t in CORPUS]
    test = [(pid, [w.replace("\u0082", "") for w in s], t, sure) for pid, s, t, sure in gold]
    return write_jsonl(tmp_path / "gold.jsonl", gold), write_jsonl(tmp_path / "test.jsonl", test)


def test_score_refuses_then_normalizes(tmp_path, capsys):
    gold, test = scored(tmp_path)
    code, _, err = run(capsys, "score", gold, test, "--json")
    assert code == 1 and "--normalize" in err
    code, out, err = run(capsys, "score", gold, test, "--json", "--normalize")
    assert code == 0, err
    assert "1 token(s) cleaned" in err
    result = json.loads(out)
    assert result["pairs"] == 3 and result["word"]["f1"] == pytest.approx(1.0)  # all matched


@pytest.mark.parametrize("command", ["agree", "fleiss"])
def test_agreement_commands_refuse_then_normalize(tmp_path, capsys, command):
    gold, test = scored(tmp_path)
    other = tmp_path / "c.jsonl"
    other.write_text(test.read_text(encoding="utf-8"), encoding="utf-8")
    files = [gold, test, "--seed", other] if command == "agree" else [gold, test, other]
    code, _, err = run(capsys, command, *files)
    assert code == 1 and "--normalize" in err
    code, _, err = run(capsys, command, *files, "--normalize")
    assert code == 0, err


def test_convert_refuses_then_normalizes(tmp_path, capsys):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    out = tmp_path / "out.tsv"
    code, _, err = run(capsys, "convert", corpus, out)
    assert code == 1 and "--normalize" in err and not out.exists()
    code, _, err = run(capsys, "convert", corpus, out, "--normalize")
    assert code == 0, err
    assert out.read_text(encoding="utf-8").splitlines()[1].startswith("p1\tthe Cafe was open .")
