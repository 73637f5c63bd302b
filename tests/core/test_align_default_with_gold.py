"""``python -m alignment_core align --gold G`` with no ``--model-kind`` seeds as the app does
(``aligner.seed_default``): the supervised link model, pooled with the built-in English model
on English text; ``--model-kind hmm`` still gives the HMM with the gold as counts; and a
missing outside resource is named with the command that installs it."""

from __future__ import annotations

import json

import pytest

from alignment_core.aligner import AlignerConfig
from alignment_core.aligner.installed import installed_resources
from alignment_core.aligner.seed_default import train_default_seed_model
from alignment_core.cli import main
from alignment_core.formats import read_pairs
from tests.core.test_builtin_model import article_links, rule_corpus

N_PAIRS, N_GOLD = 50, 25
INSTALL = "python -m alignment_core resources install"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The planted-rule corpus (English-like; the project's articles never link, which the
    built-in model alone would link) and the gold of its first ``N_GOLD`` pairs."""
    folder = tmp_path_factory.mktemp("default-with-gold")
    pairs, gold = rule_corpus(N_PAIRS)
    corpus, gold_file = folder / "corpus.jsonl", folder / "gold.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"p{n}", "source": s, "target": t}) + "\n"
                              for n, (s, t) in enumerate(pairs)), encoding="utf-8")  # fmt: skip
    gold_file.write_text(
        "".join(
            json.dumps({"id": f"p{n}", "source": pairs[n][0], "target": pairs[n][1],
                        "sure": sorted(map(list, gold[n].sure)), "possible": []}) + "\n"
            for n in range(N_GOLD)
        ),
        encoding="utf-8",
    )  # fmt: skip
    return corpus, gold_file, pairs, gold


def align(tmp_path, files, *extra):
    """Run ``align`` on the corpus with the gold: the exit code and the seeds per pair (the
    caller reads stderr through capsys)."""
    corpus, gold_file, _, _ = files
    out = tmp_path / "seeds.jsonl"
    rc = main(["align", str(corpus), "--out", str(out), "--gold", str(gold_file), "--quiet",
               *extra])  # fmt: skip
    return rc, [p.alignment for p in read_pairs(out, "jsonl")] if rc == 0 else None


def held_out_articles(files, seeds) -> float:
    _, _, pairs, _ = files
    return article_links(seeds[N_GOLD:], pairs[N_GOLD:])


def test_the_default_with_gold_is_the_pooled_supervised_model_the_app_trains(
    tmp_path, files, capsys
):
    rc, seeds = align(tmp_path, files)
    err = capsys.readouterr().err
    assert rc == 0
    assert f"supervised link model on {N_GOLD} gold pairs" in err and "(supervised)" in err
    assert "pooled with the built-in model en-paraphrase-1" in err
    assert held_out_articles(files, seeds) < 0.1  # the project's rule, learnt from its gold
    # the very seeds the app's function gives (the same function, the same inputs)
    _, _, pairs, gold = files
    model, why_not = train_default_seed_model(
        pairs, {n: gold[n] for n in range(N_GOLD)}, config=AlignerConfig(),
        resources=installed_resources(),
    )  # fmt: skip
    assert why_not is None and model.kind == "supervised"
    assert [a.all_links for a in model.align(pairs)] == [a.all_links for a in seeds]


def test_model_kind_hmm_keeps_the_hmm_with_the_gold_as_counts(tmp_path, files, capsys):
    rc, seeds = align(tmp_path, files, "--model-kind", "hmm")
    err = capsys.readouterr().err
    assert rc == 0 and "(intersect)" in err and "supervised" not in err
    assert held_out_articles(files, seeds) > 0.5  # identical articles: the HMM links them


def test_no_builtin_with_gold_is_the_supervised_model_alone(tmp_path, files, capsys):
    rc, _ = align(tmp_path, files, "--no-builtin", "--seed", "1")
    err = capsys.readouterr().err
    assert rc == 0 and "not used: --no-builtin" in err and "(supervised)" in err
    assert "pooled with the built-in model" not in err


def test_too_little_gold_and_another_language_seed_as_the_app_does(tmp_path, files, capsys):
    rc, _ = align(tmp_path, files, "--min-gold-pairs", "30", "--no-builtin")
    err = capsys.readouterr().err
    assert rc == 0 and f"{N_GOLD} gold pair(s), fewer than the 30" in err and "(hmm)" in err
    rc, _ = align(tmp_path, files, "--lang", "de")  # not English: no built-in model
    err = capsys.readouterr().err
    assert rc == 0 and "not English (declared languages de/de)" in err and "(supervised)" in err
    assert "pooled with the built-in model" not in err


def test_a_saved_hmm_asked_for_keeps_the_hmm_and_says_so(tmp_path, files, capsys):
    rc, _ = align(tmp_path, files, "--save-model", str(tmp_path / "m.npz"))
    err = capsys.readouterr().err
    assert rc == 0 and "(intersect)" in err and "--model/--save-model keep the HMM" in err
    assert (tmp_path / "m.npz").is_file()


def test_missing_resources_are_named_with_the_command_that_installs_them(
    tmp_path, files, capsys, monkeypatch
):
    empty = tmp_path / "no-resources"
    empty.mkdir()
    monkeypatch.setenv("GRIDALIGN_RESOURCES", str(empty))
    rc, _ = align(tmp_path, files)
    err = capsys.readouterr().err
    assert rc == 0 and "(supervised)" in err
    assert "not installed: word vectors, thesaurus, tag lexicon" in err and INSTALL in err
    assert "the built-in model en-paraphrase-1 reads" in err  # it cannot pool without them
