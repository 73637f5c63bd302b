"""The seed job and the built-in English model (issue 34): an English project with too little
gold seeds with it, deterministically, and its result names the model and its version; a
bilingual project seeds with the HMM exactly as before and says why."""

from __future__ import annotations

import pytest

from alignment_core.aligner import AlignerConfig, train
from alignment_core.aligner.builtin import BUILTIN_VERSION
from annotator.models import AlignerRun, Job, Project, SeedAlignment, SentencePair
from annotator.seeding.selectors import seed_result_summary
from annotator.seeding.services import seed_project
from annotator.tasks import run_job_task as seed_task

pytestmark = pytest.mark.django_db

GERMAN_ENGLISH = [
    ("die Katze saß auf der Matte", "the cat sat on the mat"),
    ("ein Hund rannte im Park", "a dog ran in the park"),
    ("der Mann kaufte ein neues Auto", "the man bought a new car"),
    ("sie liest jeden Tag die Zeitung", "she reads the paper every day"),
    ("die Kinder spielten im Garten", "the children played in the garden"),
    ("die Regierung erhöhte die Steuern", "the government raised taxes"),
]


def seeds_of(run_id: int) -> dict[int, tuple]:
    return {
        s.pair_id: (s.links, bytes(s.posteriors), s.uncertainty)
        for s in SeedAlignment.objects.filter(aligner_run_id=run_id)
    }


def test_an_english_project_seeds_with_the_builtin_model_the_same_way_twice(project, corpus):
    first = seed_project(project=project, use_gold=False)
    second = seed_project(project=project, use_gold=False)
    assert first["model"] == "builtin" and first["builtin_version"] == BUILTIN_VERSION
    assert "built-in English model en-paraphrase-1 seeds" in first["model_note"]
    assert "builtin_not_used" not in first
    run = AlignerRun.objects.get(pk=first["aligner_run"])
    assert (
        run.config["model_kind"] == "builtin" and run.config["builtin_version"] == BUILTIN_VERSION
    )
    a, b = seeds_of(first["aligner_run"]), seeds_of(second["aligner_run"])
    assert len(a) == len(corpus)
    assert [a[p.pk] for p in corpus] == [b[p.pk] for p in corpus]  # bit for bit
    # "the man bought a new car" / "the man purchased a new car": bought→purchased
    assert [2, 2, "S"] in a[corpus[2].pk][0]
    summary = seed_result_summary(first)
    assert "built-in English paraphrase model en-paraphrase-1" in summary


def test_the_seed_job_records_the_builtin_version_in_its_result(project, corpus, lead):
    job = Job.objects.create(kind="seed", project=project, created_by=lead,
                             params={"use_gold": False})  # fmt: skip
    seed_task(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert job.result["model"] == "builtin" and job.result["builtin_version"] == BUILTIN_VERSION


@pytest.fixture
def bilingual(lead):
    project = Project.objects.create(name="German-English", monolingual=False)
    pairs = [
        SentencePair.objects.create(
            project=project,
            external_id=f"p{n}",
            position=n,
            source_tokens=s.split(),
            target_tokens=t.split(),
        )  # fmt: skip
        for n, (s, t) in enumerate(GERMAN_ENGLISH)
    ]
    return project, pairs


def test_a_bilingual_project_seeds_with_the_hmm_exactly_as_before(bilingual):
    project, pairs = bilingual
    result = seed_project(project=project, use_gold=False)
    assert result["model"] == "hmm" and "builtin_version" not in result
    assert "the project is not English (English function words" in result["builtin_not_used"]
    assert "not used" in seed_result_summary(result)
    # the same seeds as the HMM alone gives, trained as before: nothing English reached them
    sentences = [(p.source_tokens, p.target_tokens) for p in pairs]
    hmm = train(sentences, config=AlignerConfig(identity_lexicon=False))
    stored = seeds_of(result["aligner_run"])
    for pair, alignment in zip(pairs, hmm.align(sentences), strict=True):
        assert stored[pair.pk][0] == alignment.to_links()
    run = AlignerRun.objects.get(pk=result["aligner_run"])
    assert run.config["model_kind"] == "hmm" and run.config.get("wordnet") is None
