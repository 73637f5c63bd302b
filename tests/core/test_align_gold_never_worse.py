"""With gold, never worse than without: ``python -m alignment_core align`` with ``--gold`` (its
default, the supervised link model pooled with the built-in English model) scores at least the
F1 on sure links of the same command without gold (the built-in model alone), fold by fold, on
real English paraphrase data: Edinburgh++ test (the built-in model's own genre; it was fitted
on the train split) and MSR RTE2 dev, annotator A (another genre).

Small folds, so each run takes seconds: the first ``N_PAIRS`` pairs, split in two by a seeded
assignment; each half is scored with the other half's gold. The whole learning curves are
``benchmarks/seed_learning.py --cli-default``. Skips without the shared corpora (fails under
CI=true): see ``shared_data`` in conftest."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from alignment_core.agreement.word import score_word
from alignment_core.alignment import AlignedPair, Alignment
from alignment_core.cli import main
from alignment_core.formats import read_pairs, write_pairs

N_PAIRS = 40
FOLD_SEED = 0


def corpus_of(shared_data: Path, name: str) -> list[AlignedPair]:
    """The first ``N_PAIRS`` pairs, with sure and possible links told apart."""
    if name == "edinburgh":
        folder = shared_data / "edinburgh"
        pairs = read_pairs(folder / "gold.test.sure+poss.json", "edinburgh",
                           sure_path=folder / "gold.test.sure.json")  # fmt: skip
    else:
        pairs = read_pairs(shared_data / "msr-rte2-dev" / "RTE2_dev_A.align.txt", "giza-a3")
    return pairs[:N_PAIRS]


def f1_on_sure(pairs: list[AlignedPair], seeds: list[Alignment]) -> float:
    """F1 of the seeds' links (labels aside) against the gold's sure links."""
    items = [
        (
            p.source,
            p.target,
            Alignment.from_sets(a.all_links),
            Alignment.from_sets(p.alignment.sure),
        )
        for p, a in zip(pairs, seeds, strict=True)
    ]
    return score_word(items, include_identical=True).f1


def seeds_of(folder: Path, corpus: Path, *extra: str) -> list[Alignment]:
    out = folder / f"seeds{len(list(folder.iterdir()))}.jsonl"
    assert main(["align", str(corpus), "--out", str(out), "--quiet", *extra]) == 0
    return [p.alignment for p in read_pairs(out, "jsonl")]


@pytest.mark.parametrize("name", ["edinburgh", "msr-rte2-dev"])
def test_seeds_with_gold_are_never_worse_than_without(shared_data, tmp_path, capsys, name):
    pairs = corpus_of(shared_data, name)
    corpus = tmp_path / "corpus.jsonl"
    write_pairs([AlignedPair(p.id, p.source, p.target) for p in pairs], corpus, "jsonl")
    without = seeds_of(tmp_path, corpus)
    assert "(builtin)" in capsys.readouterr().err
    fold = np.random.default_rng(FOLD_SEED).permutation(len(pairs)) % 2
    for k in (0, 1):
        gold = tmp_path / f"gold{k}.jsonl"
        write_pairs([p for n, p in enumerate(pairs) if fold[n] != k], gold, "jsonl")
        with_gold = seeds_of(tmp_path, corpus, "--gold", str(gold))
        assert "(supervised)" in capsys.readouterr().err
        scored = np.flatnonzero(fold == k)
        held_out = [pairs[n] for n in scored]
        f1_with = f1_on_sure(held_out, [with_gold[n] for n in scored])
        f1_without = f1_on_sure(held_out, [without[n] for n in scored])
        assert f1_with >= f1_without, (name, k, f1_with, f1_without)
        assert f1_without > 0.75  # both are real seeds, not two empty grids
