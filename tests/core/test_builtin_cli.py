"""``align`` with the built-in English model (issue 34): used by default on English text
without gold, not on other languages (told from the text, or ``--lang``), never with
``--no-builtin``; and English told from the text (``aligner.language``)."""

from __future__ import annotations

import json

from alignment_core.aligner.language import declared_english, english_share, english_verdict
from alignment_core.cli import main
from tests.core.test_builtin_model import ENGLISH

GERMAN_FRENCH = [
    ("die Katze sitzt auf der Matte", "le chat est assis sur le tapis"),
    ("ein Hund rannte im Park", "un chien courait dans le parc"),
    ("der Mann kaufte ein neues Auto", "l'homme a acheté une nouvelle voiture"),
    ("sie liest jeden Tag die Zeitung", "elle lit le journal chaque jour"),
]


def write(tmp_path, sentences):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": f"p{n}", "source": s, "target": t}) + "\n"
            for n, (s, t) in enumerate(sentences)
        ),
        encoding="utf-8",
    )
    return corpus


def run(tmp_path, sentences, *extra):
    out = tmp_path / "out.txt"
    rc = main(["align", str(write(tmp_path, sentences)), "--out", str(out), "--quiet", *extra])
    return rc, out


def test_english_text_is_aligned_by_the_builtin_model_by_default(tmp_path, capsys):
    rc, out = run(tmp_path, ENGLISH)
    assert rc == 0
    err = capsys.readouterr().err
    assert "the built-in English model en-paraphrase-1 seeds" in err and "(builtin)" in err
    lines = out.read_text().splitlines()
    assert len(lines) == len(ENGLISH) and "2-2" in lines[2]  # bought / purchased


def test_no_builtin_and_another_language_align_with_the_hmm(tmp_path, capsys):
    rc, _ = run(tmp_path, ENGLISH, "--no-builtin")
    err = capsys.readouterr().err
    assert rc == 0 and "not used: --no-builtin" in err and "(intersect)" in err
    rc, _ = run(tmp_path, ENGLISH, "--lang", "de")
    err = capsys.readouterr().err
    assert rc == 0 and "not English (declared languages de/de)" in err and "(intersect)" in err
    rc, _ = run(tmp_path, GERMAN_FRENCH)
    err = capsys.readouterr().err
    assert rc == 0 and "not English (English function words are" in err
    assert "(intersect)" in err
    rc, _ = run(tmp_path, GERMAN_FRENCH, "--lang", "en")  # --lang wins over the text
    assert rc == 0 and "(builtin)" in capsys.readouterr().err


def test_supervised_only_options_are_still_refused_without_a_model_kind(tmp_path, capsys):
    rc, _ = run(tmp_path, ENGLISH, "--no-vectors")
    assert rc == 2 and "apply to --model-kind supervised only" in capsys.readouterr().err


def test_english_is_told_from_its_function_words_and_declared_languages_win():
    english = [(s.split(), t.split()) for s, t in ENGLISH]
    other = [(s.split(), t.split()) for s, t in GERMAN_FRENCH]
    assert english_share(s for s, _ in english) > 0.2
    assert english_share(s for s, _ in other) < 0.05
    assert english_verdict(english)[0] and not english_verdict(other)[0]
    mixed = [(s, e[1]) for (s, _), e in zip(other, english, strict=False)]  # German / English
    assert not english_verdict(mixed)[0]  # both sides must be English
    assert english_verdict(other, "en", "en-GB")[0] and not english_verdict(english, "en", "fr")[0]
    assert declared_english("", "") is None and declared_english("EN", "en_US") is True
