"""Pooling with the built-in English model as a project's gold grows (issue 34): the first
gold pairs count when they contradict the built-in model (a rule it cannot know shows from 5
pairs), a few pairs that agree with it leave it alone (weight 1: no harm), and the built-in
weight does not rise as the project's gold, which contradicts it, grows."""

from __future__ import annotations

import pytest

from alignment_core.aligner.builtin import WEIGHTS, load_builtin
from alignment_core.aligner.link_config import FEW_GOLD_WEIGHTS, MIN_GOLD_PAIRS
from alignment_core.aligner.link_model import SeedResources, installed_resources, train_seed_model
from tests.core.test_builtin_model import CFG, article_links, rule_corpus

HELD_OUT = range(60, 90)


@pytest.fixture(scope="module")
def planted():
    """The planted-rule corpus (the project's articles never link; the built-in model links
    them), the installed resources and the built-in model."""
    pairs, gold = rule_corpus(90)
    return pairs, gold, installed_resources(), load_builtin()


def seeded(planted, n_gold: int, gold=None):
    """The model trained with the first ``n_gold`` gold pairs (the planted ones unless
    ``gold`` is given), and the share of the held-out pairs' article cells its seeds link."""
    pairs, planted_gold, resources, builtin = planted
    gold = planted_gold if gold is None else gold
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
    # chosen by cross-validation from the few-gold weights, not fixed
    assert set(model.info["builtin_cv_edits"]) == {str(w) for w in FEW_GOLD_WEIGHTS}
    assert model.info["builtin_weight"] in FEW_GOLD_WEIGHTS and model.info["builtin_weight"] < 1
    assert "one standard error" in model.info["builtin_weight_rule"]
    assert "builtin_weight_fixed" not in model.info
    assert model.info["link_config"]["folds"] == 4
    assert few < 0.1  # five pairs of the project's rule already show in the seeds
    pairs, gold, _, _ = planted
    seeds = model.align([pairs[n] for n in HELD_OUT])
    kept = sum(len(seeds[k].all_links & gold[n].all_links) for k, n in enumerate(HELD_OUT))
    assert kept >= 0.9 * sum(len(gold[n].all_links) for n in HELD_OUT)  # the nouns still link


def test_a_few_gold_pairs_that_agree_with_the_builtin_model_leave_it_alone(planted):
    """Gold the built-in model would have drawn itself (its own seeds, taken as gold): the
    project's few pairs say nothing against it, so its weight stays 1 and the seeds are the
    built-in model's own, link for link (no harm from a handful of pairs in its genre)."""
    pairs, _, _, _ = planted
    alone, _ = seeded(planted, 0)
    own_seeds = alone.align(pairs)
    assert sum(len(a.all_links) for a in own_seeds[:5]) > 20  # gold with links to agree on
    for n_gold in (3, 5):
        model, _ = seeded(planted, n_gold, gold=own_seeds)
        assert model.kind == "supervised" and model.info["builtin_weight"] == 1.0
        assert model.info["builtin_cv_edits"]["1.0"] == 0.0
        held_out = [pairs[n] for n in HELD_OUT]
        pooled = model.align(held_out)
        assert [a.all_links for a in pooled] == [own_seeds[n].all_links for n in HELD_OUT]


def test_the_builtin_weight_does_not_rise_as_the_projects_gold_grows(planted):
    weights, articles = [], []
    for n_gold in (0, 3, 5, 60):
        model, share = seeded(planted, n_gold)
        weights.append(model.info["builtin_weight"])
        articles.append(share)
    assert weights[0] == 1.0 and weights[1] < 1 and weights[2] < 1
    assert set(model.info["builtin_cv_edits"]) == {str(w) for w in WEIGHTS}  # all, on 60
    assert weights == sorted(weights, reverse=True)
    assert articles == sorted(articles, reverse=True) and articles[-1] < 0.1
    again = [seeded(planted, 3)[0].info["builtin_weight"] for _ in range(2)]
    assert again == [weights[1]] * 2


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
