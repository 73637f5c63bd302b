"""Seeding a project with the aligner's links (issue 4 §6), their posteriors (issue 7 §6), and
seeds that learn from the annotators (issue 11), and the built-in English model (issue 34).

Trains on all the project's pairs and writes one SeedAlignment per pair under a new AlignerRun.
With at least ``MIN_GOLD_PAIRS`` gold pairs (and ``use_gold``) the seeds come from the
supervised link model (``alignment_core.aligner.link_model``: the HMM's evidence read by a
classifier trained on the project's gold; sure and possible links); with less, from the HMM
alone, the gold as observed counts — or, for an English project (declared, else told from its
text), from the built-in English paraphrase model (``alignment_core.aligner.builtin``), which
also pools with the supervised model from the second gold pair (its weight chosen by
cross-validation on the gold: the result's ``builtin_weight`` and ``builtin_weight_rule``). A project that is not English seeds
as before and its result says why the built-in model was not used. The job result names the model used and, for the
supervised one, its cross-validated figures on the project's own gold. Each seed stores its
cell probabilities and its ``uncertainty`` (summed cell entropy per token; the
uncertainty-first queue orders by it).

Safe to re-run: every run is a new AlignerRun written in one transaction, and only assignments
nobody has started are pointed at the new seeds — an annotation in progress keeps the seed it
began from. ``maybe_start_auto_retrain`` (called once new gold is committed) starts a retrain
after every ``Project.auto_retrain_every`` newly gold pairs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from django.db import transaction

# Only the light parts of the aligner at import time: this module is loaded by every web
# process (gold saves may start a retrain), which never trains or aligns; the model, its
# numba kernels and scikit-learn are imported in the worker, inside the functions that run
# them (issue 30: an idle web process carried ~90 MB of them).
from alignment_core.aligner.link_config import MIN_GOLD_PAIRS, LinkModelConfig
from alignment_core.aligner.posteriors import quantise_posteriors
from alignment_core.progress import Progress, part, silent
from annotator.jobs.services import start_job
from annotator.links import to_alignment
from annotator.models import (
    AlignerRun,
    Assignment,
    GoldAlignment,
    Job,
    Project,
    SeedAlignment,
)
from annotator.seeding.chunked import chunked
from annotator.seeding.model_summary import model_evidence, model_figures

# Share of the progress bar given to training; the rest is aligning and writing.
_TRAIN_SHARE = 0.85
# Pairs aligned (and their posteriors held in memory) at a time.
SEED_CHUNK = 1000


def seed_project(
    *,
    project: Project,
    use_gold: bool = True,
    job: Job | None = None,
    config: dict[str, Any] | None = None,
    progress: Progress | None = None,
    chunk_size: int = SEED_CHUNK,
    min_gold_pairs: int = MIN_GOLD_PAIRS,
    on_written: Callable[[dict[str, Any], str], None] | None = None,
) -> dict[str, Any]:
    """Train on the project's pairs and write a new set of seeds, each with its cell
    probabilities (:func:`quantise_posteriors`) and uncertainty. Pairs are aligned
    ``chunk_size`` at a time, so memory stays bounded however large the project. With at least
    ``min_gold_pairs`` gold pairs the supervised link model seeds, else the HMM. Returns a
    JSON-able summary naming the model used. ``on_written(summary, message)`` is called inside
    the transaction that writes the seeds, as its last step (a job records its success
    there: ``JobReporter.record_success``)."""
    report = progress or silent
    pairs = _pair_rows(project)
    if not pairs:
        raise ValueError(f"project {project.name!r} has no sentence pairs to align")
    gold = _gold_by_index(project, pairs) if use_gold else {}
    lcfg = LinkModelConfig(min_gold_pairs=min_gold_pairs)
    cfg, model, evidence = _train(project, pairs, gold, config, lcfg, report)
    note = _model_note(model, len(gold))

    with transaction.atomic():
        run = AlignerRun.objects.create(
            project=project,
            kind=AlignerRun.Kind.ALIGNER,
            job=job,
            config={
                **dataclasses.asdict(cfg),
                "model_kind": model.kind,
                "link_model": lcfg.to_dict() if model.kind == "supervised" else None,
                **evidence,
            },
            gold_pairs=len(gold),
            note=note,
        )
        seed_of_pair, links = _write_seeds(run, model, pairs, chunk_size, report)
        reseeded, kept = _reseed_unstarted(project, seed_of_pair)
        counts = {"pairs": len(pairs), "gold_pairs": len(gold), "links": links}
        counts.update(assignments_reseeded=reseeded, assignments_kept=kept)
        summary = _seed_summary(run=run, model=model, note=note, counts=counts, evidence=evidence)
        message = f"Wrote {len(pairs)} seeds ({links} links); {reseeded} assignments reseeded"
        if on_written is not None:
            on_written(summary, message)

    report(1.0, message)
    return summary


def _train(
    project: Project,
    pairs: list[tuple],
    gold: dict[int, Any],
    config: dict[str, Any] | None,
    lcfg: LinkModelConfig,
    report: Progress,
) -> tuple[Any, Any, dict[str, Any]]:
    """Train the seed model on the pairs (no transaction is open): (aligner config, model,
    its evidence figures, with what the job says of the built-in English model). The aligner
    is imported here, in the worker only."""
    from alignment_core.aligner.config import AlignerConfig
    from alignment_core.aligner.link_model import installed_resources
    from alignment_core.aligner.seed_default import train_default_seed_model

    cfg = AlignerConfig(**{"identity_lexicon": project.monolingual, **(config or {})})
    report(0.01, f"training on {len(pairs)} pairs ({len(gold)} hand-aligned)")
    sentences = [(src, tgt) for _, src, tgt in pairs]
    # the CLI's ``align`` calls the same function: one rule for the default seed model
    model, not_english = train_default_seed_model(
        sentences, gold, config=cfg, link_config=lcfg, resources=installed_resources(),
        progress=part(report, 0.01, _TRAIN_SHARE),
        source_language=project.source_language, target_language=project.target_language,
    )  # fmt: skip
    report(_TRAIN_SHARE, "aligning")
    return cfg, model, model_evidence(model, not_english and f"the project is {not_english}")


def _pair_rows(project: Project) -> list[tuple]:
    """(pk, source tokens, target tokens) of the project's pairs, in order."""
    ordered = project.pairs.order_by("position", "id")
    return list(ordered.values_list("id", "source_tokens", "target_tokens"))


def _model_note(model: Any, n_gold: int) -> str:
    """The aligner run's note: which model seeded."""
    if model.kind == "supervised":
        return f"supervised link model on {n_gold} gold pairs"
    if model.kind == "builtin":
        return f"built-in English model {model.info['builtin_version']}"
    return "retrained with gold" if n_gold else "unsupervised"


def _gold_by_index(project: Project, pairs: list[tuple]) -> dict[int, Any]:
    """The project's non-trial gold as alignments, keyed by the pair's index in ``pairs``."""
    index_of = {pair_id: n for n, (pair_id, _, _) in enumerate(pairs)}
    gold_rows = GoldAlignment.objects.filter(pair__project=project, pair__is_trial=False)
    return {index_of[g.pair_id]: to_alignment(g.links) for g in gold_rows}


def _write_seeds(
    run: AlignerRun, model: Any, pairs: list[tuple], chunk_size: int, report: Progress
) -> tuple[dict[int, int], int]:
    """Align and write the seeds in chunks of pairs: a chunk's posterior matrices (floats) are
    the big thing, and only one chunk of them is alive at a time. Returns each pair's new seed
    id and the number of links written."""
    from alignment_core.aligner.seed_model import uncertainty

    seed_of_pair: dict[int, int] = {}
    links = 0
    for start in range(0, len(pairs), chunk_size):
        chunk = pairs[start : start + chunk_size]
        alignments, matrices = model.predict([(src, tgt) for _, src, tgt in chunk])
        seeds = SeedAlignment.objects.bulk_create(
            [
                SeedAlignment(
                    pair_id=pair_id,
                    aligner_run=run,
                    links=alignment.to_links(),
                    posteriors=quantise_posteriors(matrix),
                    uncertainty=uncertainty(matrix),
                )
                for (pair_id, _, _), alignment, matrix in zip(
                    chunk, alignments, matrices, strict=True
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
    return seed_of_pair, links


def _reseed_unstarted(project: Project, seed_of_pair: dict[int, int]) -> tuple[int, int]:
    """Point every assignment nobody started at its pair's new seed; the started ones keep the
    seed they began from. Returns (reseeded, kept)."""
    unstarted = list(
        Assignment.objects.select_for_update(of=("self",))
        .filter(pair__project=project, status=Assignment.Status.ASSIGNED, annotation__isnull=True)
        .only("id", "pair_id", "seed_id")
    )
    for assignment in unstarted:
        assignment.seed_id = seed_of_pair[assignment.pair_id]
    Assignment.objects.bulk_update(unstarted, ["seed"], batch_size=2000)
    started = Assignment.objects.filter(pair__project=project).count() - len(unstarted)
    return len(unstarted), started


def _seed_summary(
    *,
    run: AlignerRun,
    model: Any,
    note: str,
    counts: dict[str, int],
    evidence: dict[str, Any],
) -> dict[str, Any]:
    """The JSON-able result of a seeding run (the job's result, the page's summary)."""
    return {
        "aligner_run": run.pk,
        **counts,
        "model": model.kind,
        "model_note": model.info.get("reason") or note,
        **model_figures(model),
        # WordNet, GloVe's word vectors, the Moby thesaurus and the Penn Treebank tag lexicon
        # as features: each one's name, "off" or not installed
        **evidence,
    }


def start_seed_job(*, project: Project, user: Any, use_gold: bool) -> Job:
    """Queue "Seed with aligner" (``use_gold=False``) or "Retrain with gold" (``True``)."""
    return start_job(kind="seed", project=project, user=user, params={"use_gold": use_gold})


def gold_pair_count(*, project: Project) -> int:
    """The project's non-trial gold pairs (what the seeds train on)."""
    return GoldAlignment.objects.filter(pair__project=project, pair__is_trial=False).count()


def maybe_start_auto_retrain(*, project: Project) -> Job | None:
    """Start "Retrain with gold" when ``project.auto_retrain_every`` (N > 0) gold pairs have
    become gold since the latest aligner run trained (counted from 0 if the project was never
    seeded), unless a seed job of the project is already queued or running. Called once new
    gold is committed; returns the job started, or None. At most one job: the project row is
    locked while deciding, so concurrent gold writes cannot both start one."""
    with transaction.atomic():
        locked = Project.objects.select_for_update().get(pk=project.pk)
        every = locked.auto_retrain_every
        if not every:
            return None
        busy = Job.objects.filter(
            project=locked, kind="seed", status__in=[Job.Status.QUEUED, Job.Status.RUNNING]
        ).exists()
        if busy:
            return None
        gold_then = (
            AlignerRun.objects.filter(project=locked, kind=AlignerRun.Kind.ALIGNER, published=True)
            .order_by("-created_at", "-pk")
            .values_list("gold_pairs", flat=True)
            .first()
        ) or 0
        if gold_pair_count(project=locked) - gold_then < every:
            return None
        return start_seed_job(project=locked, user=None, use_gold=True)


def seed_work(job: Job, reporter: Any) -> dict[str, Any]:
    """The job's work: ``run_job`` calls this inside the worker."""
    if job.project is None:
        raise ValueError("a seed job needs a project")
    n_pairs = job.project.pairs.count()
    if chunked(n_pairs):  # a big project: its EM spread over the workers
        from annotator.seeding.chunked_steps import start_chunked_seed

        return start_chunked_seed(job, reporter, n_pairs=n_pairs)
    return seed_project(
        project=job.project,
        use_gold=bool(job.params.get("use_gold", True)),
        job=job,
        progress=reporter.as_progress(),
        on_written=reporter.record_success,  # success commits with the seeds (finding 8)
    )
