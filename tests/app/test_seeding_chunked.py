"""Seeding a big project in chunks (``annotator.seeding.chunked``): the chain of chords run
in-process (Celery's eager mode runs a canvas the way workers do, one task after another)
gives the same seeds as the one-task ``seed_project``, publishes them in one step, and a failed
job leaves nothing of its unpublished run.

The same canvas on real workers, one and two, and with a worker killed mid-E-step:
tests/integration/test_seeding_chunked_worker.py and tests/faults/test_seeding_chunk_kill.py.
"""

from __future__ import annotations

import random
from datetime import timedelta

import numpy as np
import pytest
from django.conf import settings
from django.utils import timezone

from alignment_core.aligner.posteriors import quantise_posteriors
from annotator.jobs.runner import fail_job, fail_stale_jobs
from annotator.links import to_alignment
from annotator.models import (
    AlignerRun,
    Annotation,
    Assignment,
    GoldAlignment,
    Job,
    Project,
    SeedAlignment,
    SentencePair,
)
from annotator.projects.services.assignment import latest_seeds
from annotator.seeding.chunked import job_folder
from annotator.seeding.selectors import seed_result_summary
from annotator.seeding.services import maybe_start_auto_retrain, seed_project
from annotator.tasks import run_job_task
from gridalign.celery import app as celery_app
from tests.conftest import IN_CI

pytestmark = pytest.mark.django_db

PAIRS = 60
CHUNK = 25  # three chunks, the last one short


@pytest.fixture
def eager(settings, tmp_path, monkeypatch):
    """Chunks of CHUNK pairs (written 10 at a time, predicted 4 at a time), a private work
    folder, and Celery's eager mode."""
    from annotator.seeding import chunked_steps

    monkeypatch.setattr(chunked_steps, "WRITE_BATCH", 10)
    monkeypatch.setattr(chunked_steps, "PREDICT_BATCH", 4)
    settings.SEED_CHUNK_PAIRS = CHUNK
    settings.SEED_WORK_DIR = tmp_path / "seed-work"
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before


def made_up_pairs(project: Project, n: int, *, seed: int = 5) -> list[SentencePair]:
    """Pairs of made-up words (not English, so both paths seed with the HMM), each target the
    source reversed and upper-cased."""
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(40)]
    rows = []
    for k in range(n):
        source = rng.choices(vocab, k=rng.randint(3, 9))
        rows.append(SentencePair(project=project, external_id=str(k), position=k,
                                 source_tokens=source, target_tokens=[w.upper() for w in source[::-1]]))  # fmt: skip
    return SentencePair.objects.bulk_create(rows)


def run_seed_job(project: Project) -> Job:
    job = Job.objects.create(kind="seed", project=project, params={"use_gold": True})
    run_job_task(job.pk)  # the same code a worker runs; its canvas runs eagerly
    job.refresh_from_db()
    return job


def seeds_by_pair(run_id: int) -> dict[int, tuple]:
    rows = SeedAlignment.all_runs.filter(aligner_run_id=run_id)
    return {
        pair: (sorted(map(tuple, links)), bytes(post), unc)
        for pair, links, post, unc in rows.values_list("pair_id", "links", "posteriors", "uncertainty")
    }  # fmt: skip


@pytest.mark.parametrize("monolingual", [False, True])  # True: identity-lexicon chunks too
def test_the_chunked_job_writes_the_same_seeds_as_seeding_in_one_task(eager, monolingual):
    project = Project.objects.create(name="big", source_language="xx", target_language="yy",
                                     monolingual=monolingual)  # fmt: skip
    pairs = made_up_pairs(project, PAIRS)
    for pair in pairs[:2]:  # fewer than MIN_GOLD_PAIRS: the HMM seeds, the gold as counts
        n = len(pair.source_tokens)
        GoldAlignment.objects.create(
            pair=pair, origin="imported", links=[[i, n - 1 - i, "S"] for i in range(n)]
        )
    # the same chunking in one task: the chunks' counts are summed in the same order
    whole = seed_project(project=project, use_gold=True, config={"chunk_pairs": CHUNK})

    job = run_seed_job(project)

    assert job.status == "succeeded", job.error
    assert job.progress == 100
    assert job.result["align_chunks"] == 3 and job.result["chunk_pairs"] == CHUNK
    assert job.result["gold_pairs"] == whole["gold_pairs"] == 2
    chunked_run = AlignerRun.objects.get(pk=job.result["aligner_run"])
    assert chunked_run.published and chunked_run.job_id == job.pk
    assert chunked_run.config["chunked"] is True
    ours, theirs = seeds_by_pair(chunked_run.pk), seeds_by_pair(whole["aligner_run"])
    assert len(ours) == PAIRS
    assert ours == theirs  # links, posteriors and uncertainty, pair by pair
    assert job.result["links"] == whole["links"]
    assert not job_folder(job.pk).exists()  # the work folder is removed once published


def english_pairs(project: Project, n: int, *, seed: int = 7) -> list[SentencePair]:
    """Paraphrase-like English pairs: a sentence and the same with a word or two swapped for a
    synonym."""
    rng = random.Random(seed)
    subjects, verbs = ["the cat", "a dog", "the child", "my friend"], ["saw", "liked", "found"]
    synonyms = {"saw": "noticed", "liked": "enjoyed", "found": "discovered", "big": "large"}
    rows = []
    for k in range(n):
        source = f"{rng.choice(subjects)} {rng.choice(verbs)} the big house".split()
        target = [synonyms.get(w, w) if rng.random() < 0.5 else w for w in source]
        rows.append(SentencePair(project=project, external_id=str(k), position=k,
                                 source_tokens=source, target_tokens=target))  # fmt: skip
    return SentencePair.objects.bulk_create(rows)


def add_gold(pairs: list[SentencePair], *, reverse: bool) -> None:
    """Gold for ``pairs``: each word linked to its twin (the reversed one, when ``reverse``)."""
    for pair in pairs:
        n = len(pair.source_tokens)
        links = [[i, n - 1 - i if reverse else i, "S"] for i in range(n)]
        GoldAlignment.objects.create(pair=pair, origin="imported", links=links)


def assert_seeds_of(run: AlignerRun, model, pairs: list[SentencePair]) -> None:
    """The run's seeds are ``model``'s predictions, link for link and byte for byte."""
    alignments, matrices = model.predict([(p.source_tokens, p.target_tokens) for p in pairs])
    seeds = seeds_by_pair(run.pk)
    assert len(seeds) == len(pairs)
    for pair, alignment, matrix in zip(pairs, alignments, matrices, strict=True):
        links, posteriors, _ = seeds[pair.pk]
        assert links == sorted(map(tuple, alignment.to_links())), pair.external_id
        assert posteriors == bytes(quantise_posteriors(matrix)), pair.external_id


@pytest.mark.parametrize("gold_pairs", [0, 3])
def test_an_english_project_in_chunks_gets_the_one_task_model_over_the_same_hmm(eager, gold_pairs):
    """In chunks, an English project's seeds come from the model one task would train, over
    the unsupervised HMM of all its pairs: with no gold the built-in English model alone; with
    a few gold pairs the supervised model pooled with it. The same seeds, bit for bit, as the
    one task's model (its HMM trained with the same chunking)."""
    from alignment_core.aligner.builtin import load_builtin
    from alignment_core.aligner.config import AlignerConfig
    from alignment_core.aligner.installed import installed_resources
    from alignment_core.aligner.link_training import builtin_problem, train_seed_model

    project = Project.objects.create(name="english", source_language="en", target_language="en",
                                     monolingual=True)  # fmt: skip
    pairs = english_pairs(project, PAIRS)
    add_gold(pairs[:gold_pairs], reverse=False)
    usable = builtin_problem(load_builtin(), installed_resources()) is None
    assert usable or not IN_CI, "CI installs the seeding resources (make resources)"

    job = run_seed_job(project)

    assert job.status == "succeeded", job.error
    expected = ("supervised" if gold_pairs else "builtin") if usable else "hmm"
    assert job.result["model"] == expected
    assert job.result["gold_pairs"] == gold_pairs
    run = AlignerRun.objects.get(pk=job.result["aligner_run"])
    assert run.config["model_kind"] == expected and run.published
    sentences = [(p.source_tokens, p.target_tokens) for p in pairs]
    gold = {
        n: to_alignment(g.links)
        for n, g in enumerate(GoldAlignment.objects.order_by("pair__position"))
    }
    cfg = AlignerConfig(identity_lexicon=True, chunk_pairs=CHUNK)
    one_task = train_seed_model(sentences, gold if usable else {}, config=cfg,
                                resources=installed_resources(),
                                builtin=load_builtin() if usable else None)  # fmt: skip
    assert one_task.kind == expected
    assert_seeds_of(run, one_task, pairs)
    summary = seed_result_summary(job.result)
    if expected == "builtin":
        assert "built-in English paraphrase model" in summary and "in chunks" in summary, summary
    if expected == "supervised":
        assert job.result["builtin_weight"] == one_task.info["builtin_weight"]
        assert job.result["cv"]["edits_per_pair"] == pytest.approx(
            one_task.info["cv"]["edits_per_pair"], abs=1e-4)  # fmt: skip
        assert f"trained on {gold_pairs} gold pairs" in summary, summary
        assert "Pooled with the built-in English model" in summary, summary
    # the gold trains the seeds in chunks too: new gold starts an automatic retrain
    project.auto_retrain_every = 1
    project.save(update_fields=["auto_retrain_every"])
    add_gold(pairs[-1:], reverse=False)
    assert maybe_start_auto_retrain(project=project) is not None


def test_a_small_project_keeps_the_one_task_path(eager):
    project = Project.objects.create(name="small", source_language="xx", target_language="yy")
    made_up_pairs(project, CHUNK)  # not more than SEED_CHUNK_PAIRS
    job = run_seed_job(project)
    assert job.status == "succeeded", job.error
    assert "chunks" not in job.result
    assert not AlignerRun.objects.get(pk=job.result["aligner_run"]).config.get("chunked")


def test_publishing_reseeds_unstarted_assignments_and_keeps_started_ones(eager, make_user):
    project = Project.objects.create(name="assigned", source_language="xx", target_language="yy")
    pairs = made_up_pairs(project, PAIRS)
    first = seed_project(project=project, use_gold=False)
    old = latest_seeds(pair_ids=[p.pk for p in pairs[:2]])
    ann = make_user("ann")
    waiting = Assignment.objects.create(pair=pairs[0], annotator=ann, seed_id=old[pairs[0].pk])
    started = Assignment.objects.create(pair=pairs[1], annotator=ann, seed_id=old[pairs[1].pk])
    Annotation.objects.create(assignment=started, links=[])

    job = run_seed_job(project)

    assert job.status == "succeeded", job.error
    assert job.result["assignments_reseeded"] == 1 and job.result["assignments_kept"] == 1
    waiting.refresh_from_db()
    started.refresh_from_db()
    assert waiting.seed.aligner_run_id == job.result["aligner_run"] != first["aligner_run"]
    assert started.seed_id == old[pairs[1].pk]


def unpublished_run(project: Project, job: Job, pairs: list[SentencePair]) -> AlignerRun:
    """What a chunked seeding has written halfway: its run, unpublished, with some seeds."""
    run = AlignerRun.objects.create(project=project, job=job, published=False)
    SeedAlignment.all_runs.bulk_create(
        SeedAlignment(pair=p, aligner_run=run, links=[[0, 0, "S"]]) for p in pairs
    )
    return run


def test_an_unpublished_run_is_seen_by_no_reader(eager, client, django_user_model):
    project = Project.objects.create(name="hidden", source_language="xx", target_language="yy")
    pairs = made_up_pairs(project, 5)
    done = seed_project(project=project, use_gold=False)
    job = Job.objects.create(kind="seed", project=project, status=Job.Status.RUNNING)
    unpublished_run(project, job, pairs)

    assert set(SeedAlignment.objects.values_list("aligner_run_id", flat=True)) == {
        done["aligner_run"]
    }
    assert {SeedAlignment.objects.get(pk=s).aligner_run_id
            for s in latest_seeds(pair_ids=[p.pk for p in pairs]).values()} == {done["aligner_run"]}  # fmt: skip
    assert pairs[0].seeds.get().aligner_run_id == done["aligner_run"]


@pytest.mark.parametrize("how", ["fail_job", "stale_sweep"])
def test_failing_a_chunked_job_deletes_its_unpublished_run_seeds_and_folder(eager, how):
    project = Project.objects.create(name="failed", source_language="xx", target_language="yy")
    pairs = made_up_pairs(project, 5)
    published = seed_project(project=project, use_gold=False)
    job = Job.objects.create(kind="seed", project=project, status=Job.Status.RUNNING,
                             started_at=timezone.now(), heartbeat_at=timezone.now())  # fmt: skip
    run = unpublished_run(project, job, pairs[:3])
    job_folder(job.pk).mkdir(parents=True)
    (job_folder(job.pk) / "counts").write_bytes(b"x")

    if how == "fail_job":
        assert fail_job(job_id=job.pk, message="Failed: boom", error="boom")
    else:
        later = timezone.now() + timedelta(seconds=settings.JOB_STALE_AFTER + 5)
        assert fail_stale_jobs(now=later) == 1

    assert not AlignerRun.objects.filter(pk=run.pk).exists()
    assert not SeedAlignment.all_runs.filter(aligner_run_id=run.pk).exists()
    assert not job_folder(job.pk).exists()
    # the published run of an earlier seeding is untouched
    assert SeedAlignment.objects.filter(aligner_run_id=published["aligner_run"]).count() == 5


def test_enough_gold_seeds_in_chunks_with_the_supervised_model_one_task_trains(eager):
    """Not English, with MIN_GOLD_PAIRS gold pairs: the supervised link model, fitted once
    over the workers' HMM, seeds every chunk; the seeds, figures and summary are the one
    task's (its HMM trained with the same chunking)."""
    from alignment_core.aligner.link_config import MIN_GOLD_PAIRS

    project = Project.objects.create(name="gold", source_language="xx", target_language="yy")
    pairs = made_up_pairs(project, PAIRS)
    add_gold(pairs[:MIN_GOLD_PAIRS], reverse=True)
    whole = seed_project(project=project, use_gold=True, config={"chunk_pairs": CHUNK})

    job = run_seed_job(project)

    assert job.status == "succeeded", job.error
    assert whole["model"] == job.result["model"] == "supervised"
    assert job.result["gold_pairs"] == MIN_GOLD_PAIRS and job.result["sample_pairs"] == PAIRS
    assert seeds_by_pair(job.result["aligner_run"]) == seeds_by_pair(whole["aligner_run"])
    for key in ("links", "cv", "cv_hmm", "threshold", "pseudo_gold_pairs", "wordnet", "vectors"):
        assert job.result[key] == whole[key], key
    run = AlignerRun.objects.get(pk=job.result["aligner_run"])
    assert (
        run.config["link_model"]
        == AlignerRun.objects.get(pk=whole["aligner_run"]).config["link_model"]
    )
    assert "supervised link model on 20 gold pairs" in run.note
    summary = seed_result_summary(job.result)
    assert f"trained on {MIN_GOLD_PAIRS} gold pairs" in summary and "in chunks" in summary
    assert not job_folder(job.pk).exists()


def test_a_project_larger_than_the_sample_trains_the_gold_hmms_on_the_sample(eager, settings):
    """SEED_SAMPLE_PAIRS below the project's size: the fit reads every gold pair and pairs
    spread over the rest, and its second round counts its own links on the sample's other
    pairs only; every pair still gets its seed."""
    from alignment_core.aligner.link_config import MIN_GOLD_PAIRS

    settings.SEED_SAMPLE_PAIRS = 30
    project = Project.objects.create(name="sampled", source_language="xx", target_language="yy")
    pairs = made_up_pairs(project, PAIRS)
    add_gold(pairs[5 : 5 + MIN_GOLD_PAIRS], reverse=True)

    job = run_seed_job(project)

    assert job.status == "succeeded", job.error
    assert job.result["model"] == "supervised"
    sample = job.result["sample_pairs"]
    assert MIN_GOLD_PAIRS < sample <= 30
    assert job.result["pseudo_gold_pairs"] == sample - MIN_GOLD_PAIRS
    assert len(seeds_by_pair(job.result["aligner_run"])) == PAIRS
    assert f"a sample of {sample}" in seed_result_summary(job.result)


@pytest.mark.parametrize(
    ("n_pairs", "gold", "size"),
    [(10, [3], 10), (100, [], 10), (100, [0, 50, 99], 10), (1000, list(range(5, 25)), 12)],
)
def test_the_sample_holds_every_gold_pair_and_pairs_spread_over_the_project(n_pairs, gold, size):
    from annotator.seeding.chunked_steps import sample_indices

    sample = sample_indices(n_pairs, gold, size)

    assert list(sample) == sorted(set(sample.tolist())) and sample.min() >= 0
    assert sample.max() < n_pairs
    assert set(gold) <= set(sample.tolist())
    if n_pairs <= size:
        assert list(sample) == list(range(n_pairs))
    else:
        assert len(sample) <= max(size, len(gold))
        if len(gold) < size:  # the others spread evenly from the first pair to the last
            step = (n_pairs - 1) / max(size - len(gold) - 1, 1)
            assert sample[0] == 0 and sample[-1] == n_pairs - 1
            assert np.diff(sample).max() <= np.ceil(step)
