"""Pooling with the built-in English model as a project's gold grows (issue 34): the first
gold pairs count (a fixed built-in weight below ``MIN_GOLD_PAIRS``), and the built-in weight
does not rise as the project's gold, which contradicts it, grows."""

from __future__ import annotations

import pytest

from alignment_core.aligner.builtin import load_builtin
from alignment_core.aligner.link_config import FEW_GOLD_BUILTIN_WEIGHT, MIN_GOLD_PAIRS
from alignment_core.aligner.link_model import SeedResources, installed_resources, train_seed_model
from tests.core.test_builtin_model import CFG, article_links, rule_corpus

HELD_OUT = range(60, 90)


@pytest.fixture(scope="module")
def planted():
    """The planted-rule corpus (the project's articles never link; the built-in model links
    them), the installed resources and the built-in model."""
    pairs, gold = rule_corpus(90)
    return pairs, gold, installed_resources(), load_builtin()


def seeded(planted, n_gold: int):
    """The model trained with the first ``n_gold`` planted gold pairs, and the share of the
    held-out pairs' article cells its seeds link."""
    pairs, gold, resources, builtin = planted
    model = train_seed_model(
        pairs, {n: gold[n] for n in range(n_gold)}, config=CFG, resources=resources,
        builtin=builtin,
    )  # fmt: skip
    held_out = [pairs[n] for n in HELD_OUT]
    return model, article_links(model.align(held_out), held_out)


def test_the_first_gold_pairs_count_beside_the_builtin_model(planted):
    _, alone = seeded(planted, 0)
    assert alone > 0.8  # the built-in model links the articles
    model, few = seeded(planted, 5)
    assert MIN_GOLD_PAIRS > 5
    assert model.kind == "supervised" and model.info["gold_pairs"] == 5
    assert model.info["builtin_weight"] == FEW_GOLD_BUILTIN_WEIGHT
    assert "fixed at 0.5" in model.info["builtin_weight_fixed"]
    assert model.info["link_config"]["folds"] == 4
    assert few < 0.1  # five pairs of the project's rule already show in the seeds
    pairs, gold, _, _ = planted
    seeds = model.align([pairs[n] for n in HELD_OUT])
    kept = sum(len(seeds[k].all_links & gold[n].all_links) for k, n in enumerate(HELD_OUT))
    assert kept >= 0.9 * sum(len(gold[n].all_links) for n in HELD_OUT)  # the nouns still link


def test_the_builtin_weight_does_not_rise_as_the_projects_gold_grows(planted):
    weights, articles = [], []
    for n_gold in (0, 3, 5, 60):
        model, share = seeded(planted, n_gold)
        weights.append(model.info["builtin_weight"])
        articles.append(share)
    assert weights[0] == 1.0 and weights[1] == weights[2] == FEW_GOLD_BUILTIN_WEIGHT
    assert weights[3] < FEW_GOLD_BUILTIN_WEIGHT  # cross-validation, on 60 pairs
    assert weights == sorted(weights, reverse=True)
    assert articles == sorted(articles, reverse=True) and articles[-1] < 0.1
    assert [seeded(planted, 3)[0].info["builtin_weight"] for _ in range(2)] == [0.5, 0.5]


def test_one_gold_pair_or_no_builtin_resources_leave_the_few_gold_as_before(planted):
    pairs, gold, resources, builtin = planted
    one = train_seed_model(pairs, {0: gold[0]}, config=CFG, resources=resources, builtin=builtin)
    assert one.kind == "builtin"  # cross-fitting needs two pairs
    without = train_seed_model(
        pairs, {n: gold[n] for n in range(5)}, config=CFG, resources=SeedResources(),
        builtin=builtin,
    )  # fmt: skip
    assert without.kind == "hmm" and "builtin_weight" not in without.info
    assert "reads" in without.info["builtin_not_used"]
