"""The tasks' work of a chunked seeding (``annotator.seeding.chunked`` has the design): the plan
the seed job runs, then each E-step chunk, M-step, the fit, each align chunk and the publish.

What seeds is decided as in one task (``seed_default``): with enough gold, the supervised link
model (pooled with the built-in English model on English pairs); with too little, the built-in
model on English pairs, else the HMM with the gold as counts. The models over the HMM read the
*unsupervised* HMM trained over the workers and the corpus's word counts. The supervised model
is fitted once, by the fit task, on a sample (:func:`sample_indices`: every gold pair and pairs
spread evenly, ``SEED_SAMPLE_PAIRS`` in all; the whole project when it is that small): the sample
trains what reads the gold beyond its own cells, the HMMs with the gold as counts and the second
round on the model's own links. Each align chunk then reads the fitted model from the job's
folder (``seed_model_files``) and predicts its pairs a batch at a time. A project no larger than
the sample gets the seeds one task gives with the same chunking, bit for bit.

Every function here takes ids, runs inside :func:`unit` (is the job still running? how many
times was this unit started? the heartbeat; any error fails the job, which discards what it
wrote) and is idempotent. The aligner is imported inside them: in the worker only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import json
import logging
import shutil
from collections.abc import Iterator
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import OuterRef, Subquery

from alignment_core.aligner.posteriors import quantise_posteriors
from annotator.jobs.runner import JobReporter, error_text, fail_job, heartbeat_of, succeed_job
from annotator.links import to_alignment
from annotator.models import AlignerRun, Assignment, Job, Project, SeedAlignment
from annotator.seeding.chunked import (
    Plan,
    count_attempt,
    job_folder,
    mark_done,
    new_plan,
    pair_token_rows,
    read_plan,
    retried_units,
    running,
    save_plan,
    say,
    seeding_canvas,
    write_atomically,
)
from annotator.seeding.model_summary import model_evidence, model_figures

logger = logging.getLogger(__name__)


class ChunkFailed(Exception):
    """A unit of a chunked seeding could not be done; its job is failed with this message."""


@contextlib.contextmanager
def unit(job_id: int, what: str) -> Iterator[bool]:
    """Run one unit (``estep-2-5``, ``align-7``...) of job ``job_id``: yields False when the job
    is no longer running (failed meanwhile: the unit does nothing). Counts the unit's starts: a
    unit started SEED_TASK_MAX_ATTEMPTS times (its worker died each time) fails the job, as
    does any exception (re-raised, so Celery records it and the chord stops)."""
    if not running(job_id):
        yield False
        return
    attempts = count_attempt(job_id, what)
    with heartbeat_of(job_id):
        try:
            if attempts > settings.SEED_TASK_MAX_ATTEMPTS:
                raise ChunkFailed(
                    f"{what} was started {attempts} times: its worker died each time "
                    "(killed, or out of memory?)"
                )
            yield True
        except Exception as exc:
            logger.exception("chunked seeding job %s: %s failed", job_id, what)
            fail_job(job_id=job_id, message=f"Failed: {type(exc).__name__}: {exc}",
                     error=error_text(exc))  # fmt: skip
            raise


# --- the plan (the seed job's own task) -------------------------------------------------------


def start_chunked_seed(job: Job, reporter: JobReporter, *, n_pairs: int) -> dict[str, Any]:
    """Write the workspace and the plan, create the unpublished run, send the canvas, and hand
    the job off to it. Returns what the job says while its chunks run."""
    from alignment_core.aligner.workspace import Workspace

    project = job.project
    folder = job_folder(job.pk)
    folder.mkdir(parents=True, exist_ok=True)
    cfg = aligner_config(project)
    gold = gold_links_by_index(project) if job.params.get("use_gold", True) else {}
    builtin, why_not = chunked_builtin(project)
    kind = model_kind(len(gold), builtin)
    reporter.progress(0.5, f"writing {n_pairs} pairs into the training workspace")
    tokens = ((src, tgt) for _, src, tgt in pair_token_rows(project.pk))
    counts: dict[str, int] = {}
    trained_gold = {n: to_alignment(links) for n, links in gold.items()}
    if kind != "hmm":  # it reads the unsupervised HMM (no gold) and the word counts
        tokens, trained_gold = _counted(tokens, counts), {}
    ws = Workspace.create(folder / "workspace", tokens, cfg, trained_gold, cfg.chunk_pairs)
    if kind != "hmm":
        write_atomically(folder / TOKEN_COUNTS, json.dumps(counts).encode())
    sample = 0
    if kind == "supervised":  # the fit reads the gold as it was when the job started
        write_atomically(folder / GOLD, json.dumps({str(n): v for n, v in gold.items()}).encode())
        chosen = sample_indices(n_pairs, sorted(gold), settings.SEED_SAMPLE_PAIRS)
        write_atomically(folder / SAMPLE, chosen.astype("<i8").tobytes())
        sample = len(chosen)
    run = AlignerRun.objects.create(
        project=project,
        kind=AlignerRun.Kind.ALIGNER,
        job=job,
        config={**dataclasses.asdict(cfg), "model_kind": kind, "chunked": True,
                "chunks": ws.n_chunks, **({"sample_pairs": sample} if sample else {}),
                **({"builtin_version": builtin.version} if builtin else {})},
        gold_pairs=len(gold),
        note=_note(kind, len(gold), builtin, why_not),
        published=False,
    )  # fmt: skip
    plan = new_plan(job=job, run=run, pairs=n_pairs, gold_pairs=len(gold), workspace=ws,
                    model=kind, builtin=builtin is not None, sample_pairs=sample)  # fmt: skip
    save_plan(plan)
    reporter.progress(2, f"{plan.steps} EM steps over {plan.chunks} chunks of "
                         f"{plan.chunk_pairs} pairs")  # fmt: skip
    reporter.hand_off()
    seeding_canvas(plan, queue=_own_queue()).apply_async()
    return {"chunks": plan.chunks, "steps": plan.steps}


def _own_queue() -> str | None:
    """The queue the seed job's own task came from: its parts go there too, so workers that
    take seed jobs (a deployment may route them to a queue of their own) take its chunks."""
    from celery import current_task

    info = getattr(getattr(current_task, "request", None), "delivery_info", None) or {}
    return info.get("routing_key") or None


def aligner_config(project: Project) -> Any:
    """The aligner's settings for ``project``: ``seed_project``'s, with EM chunks of
    SEED_CHUNK_PAIRS pairs (the chunking is part of the result: ``seed_project`` with the
    same ``chunk_pairs`` gives the same seeds)."""
    from alignment_core.aligner.config import AlignerConfig

    return AlignerConfig(
        identity_lexicon=project.monolingual, chunk_pairs=settings.SEED_CHUNK_PAIRS
    )


def gold_links_by_index(project: Project) -> dict[int, list]:
    """The project's non-trial gold links, keyed by the pair's 0-based index in the project's
    pair order (the workspace's order)."""
    from annotator.models import GoldAlignment

    rows = GoldAlignment.objects.filter(pair__project=project, pair__is_trial=False)
    links_of = dict(rows.values_list("pair_id", "links"))
    if not links_of:
        return {}
    ordered = project.pairs.order_by("position", "id").values_list("id", flat=True)
    return {n: links_of[pair_id]  # only the gold's indices held, not every pair's
            for n, pair_id in enumerate(ordered.iterator(chunk_size=10_000))
            if pair_id in links_of}  # fmt: skip


# The job folder's files: the corpus's casefolded word counts (the models over the HMM read
# them), the gold links by pair index and the sample (the supervised model's fit reads them,
# as the plan chose them), the fitted supervised model's folder, and what its fit says of it
# (the job's result).
TOKEN_COUNTS = "token_counts.json"
GOLD = "gold.json"
SAMPLE = "sample.i8"  # the sample's pair indices, little-endian int64
SEED_MODEL = "seed_model"
FIT_SUMMARY = "fit.json"


def model_kind(n_gold: int, builtin: Any) -> str:
    """What seeds a project with ``n_gold`` gold pairs (none when the job does not use the
    gold) and, on English pairs, ``builtin``: the supervised link model where the gold trains
    one (``link_training.trains_on_gold``, the one task's rule), else the built-in model,
    else the HMM."""
    from alignment_core.aligner.installed import installed_resources
    from alignment_core.aligner.link_training import trains_on_gold

    # the resources matter only to whether a few gold pairs pool with the built-in model
    resources = installed_resources() if builtin is not None else None
    if n_gold and trains_on_gold(n_gold, builtin, resources=resources):
        return "supervised"
    return "hmm" if builtin is None else "builtin"


def sample_indices(n_pairs: int, gold: list[int], size: int) -> np.ndarray:
    """The pairs (0-based indices, ascending) the supervised model's fit reads: all of them
    when there are no more than ``size``; else every gold pair and ``size`` less their number
    spread evenly over the project (a pair twice counts once)."""
    if n_pairs <= size:
        return np.arange(n_pairs, dtype=np.int64)
    others = max(size - len(gold), 0)
    spread = np.linspace(0, n_pairs - 1, num=others).round().astype(np.int64)
    return np.union1d(spread, np.asarray(gold, dtype=np.int64))


def chunked_builtin(project: Project) -> tuple[Any, str | None]:
    """The built-in English model when it seeds ``project`` in chunks, else None and why not:
    the rule of ``seed_default.builtin_for`` (declared languages, else the text of the first
    pairs, as many as ``language.english_share`` reads), and the resources it reads installed.

    In chunks it seeds alone, whatever the gold: the supervised link model and its pooling
    with the built-in model train on per-pair inputs of the whole corpus in one process and
    are not chunked; the built-in model alone beats the HMM with the gold as counts on both
    English sets measured (docs/benchmarks.md, "The CLI's default with gold")."""
    from alignment_core.aligner.installed import installed_resources
    from alignment_core.aligner.link_training import builtin_problem
    from alignment_core.aligner.seed_default import builtin_for

    builtin, why_not = builtin_for(_first_pairs(project), project.source_language,
                                   project.target_language)  # fmt: skip
    if builtin is None:
        return None, why_not
    problem = builtin_problem(builtin, installed_resources())
    return (None, problem) if problem else (builtin, None)


def _first_pairs(project: Project) -> list[tuple]:
    """The project's first pairs, until each side has ``SAMPLE_TOKENS`` tokens (what the
    English verdict reads of the whole list)."""
    from alignment_core.aligner.language import SAMPLE_TOKENS

    out: list[tuple] = []
    seen = [0, 0]
    for _, src, tgt in pair_token_rows(project.pk):
        out.append((src, tgt))
        seen[0] += len(src)
        seen[1] += len(tgt)
        if min(seen) >= SAMPLE_TOKENS:
            break
    return out


def _counted(tokens: Iterator[tuple], counts: dict[str, int]) -> Iterator[tuple]:
    """``tokens`` as they stream by, their casefolded words counted into ``counts``."""
    from alignment_core.aligner.features import count_tokens

    for src, tgt in tokens:
        count_tokens(counts, src, tgt)
        yield src, tgt


def _note(kind: str, n_gold: int, builtin: Any, why_not: str | None) -> str:
    """What seeded (``model_kind``), and why the built-in English model did not join."""
    if kind == "supervised":
        note = f"chunked over the workers: the supervised link model on {n_gold} gold pairs"
        if builtin is not None:
            note += f", pooled with the built-in English model {builtin.version} at a weight "
            note += "chosen on the gold"
    elif kind == "builtin":
        note = f"chunked over the workers: the built-in English model {builtin.version}"
        if n_gold:
            note += f" ({n_gold} gold pair(s): too few for a model of the project's own)"
        return note
    else:
        how = "the HMM with the gold as counts" if n_gold else "the HMM"
        note = f"chunked over the workers: {how}"
    if why_not and not why_not.startswith("not English"):
        note += f"; the built-in English model was not used: {why_not}"
    return note


# --- EM ---------------------------------------------------------------------------------------


def _workspace(job_id: int) -> Any:
    """The job's workspace, opened once per worker process (a job's chunks come in turn)."""
    return _open_workspace(str(job_folder(job_id) / "workspace"), read_plan(job_id).run)


@functools.lru_cache(maxsize=4)
def _open_workspace(path: str, run: int) -> Any:
    """(keyed by the run too: a folder path may come again, for a new job of a new database)"""
    from alignment_core.aligner.workspace import Workspace

    return Workspace.open(path)


def estep(job_id: int, step: int, chunk: int, direction: int) -> None:
    """One chunk's expected counts of EM step ``step`` in one direction (0: source→target,
    1: target→source), written into the workspace."""
    what = f"estep-{step}-{chunk}-{'fb'[direction]}"
    with unit(job_id, what) as go:
        if go:
            _workspace(job_id).estep(step, chunk, direction)
            mark_done(read_plan(job_id), what)


def mstep(job_id: int, step: int) -> None:
    """Step ``step``'s M-step: the chunks' counts summed in chunk order, normalised."""
    what = f"mstep-{step}"
    with unit(job_id, what) as go:
        if go:
            _workspace(job_id).mstep(step)
            mark_done(read_plan(job_id), what)


def fit(job_id: int) -> None:
    """The seed model from the trained workspace, saved where the align chunks read it: the
    HMM, and the supervised model fitted on the gold when it seeds."""
    with unit(job_id, "fit") as go:
        if go:
            plan = read_plan(job_id)
            model = _workspace(job_id).model()
            path = job_folder(job_id) / "model.npz"
            tmp = path.with_name("model.tmp.npz")
            model.save(tmp)
            tmp.replace(path)
            if plan.model == "supervised":
                _fit_supervised(plan, model)
            mark_done(plan, "fit")


def _fit_supervised(plan: Plan, hmm: Any) -> None:
    """Fit the supervised link model on the gold of the plan's sample over the unsupervised
    ``hmm`` of all the pairs and their word counts; write it into the job's folder (replacing
    what an earlier attempt wrote) and what it says of itself into ``FIT_SUMMARY``."""
    from alignment_core.aligner.builtin import load_builtin
    from alignment_core.aligner.installed import installed_resources
    from alignment_core.aligner.link_training import CorpusEvidence, train_seed_model
    from alignment_core.aligner.seed_model_files import save_seed_model

    folder = job_folder(plan.job)
    gold = {int(n): links for n, links in json.loads((folder / GOLD).read_text()).items()}
    sample = np.frombuffer((folder / SAMPLE).read_bytes(), dtype="<i8")
    say(plan, f"the supervised link model: reading {len(sample)} pairs")
    pairs = _sample_pairs(plan.project, sample)
    at = {int(n): k for k, n in enumerate(sample)}
    model = train_seed_model(
        pairs,
        {at[n]: to_alignment(links) for n, links in gold.items()},
        config=aligner_config(Project.objects.get(pk=plan.project)),
        resources=installed_resources(),
        progress=lambda _, message: say(plan, f"the supervised link model: {message}"),
        builtin=load_builtin() if plan.builtin else None,
        corpus=CorpusEvidence(hmm, _token_stats(str(folder))),
    )
    tmp = folder / f"{SEED_MODEL}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    save_seed_model(model, tmp)
    shutil.rmtree(folder / SEED_MODEL, ignore_errors=True)
    tmp.rename(folder / SEED_MODEL)
    _record_fit(plan, model)


def _sample_pairs(project_id: int, sample: np.ndarray) -> list[tuple]:
    """The (source, target) tokens of the pairs at the ``sample``'s indices (ascending), in
    one pass over the project's pairs."""
    wanted = iter(sample.tolist())
    next_wanted = next(wanted, None)
    out = []
    for n, (_, src, tgt) in enumerate(pair_token_rows(project_id)):
        if next_wanted is None:
            break
        if n == next_wanted:
            out.append((src, tgt))
            next_wanted = next(wanted, None)
    return out


def _record_fit(plan: Plan, model: Any) -> None:
    """What the fitted model says of itself: into its run's config (as one task's run) and,
    for the job's result at publish, into ``FIT_SUMMARY``."""
    evidence = model_evidence(model, None)
    run = AlignerRun.objects.get(pk=plan.run)
    run.config = {**run.config, "link_model": model.info.get("link_config"), **evidence}
    run.save(update_fields=["config"])
    summary = {**model_figures(model), **evidence, "sample_pairs": plan.sample_pairs}
    write_atomically(job_folder(plan.job) / FIT_SUMMARY, json.dumps(summary).encode())


def _seed_model(job_id: int) -> Any:
    """The job's seed model, loaded once per worker process."""
    plan = read_plan(job_id)
    return _load_seed_model(str(job_folder(job_id)), plan.run, plan.model, plan.gold_pairs)


@functools.lru_cache(maxsize=2)
def _load_seed_model(folder: str, run: int, kind: str, gold_pairs: int) -> Any:
    """The HMM the fit saved, alone, or read by the built-in English model (the same model
    as ``link_training.train_seed_model`` builds in one task with too little gold), or by the
    supervised model the fit saved."""
    from alignment_core.aligner.model import AlignerModel
    from alignment_core.aligner.seed_model import SeedModel

    hmm = AlignerModel.load(f"{folder}/model.npz")
    if kind == "hmm":
        return SeedModel(kind="hmm", hmm=hmm)
    from alignment_core.aligner.builtin import load_builtin
    from alignment_core.aligner.installed import installed_resources
    from alignment_core.aligner.link_training import builtin_seed_model
    from alignment_core.aligner.seed_model_files import load_seed_model

    stats, builtin = _token_stats(folder), load_builtin()
    if kind == "supervised":
        return load_seed_model(f"{folder}/{SEED_MODEL}", hmm=hmm, stats=stats,
                               resources=installed_resources(), builtin=builtin)  # fmt: skip
    reason = f"chunked over the workers: the built-in English model {builtin.version} seeds"
    return builtin_seed_model(hmm, stats, installed_resources(), builtin, gold_pairs, reason)


def _token_stats(folder: str) -> Any:
    """The corpus's word statistics from the job folder's ``TOKEN_COUNTS``."""
    from alignment_core.aligner.features import TokenStats

    with open(f"{folder}/{TOKEN_COUNTS}", encoding="utf-8") as fh:
        return TokenStats.of_counts(json.load(fh))


# --- align, write, publish --------------------------------------------------------------------


def align(job_id: int, chunk: int) -> None:
    """Align chunk ``chunk``'s pairs and write their seeds under the unpublished run, in one
    transaction that first deletes any this chunk wrote before (a redelivered chunk). The pairs
    stream from one query and are aligned and written WRITE_BATCH at a time: a chunk's
    posterior matrices are never all in memory."""
    what = f"align-{chunk}"
    with unit(job_id, what) as go:
        if go:
            plan = read_plan(job_id)
            lo, hi = _workspace(job_id).chunk_pairs(chunk)
            model = _seed_model(job_id)
            with transaction.atomic():
                if not AlignerRun.objects.filter(pk=plan.run, published=False).exists():
                    raise ChunkFailed(f"aligner run {plan.run} is gone (its job was failed)")
                links = _write_chunk(plan, model, lo, hi)
            write_atomically(job_folder(job_id) / "done" / f"links-{chunk}", str(links).encode())
            mark_done(plan, what)


# Pairs aligned and inserted at a time inside an align chunk (as ``services.SEED_CHUNK``).
WRITE_BATCH = 2000


def _write_chunk(plan: Plan, model: Any, lo: int, hi: int) -> int:
    """Replace the run's seeds of pairs [lo, hi) (0-based, in pair order); the links written."""
    from annotator.models import SentencePair

    ordered = SentencePair.objects.filter(project_id=plan.project).order_by("position", "id")
    earlier = SeedAlignment.all_runs.filter(
        aligner_run_id=plan.run, pair_id__in=ordered.values("id")[lo:hi]
    )
    earlier._raw_delete(earlier.db)  # this chunk's own seeds, if it ran before; none else
    rows = pair_token_rows(plan.project, lo, hi)
    links = 0
    while batch := list(itertools.islice(rows, WRITE_BATCH)):
        seeds = _seeds(plan, model, batch)
        SeedAlignment.all_runs.bulk_create(seeds, batch_size=WRITE_BATCH)
        links += sum(len(seed.links) for seed in seeds)
    return links


def _fit_summary(job_id: int) -> dict[str, Any]:
    return json.loads((job_folder(job_id) / FIT_SUMMARY).read_text())


def chunk_links(job_id: int, chunk: int) -> int:
    """The number of links align chunk ``chunk`` wrote."""
    return int((job_folder(job_id) / "done" / f"links-{chunk}").read_text())


def _reseed_unstarted(project_id: int, run_id: int) -> tuple[int, int]:
    """Point every assignment nobody started at its pair's seed of run ``run_id``, in one
    statement (no pair-to-seed map in memory); the started ones keep theirs. (reseeded,
    kept), as ``services._reseed_unstarted``."""
    of_project = Assignment.objects.filter(pair__project_id=project_id)
    unstarted = of_project.filter(status=Assignment.Status.ASSIGNED, annotation__isnull=True)
    new_seed = SeedAlignment.all_runs.filter(aligner_run_id=run_id, pair_id=OuterRef("pair_id"))
    reseeded = Assignment.objects.filter(pk__in=unstarted.values("pk")).update(
        seed_id=Subquery(new_seed.values("id")[:1])
    )
    return reseeded, of_project.count() - reseeded


# Pairs predicted at a time: the built-in model's cell inputs for 2,000 pairs took a worker
# 850 MB over its resources, 500 pairs 220 MB (the HMM alone needs far less either way).
PREDICT_BATCH = 500


def _seeds(plan: Plan, model: Any, rows: list[tuple]) -> list[SeedAlignment]:
    from alignment_core.aligner.seed_model import uncertainty

    seeds = []
    for start in range(0, len(rows), PREDICT_BATCH):
        batch = rows[start : start + PREDICT_BATCH]
        alignments, matrices = model.predict([(src, tgt) for _, src, tgt in batch])
        seeds += [
            SeedAlignment(
                pair_id=pair_id,
                aligner_run_id=plan.run,
                links=alignment.to_links(),
                posteriors=quantise_posteriors(matrix),
                uncertainty=uncertainty(matrix),
            )
            for (pair_id, _, _), alignment, matrix in zip(batch, alignments, matrices, strict=True)
        ]
    return seeds


def publish(job_id: int) -> None:
    """Publish the run in one transaction: check every pair has its seed, mark the run
    published, point unstarted assignments at the new seeds, record the job's success."""
    with unit(job_id, "publish") as go:
        if go:
            plan = read_plan(job_id)
            with transaction.atomic():
                _publish(plan)
            _open_workspace.cache_clear()
            _load_seed_model.cache_clear()
            shutil.rmtree(job_folder(job_id), ignore_errors=True)


def _publish(plan: Plan) -> None:
    run = AlignerRun.objects.select_for_update().get(pk=plan.run)
    written = SeedAlignment.all_runs.filter(aligner_run=run).count()
    if written != plan.pairs:
        raise ChunkFailed(f"{written} seeds written for {plan.pairs} pairs")
    run.published = True
    run.save(update_fields=["published"])
    reseeded, kept = _reseed_unstarted(plan.project, run.pk)
    links = sum(chunk_links(plan.job, c) for c in range(plan.align_chunks))
    result = {
        "aligner_run": run.pk,
        "pairs": plan.pairs,
        "gold_pairs": plan.gold_pairs,
        "links": links,
        "assignments_reseeded": reseeded,
        "assignments_kept": kept,
        "model": plan.model,
        "model_note": run.note,
        **(
            {"builtin_version": run.config.get("builtin_version"), "builtin_weight": 1.0}
            if plan.model == "builtin"
            else {}
        ),
        **(_fit_summary(plan.job) if plan.model == "supervised" else {}),
        "chunks": plan.chunks,
        "align_chunks": plan.align_chunks,
        "chunk_pairs": plan.chunk_pairs,
        "em_steps": plan.steps,
        # the parts that ran more than once (their worker died: redelivered), for whoever
        # wonders why the job took longer
        "retried": retried_units(plan.job),
    }
    message = f"Wrote {plan.pairs} seeds ({links} links); {reseeded} assignments reseeded"
    succeed_job(job_id=plan.job, result=result, message=message)
