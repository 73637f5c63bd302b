"""``python -m alignment_core align --model-kind supervised``: a link model trained on the gold,
sure/possible output, its cross-validated figures on stderr, the HMM fallback, bad usage."""

from __future__ import annotations

import json

import numpy as np
import pytest

from alignment_core.cli import main
from tests.core.test_supervised_model import planted_corpus


@pytest.fixture
def files(tmp_path):
    pairs, gold = planted_corpus(30, seed=5)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": f"p{n}", "source": s, "target": t}) + "\n"
            for n, (s, t) in enumerate(pairs)
        ),
        encoding="utf-8",
    )
    gold_file = tmp_path / "gold.jsonl"
    gold_file.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"p{n}",
                    "source": pairs[n][0],
                    "target": pairs[n][1],
                    "sure": sorted(map(list, gold[n].sure)),
                    "possible": sorted(map(list, gold[n].possible)),
                }
            )
            + "\n"
            for n in range(24)
        ),
        encoding="utf-8",
    )
    return corpus, gold_file, pairs, gold


def test_supervised_links_with_labels_probabilities_and_figures(tmp_path, files, capsys):
    corpus, gold_file, pairs, gold = files
    out, post = tmp_path / "seeds.jsonl", tmp_path / "p.npz"
    args = ["align", str(corpus), "--out", str(out), "--gold", str(gold_file), "--quiet"]
    rc = main([*args, "--model-kind", "supervised", "--posteriors", str(post), "--seed", "1"])
    assert rc == 0
    err = capsys.readouterr().err
    assert "supervised link model on 24 gold pairs" in err and "cross-validation" in err
    assert "edits/pair" in err and "(supervised)" in err and "WordNet: WordNet 3.0" in err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [f"p{n}" for n in range(30)]
    # a held-out pair: the planted links, the full stop as possible
    last = rows[29]
    assert {tuple(x) for x in last["sure"]} | {tuple(x) for x in last["possible"]} >= set(
        gold[29].sure
    )
    assert [len(pairs[29][0]) - 1, len(pairs[29][1]) - 1] in last["possible"]
    z = np.load(post)
    assert z["shapes"].tolist()[29] == [len(pairs[29][0]), len(pairs[29][1])]


def test_too_little_gold_says_the_hmm_seeded(tmp_path, files, capsys):
    corpus, gold_file, _, _ = files
    out = tmp_path / "seeds.txt"
    rc = main(
        ["align", str(corpus), "--out", str(out), "--gold", str(gold_file), "--quiet"]
        + ["--model-kind", "supervised", "--min-gold-pairs", "30"]
    )
    assert rc == 0
    err = capsys.readouterr().err
    assert "24 gold pair(s), fewer than the 30" in err and "(hmm)" in err
    assert len(out.read_text().splitlines()) == 30


def test_no_wordnet_trains_without_it_and_says_so(tmp_path, files, capsys):
    corpus, gold_file, _, _ = files
    out = tmp_path / "seeds.txt"
    args = ["align", str(corpus), "--out", str(out), "--gold", str(gold_file), "--quiet"]
    assert main([*args, "--model-kind", "supervised", "--no-wordnet"]) == 0
    assert "WordNet: off" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 30


def test_no_vectors_trains_without_them_and_says_so(tmp_path, files, capsys):
    corpus, gold_file, _, _ = files
    out = tmp_path / "seeds.txt"
    args = ["align", str(corpus), "--out", str(out), "--gold", str(gold_file), "--quiet"]
    assert main([*args, "--model-kind", "supervised", "--no-vectors", "--no-thesaurus"]) == 0
    err = capsys.readouterr().err
    assert "WordNet: WordNet 3.0; word vectors: off; thesaurus: off" in err
    assert len(out.read_text().splitlines()) == 30


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--model-kind", "supervised"], "needs --gold"),
        (["--model-kind", "supervised", "--gold", "G", "--save-model", "m.npz"], "--save-model"),
        (["--seed", "3"], "--model-kind supervised only"),
        (["--no-wordnet"], "--model-kind supervised only"),
        (["--no-vectors"], "--model-kind supervised only"),
        (["--no-thesaurus"], "--model-kind supervised only"),
    ],
)
def test_bad_usage_is_refused_before_any_work(tmp_path, files, capsys, extra, message):
    corpus, gold_file, _, _ = files
    extra = [str(gold_file) if x == "G" else x for x in extra]
    out = tmp_path / "o.txt"
    assert main(["align", str(corpus), "--out", str(out), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()
