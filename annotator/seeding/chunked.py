"""Seeding a big project over the Celery workers: the aligner's EM in chunks, as chords.

A project of more than ``settings.SEED_CHUNK_PAIRS`` pairs is not seeded in one task. Its seed
job (``services.seed_work``) plans instead (:func:`start_chunked_seed`): it writes the corpus
into a training workspace under ``settings.SEED_WORK_DIR`` (``alignment_core.aligner.
workspace``: flat arrays, cut into chunks of SEED_CHUNK_PAIRS pairs), creates an *unpublished*
AlignerRun, and sends one Celery canvas::

    chain(
        chord(group(estep(step 0, chunk c, direction d) for d, c), mstep(step 0)),  # per step
        ...,
        chord(group(estep(step S-1, chunk c, direction d) for d, c), mstep(step S-1)),
        fit(),                      # the seed model (the supervised one: fitted on the gold)
        chord(group(align(chunk c) for c), publish()),               # seeds, then publish
    )

Where the counts meet: files in the job's folder of SEED_WORK_DIR, a folder every worker sees
at the same path (docs/operations.md, "Scaling out", says why). Each E-step task writes its
chunk's expected counts there atomically; the M-step sums them *in chunk order*, so one worker
and N workers give bit-identical models, and bit-identical seeds.

Each task takes the job id (and its step and chunk), is idempotent (a chunk done twice writes
the same file, or replaces its chunk's seeds in one transaction), and is acknowledged late and
requeued if its worker dies (``acks_late``, ``reject_on_worker_lost``): a killed chunk runs
again elsewhere. A chunk whose worker died ``SEED_TASK_MAX_ATTEMPTS`` times, or any error,
fails the job; failing it (however: here, the worker-lost handler, the stale-job sweep) runs
:func:`discard_unpublished`, which deletes the unpublished run, its seeds and the folder. So
nothing half-written remains, and nothing is ever visible before the run is published:
``SeedAlignment.objects`` reads published runs only.

Each task beats the job's heartbeat while it runs and moves its progress bar, which spans every
step's chunks and the align chunks.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from celery import chain, chord, group, signature
from django.conf import settings
from django.db import transaction

from annotator.jobs.runner import advance_job
from annotator.models import AlignerRun, Job, SeedAlignment

logger = logging.getLogger(__name__)

TASK_PREFIX = "annotator.tasks.seed_"
# Share of the progress bar for writing the workspace (the plan), and for fitting the model.
_PLAN_SHARE = 0.02


@dataclass(frozen=True)
class Plan:
    """What every task of a chunked seeding reads: written once, by the plan, into
    ``plan.json`` of the job's folder."""

    job: int
    project: int
    run: int
    pairs: int
    chunk_pairs: int
    chunks: int  # EM chunks: the corpus's, then the identity lexicon's (monolingual projects)
    align_chunks: int  # the chunks holding the project's pairs: 0..align_chunks-1
    steps: int
    labels: list[str]  # each EM step's name ("HMM iteration 2/5")
    gold_pairs: int
    use_gold: bool
    # what seeds: "hmm", "builtin" (the built-in English model) or "supervised" (the link
    # model fitted on the gold, pooled with the built-in one when ``builtin``)
    model: str = "hmm"
    builtin: bool = False
    sample_pairs: int = 0  # the supervised model's sample: the gold and pairs spread evenly

    @property
    def units(self) -> int:
        """The progress bar's units: every step's chunks (both directions) and M-step, the
        fit, each align chunk, the publish."""
        return self.steps * (2 * self.chunks + 1) + 1 + self.align_chunks + 1


def chunked(n_pairs: int) -> bool:
    """Whether a project of ``n_pairs`` pairs seeds over the workers (SEED_CHUNK_PAIRS > 0 and
    the project has more pairs than that)."""
    limit = settings.SEED_CHUNK_PAIRS
    return bool(limit) and n_pairs > limit


def job_folder(job_id: int) -> Path:
    """The job's folder in the shared SEED_WORK_DIR."""
    return Path(settings.SEED_WORK_DIR) / f"job-{job_id}"


def read_plan(job_id: int) -> Plan:
    return Plan(**json.loads((job_folder(job_id) / "plan.json").read_text()))


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, so a reader (another
    worker, or this chunk run again) sees the whole file or none."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


# --- the canvas ---------------------------------------------------------------------------


def seeding_canvas(plan: Plan, *, queue: str | None = None) -> Any:
    """The chain of chords that trains, aligns and publishes (see the module notes), every
    task sent to ``queue`` (None: the task's route, as configured)."""
    job, chunks = plan.job, range(plan.chunks)
    options = {"queue": queue} if queue else {}

    def _task(name: str, *args: int) -> Any:
        # by name: services import no task; immutable: no task reads another's result
        return signature(TASK_PREFIX + name, args=args, immutable=True, **options)

    # lists, not generators: a group reads a generator lazily, after ``step`` has moved on
    # one E-step task per chunk and direction: a process then holds one direction's table;
    # a direction's chunks first, so a process mostly keeps the table it has read
    parts: list[Any] = [
        chord(group([_task("estep", job, step, c, d) for d in (0, 1) for c in chunks]),
              _task("mstep", job, step))
        for step in range(plan.steps)
    ]  # fmt: skip
    parts.append(_task("fit", job))
    aligned = range(plan.align_chunks)
    parts.append(chord(group([_task("align", job, c) for c in aligned]), _task("publish", job)))
    return chain(*parts)


# --- bookkeeping: progress, attempts, done markers -----------------------------------------


def mark_done(plan: Plan, what: str) -> None:
    """Record that unit ``what`` (``estep-3-12``, ``align-7``...) is done and move the job's
    progress bar to the share of units done (never backwards: tasks finish in any order)."""
    done = job_folder(plan.job) / "done"
    done.mkdir(exist_ok=True)
    (done / what).touch()
    say(plan, _message(plan, what))


def say(plan: Plan, message: str) -> None:
    """Put ``message`` on the job's progress bar, at the share of units done."""
    done = job_folder(plan.job) / "done"
    units = len(os.listdir(done)) if done.exists() else 0
    fraction = _PLAN_SHARE + (1 - _PLAN_SHARE) * units / plan.units
    advance_job(job_id=plan.job, percent=100 * min(fraction, 0.99), message=message)


def _message(plan: Plan, what: str) -> str:
    kind, *numbers = what.split("-")
    if kind == "estep":
        return f"{plan.labels[int(numbers[0])]}: E-step over {plan.chunks} chunks"
    if kind == "mstep":
        return f"{plan.labels[int(numbers[0])]} done"
    if kind == "fit":
        return "seed model trained; aligning"
    return f"aligning and writing {plan.pairs} pairs in {plan.align_chunks} chunks"


def count_attempt(job_id: int, what: str) -> int:
    """Count one more start of unit ``what`` and return how many there have been (a unit
    started again was redelivered: its worker died)."""
    folder = job_folder(job_id) / "attempts"
    folder.mkdir(exist_ok=True)  # not its parent: a job cleaned up meanwhile stays so
    with open(folder / what, "ab") as f:
        f.write(b".")
        return f.tell()


def retried_units(job_id: int) -> list[str]:
    """The units started more than once, sorted."""
    folder = job_folder(job_id) / "attempts"
    if not folder.exists():
        return []
    return sorted(f.name for f in folder.iterdir() if f.stat().st_size > 1)


def running(job_id: int) -> bool:
    return Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).exists()


# --- planning --------------------------------------------------------------------------------


def new_plan(
    *, job: Job, run: AlignerRun, pairs: int, gold_pairs: int, workspace: Any, **model: Any
) -> Plan:
    """The plan of ``job`` over its (just created) training ``workspace``; ``model``: what
    seeds (``Plan.model``, ``builtin``, ``sample_pairs``)."""
    if workspace.meta["n_pairs"] != pairs:
        raise RuntimeError(f"the workspace holds {workspace.meta['n_pairs']} pairs, not {pairs}")
    return Plan(
        job=job.pk,
        project=run.project_id,
        run=run.pk,
        pairs=pairs,
        chunk_pairs=settings.SEED_CHUNK_PAIRS,
        chunks=workspace.n_chunks,
        align_chunks=workspace.n_corpus_chunks,
        steps=workspace.n_steps,
        labels=[workspace.step_label(step) for step in range(workspace.n_steps)],
        gold_pairs=gold_pairs,
        use_gold=bool(job.params.get("use_gold", True)),
        **model,
    )


def save_plan(plan: Plan) -> None:
    write_atomically(job_folder(plan.job) / "plan.json", json.dumps(asdict(plan)).encode())


def pair_token_rows(project_id: int, start: int = 0, stop: int | None = None) -> Iterator[tuple]:
    """(pk, source tokens, target tokens) of the project's pairs ``[start, stop)`` in order,
    streamed from the database (a server-side cursor on PostgreSQL)."""
    from annotator.models import SentencePair

    ordered = SentencePair.objects.filter(project_id=project_id).order_by("position", "id")
    rows = ordered.values_list("id", "source_tokens", "target_tokens")
    return rows[start:stop].iterator(chunk_size=2000)


# --- failure ---------------------------------------------------------------------------------


def discard_unpublished(job_id: int) -> None:
    """Delete what a failed chunked seeding left: its unpublished run with its seeds, and its
    folder. Idempotent; the job kind's ``on_failed`` (``annotator.jobs.registry``)."""
    for run_id in AlignerRun.objects.filter(job_id=job_id, published=False).values_list(
        "pk", flat=True
    ):
        _delete_run(run_id)
    shutil.rmtree(job_folder(job_id), ignore_errors=True)


def _delete_run(run_id: int) -> None:
    """Delete an unpublished run and its seeds in one transaction. The run row is locked
    first, so a chunk still writing its seeds (its inserts take a key-share lock on the run)
    either commits before, and its rows go too, or fails after, finding no run. The seeds are
    deleted by one statement, not loaded (no assignment points at an unpublished seed)."""
    with transaction.atomic():
        run = AlignerRun.objects.select_for_update().filter(pk=run_id, published=False).first()
        if run is None:
            return
        seeds = SeedAlignment.all_runs.filter(aligner_run_id=run_id)
        seeds._raw_delete(seeds.db)  # no signals, no PROTECT to check (see above)
        AlignerRun.objects.filter(pk=run_id).delete()
