"""Seeding a project with the aligner's links (issue 4 §6) and their posteriors (issue 7 §6).

Trains the GIZA-like aligner on all the project's pairs, with the gold collected so far as
observed counts, and writes one SeedAlignment per pair under a new AlignerRun. Safe to re-run:
every run is a new AlignerRun written in one transaction, and only assignments nobody has
started are pointed at the new seeds — an annotation in progress keeps the seed it began from.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from django.db import transaction

from alignment_core.aligner import AlignerConfig, train
from alignment_core.progress import Progress, part, silent
from annotator.links import to_alignment
from annotator.models import AlignerRun, Assignment, GoldAlignment, Job, Project, SeedAlignment
from annotator.services.jobs import start_job

# Share of the progress bar given to training; the rest is aligning and writing.
_TRAIN_SHARE = 0.85
# Pairs aligned (and their posteriors held in memory) at a time.
SEED_CHUNK = 1000
POSTERIOR_SCALE = 255


def quantise_posteriors(matrix: np.ndarray) -> bytes:
    """An N×M matrix of link posteriors in [0, 1] as stored: one byte a cell, round(255·p),
    row-major (cell (i, j) at byte i·M + j)."""
    scaled = np.rint(np.clip(np.asarray(matrix, dtype=np.float64), 0.0, 1.0) * POSTERIOR_SCALE)
    return np.ascontiguousarray(scaled, dtype=np.uint8).tobytes()


def dequantise_posteriors(raw: bytes, rows: int, cols: int) -> np.ndarray:
    """The stored bytes back as an N×M float matrix (each cell within 1/510 of the original)."""
    return np.frombuffer(bytes(raw), dtype=np.uint8).reshape(rows, cols) / POSTERIOR_SCALE


def seed_project(
    *,
    project: Project,
    use_gold: bool = True,
    job: Job | None = None,
    config: dict[str, Any] | None = None,
    progress: Progress | None = None,
    chunk_size: int = SEED_CHUNK,
) -> dict[str, Any]:
    """Train on the project's pairs and write a new set of seeds, each with its posterior
    matrix (:func:`quantise_posteriors`). Pairs are aligned ``chunk_size`` at a time, so memory
    stays bounded however large the project. Returns a JSON-able summary."""
    report = progress or silent
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
    report(0.01, f"training on {len(pairs)} pairs ({len(gold)} hand-aligned)")
    model = train(
        sentences,
        config=cfg,
        gold=gold or None,
        progress=part(report, 0.01, _TRAIN_SHARE),
    )
    report(_TRAIN_SHARE, "aligning")

    with transaction.atomic():
        run = AlignerRun.objects.create(
            project=project,
            kind=AlignerRun.Kind.ALIGNER,
            job=job,
            config=dataclasses.asdict(cfg),
            gold_pairs=len(gold),
            note="retrained with gold" if gold else "unsupervised",
        )
        # Align and write in chunks of pairs: a chunk's posterior matrices (floats) are the
        # big thing, and only one chunk of them is alive at a time.
        seed_of_pair: dict[int, int] = {}
        links = 0
        for start in range(0, len(pairs), chunk_size):
            chunk = sentences[start : start + chunk_size]
            alignments = model.align(chunk)
            matrices = model.posteriors(chunk)
            seeds = SeedAlignment.objects.bulk_create(
                [
                    SeedAlignment(
                        pair_id=pair_id,
                        aligner_run=run,
                        links=alignment.to_links(),
                        posteriors=quantise_posteriors(matrix),
                    )
                    for (pair_id, _, _), alignment, matrix in zip(
                        pairs[start : start + chunk_size], alignments, matrices, strict=True
                    )
                ],
                batch_size=2000,
            )
            seed_of_pair.update((seed.pair_id, seed.pk) for seed in seeds)
            links += sum(len(a) for a in alignments)
            done = min(start + chunk_size, len(pairs))
            report(
                _TRAIN_SHARE + (0.99 - _TRAIN_SHARE) * done / len(pairs),
                f"aligned and wrote {done} of {len(pairs)} pairs",
            )
        unstarted = list(
            Assignment.objects.select_for_update(of=("self",))
            .filter(
                pair__project=project, status=Assignment.Status.ASSIGNED, annotation__isnull=True
            )
            .only("id", "pair_id", "seed_id")
        )
        for assignment in unstarted:
            assignment.seed_id = seed_of_pair[assignment.pair_id]
        Assignment.objects.bulk_update(unstarted, ["seed"], batch_size=2000)
        started = Assignment.objects.filter(pair__project=project).count() - len(unstarted)

    report(1.0, f"Wrote {len(pairs)} seeds ({links} links); {len(unstarted)} assignments reseeded")
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
        progress=reporter.as_progress(),
    )
