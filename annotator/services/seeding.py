"""Seeding a project with the aligner's links (issue 4 §6).

Trains the GIZA-like aligner on all the project's pairs, with the gold collected so far as
observed counts, and writes one SeedAlignment per pair under a new AlignerRun. Safe to re-run:
every run is a new AlignerRun written in one transaction, and only assignments nobody has
started are pointed at the new seeds — an annotation in progress keeps the seed it began from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from django.db import transaction

from alignment_core.aligner import AlignerConfig, train
from annotator.links import to_alignment
from annotator.models import AlignerRun, Assignment, GoldAlignment, Job, Project, SeedAlignment
from annotator.services.jobs import start_job

Progress = Callable[[float, str], None]

# Share of the progress bar given to training; the rest is aligning and writing.
_TRAIN_SHARE = 85.0


def seed_project(
    *,
    project: Project,
    use_gold: bool = True,
    job: Job | None = None,
    config: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Train on the project's pairs and write a new set of seeds. Returns a JSON-able summary."""
    report = progress or (lambda percent, message: None)
    pairs = list(
        project.pairs.order_by("position", "id").values_list("id", "source_tokens", "target_tokens")
    )
    if not pairs:
        raise ValueError(f"project {project.name!r} has no sentence pairs to align")
    index_of = {pair_id: n for n, (pair_id, _, _) in enumerate(pairs)}
    sentences = [(src, tgt) for _, src, tgt in pairs]

    gold = {}
    if use_gold:
        gold_rows = GoldAlignment.objects.filter(pair__project=project, pair__is_trial=False)
        gold = {index_of[g.pair_id]: to_alignment(g.links) for g in gold_rows}

    options = {"identity_lexicon": project.monolingual, **(config or {})}
    cfg = AlignerConfig(**options)
    report(1, f"training on {len(pairs)} pairs ({len(gold)} hand-aligned)")
    model = train(
        sentences,
        config=cfg,
        gold=gold or None,
        progress=lambda stage, fraction: report(1 + (_TRAIN_SHARE - 1) * fraction, stage),
    )
    report(_TRAIN_SHARE, "aligning")
    alignments = model.align(sentences)
    report(_TRAIN_SHARE + 5, "writing seeds")

    with transaction.atomic():
        run = AlignerRun.objects.create(
            project=project,
            kind=AlignerRun.Kind.ALIGNER,
            job=job,
            config=dataclasses.asdict(cfg),
            gold_pairs=len(gold),
            note="retrained with gold" if gold else "unsupervised",
        )
        seeds = SeedAlignment.objects.bulk_create(
            [
                SeedAlignment(pair_id=pair_id, aligner_run=run, links=alignment.to_links())
                for (pair_id, _, _), alignment in zip(pairs, alignments, strict=True)
            ],
            batch_size=2000,
        )
        seed_of_pair = {seed.pair_id: seed for seed in seeds}
        unstarted = list(
            Assignment.objects.select_for_update(of=("self",))
            .filter(
                pair__project=project, status=Assignment.Status.ASSIGNED, annotation__isnull=True
            )
            .only("id", "pair_id", "seed_id")
        )
        for assignment in unstarted:
            assignment.seed = seed_of_pair[assignment.pair_id]
        Assignment.objects.bulk_update(unstarted, ["seed"], batch_size=2000)
        started = Assignment.objects.filter(pair__project=project).count() - len(unstarted)

    links = sum(len(a) for a in alignments)
    report(100, f"Wrote {len(pairs)} seeds ({links} links); {len(unstarted)} assignments reseeded")
    return {
        "aligner_run": run.pk,
        "pairs": len(pairs),
        "gold_pairs": len(gold),
        "links": links,
        "assignments_reseeded": len(unstarted),
        "assignments_kept": started,
    }


def start_seed_job(*, project: Project, user: Any, use_gold: bool) -> Job:
    """Queue "Seed with aligner" (``use_gold=False``) or "Retrain with gold" (``True``)."""
    return start_job(kind="seed", project=project, user=user, params={"use_gold": use_gold})


def seed_work(job: Job, reporter: Any) -> dict[str, Any]:
    """The job's work: ``run_job`` calls this inside the worker."""
    if job.project is None:
        raise ValueError("a seed job needs a project")
    return seed_project(
        project=job.project,
        use_gold=bool(job.params.get("use_gold", True)),
        job=job,
        progress=reporter.progress,
    )
