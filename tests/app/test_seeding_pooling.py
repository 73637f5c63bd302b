"""The seed job as an English project's gold grows (issue 34): its result records the built-in
model's weight and how cross-validation chose it; the weight falls from no gold through a few
planted pairs and does not rise with many, and the project's planted rule (articles never
link) shows in the seeds from its first few gold pairs."""

from __future__ import annotations

import pytest

from alignment_core.aligner.link_config import FEW_GOLD_WEIGHTS
from annotator.models import GoldAlignment, Job, Project, SeedAlignment, SentencePair
from annotator.seeding.selectors import seed_result_summary
from annotator.tasks import run_job_task as seed_task
from tests.core.test_builtin_model import FILLER, rule_corpus

pytestmark = pytest.mark.django_db

HELD_OUT = range(60, 90)


@pytest.fixture
def planted(lead):
    project = Project.objects.create(name="Planted rule", source_language="en",
                                     target_language="en")  # fmt: skip
    pairs, gold = rule_corpus(90)
    rows = [
        SentencePair.objects.create(
            project=project, external_id=f"p{n}", position=n, source_tokens=s, target_tokens=t
        )  # fmt: skip
        for n, (s, t) in enumerate(pairs)
    ]
    return project, rows, gold, lead


def seed_job(project, lead) -> dict:
    job = Job.objects.create(kind="seed", project=project, created_by=lead,
                             params={"use_gold": True})  # fmt: skip
    seed_task(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job.result


def linked_articles(result: dict, rows) -> int:
    """The held-out pairs' article cells (same word, same position) the job's seeds link."""
    seeds = SeedAlignment.objects.filter(aligner_run_id=result["aligner_run"])
    links = {s.pair_id: {(i, j) for i, j, _ in s.links} for s in seeds}
    return sum(
        (i, i) in links[rows[n].pk]
        for n in HELD_OUT
        for i, w in enumerate(rows[n].source_tokens)
        if w in FILLER
    )


def test_the_builtin_weight_falls_as_planted_gold_grows(planted):
    project, rows, gold, lead = planted
    weights, articles = [], []
    done = 0
    for n_gold in (0, 5, 60):
        for n in range(done, n_gold):
            GoldAlignment.objects.create(pair=rows[n], origin="imported",
                                         links=gold[n].to_links())  # fmt: skip
        done = n_gold
        result = seed_job(project, lead)
        assert result["gold_pairs"] == n_gold
        weights.append(result["builtin_weight"])
        articles.append(linked_articles(result, rows))
        if n_gold:
            assert result["model"] == "supervised"
            assert "one standard error" in result["builtin_weight_rule"]
            assert "builtin_weight_fixed" not in result
            assert "(chosen by cross-validation on the gold)" in seed_result_summary(result)
    assert weights[0] == 1.0 and weights[1] in FEW_GOLD_WEIGHTS and weights[1] < 1
    assert weights == sorted(weights, reverse=True)
    assert articles[0] > 20 and articles[1] == articles[2] == 0  # the rule, from 5 pairs
