"""Evaluation of a big upload as a job (issue 30, finding 5): the web process keeps no more
than the upload's head in memory.

An upload larger than ``settings.EVALUATE_INLINE_MAX_BYTES`` (all its files together) is
stored as an import's is (``uploads.store_upload``, under ``var/uploads/<token>/``), its head
checked in the request (the format must be known and carry alignments, each file's first
lines must decode and hold no NUL, and a jsonl file's first lines must read as pairs: a bad
head is refused with file and line, and nothing is kept), then an ``evaluate`` job reads it
in the worker with ``evaluate_file`` and stores the very dict the synchronous answer holds as
its result. The stored files are deleted when the job ends, whatever the outcome.

The worker reads a jsonl file ``IMPORT_CHUNK_PAIRS`` pairs at a time
(``iter_pair_chunks``) and scores it chunk by chunk (``evaluate_chunks``: the figures come from
one row of counts per matched pair, so they equal the whole file's); other formats are read
whole, as the synchronous path reads them (pharaoh and naacl lines are matched to their
sentences by position).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.conf import settings

from alignment_core.formats import (
    FORMATS,
    FormatError,
    Normalization,
    guess_format,
    iter_pair_chunks,
    parse_pairs,
)
from annotator.corpora.services import uploads
from annotator.corpora.services.evaluation import (
    EvaluationRefused,
    SystemFile,
    evaluate_chunks,
    evaluate_file,
)
from annotator.corpora.services.importing_report import CorpusImportError
from annotator.corpora.services.upload_head import LINE_FORMATS, check_file_head
from annotator.jobs.services import start_job
from annotator.models import Job, Project

JOB_KIND = "evaluate"
FILE_ROLES = ("file", "source_text", "target_text")
OPTION_NAMES = ("format", "encoding", "level", "include_identical", "normalize")


def runs_as_job(files: Mapping[str, Any]) -> bool:
    """Whether uploaded files (``role → UploadedFile``) are big enough to be a job."""
    total = sum(f.size or 0 for f in files.values() if f is not None)
    return total > settings.EVALUATE_INLINE_MAX_BYTES


def evaluation_format(name: str, fmt: str | None) -> str:
    """The format of the system file ``name``, refused as ``evaluate_file`` refuses it."""
    fmt = fmt or guess_format(name)
    if fmt is None:
        raise EvaluationRefused(
            f"format: cannot tell the format of {name!r} from its name; give format"
        )
    if not FORMATS[fmt].carries_alignment:
        raise EvaluationRefused(f"format: {fmt} files hold no alignments")
    return fmt


def _check_head(
    folder: Path, names: Mapping[str, str], originals: Mapping[str, str], options: Mapping
) -> None:
    encoding = options.get("encoding") or "utf-8"
    fmt = evaluation_format(originals["file"], options.get("format"))
    heads = {}
    try:
        for role, name in names.items():
            heads[role] = check_file_head(folder / name, encoding, originals[role])
    except CorpusImportError as exc:
        raise EvaluationRefused(str(exc)) from None
    if fmt in LINE_FORMATS:  # each line stands alone: the head reads as pairs (FormatError)
        parse_pairs(heads["file"], fmt, name=originals["file"], encoding=encoding)


def accept_evaluation(
    *, project: Project, user: Any, files: Mapping[str, Any], options: Mapping[str, Any]
) -> Job:
    """Store the uploaded files (``role → UploadedFile``), check their head and queue the
    ``evaluate`` job. Raises EvaluationRefused or FormatError (file, line) for a bad head,
    keeping nothing."""
    files = {role: f for role, f in files.items() if f is not None}
    folder, names = uploads.store_upload(
        files={role: (f.name, f.chunks()) for role, f in files.items()}
    )
    originals = {role: f.name for role, f in files.items()}
    options = {name: options.get(name) for name in OPTION_NAMES}
    try:
        _check_head(folder, names, originals, options)
    except BaseException:
        uploads.delete_upload(folder)
        raise
    uploads.sweep_uploads()
    params = {"upload": folder.name, "files": names, "originals": originals, **options}
    return start_job(kind=JOB_KIND, project=project, user=user, params=params)


def _evaluate_in_chunks(job: Job, folder: Path, reporter: Any) -> dict[str, Any]:
    """A jsonl file read ``IMPORT_CHUNK_PAIRS`` pairs at a time and scored chunk by chunk:
    memory holds one chunk's pairs, the ids, and a row of counts per matched pair."""
    params = job.params
    name, stored = params["originals"]["file"], folder / params["files"]["file"]
    chunks = iter_pair_chunks(
        stored,
        "jsonl",
        chunk_size=settings.IMPORT_CHUNK_PAIRS,
        encoding=params.get("encoding") or "utf-8",
        normalize=Normalization() if params.get("normalize") else None,
        progress=lambda fraction, _: reporter.progress(5 + 90 * fraction, "Scoring the file"),
    )
    try:
        return evaluate_chunks(
            project=job.project,
            chunks=chunks,
            level=params.get("level") or "both",
            include_identical=bool(params.get("include_identical")),
        )
    except FormatError as exc:  # file:line, named as uploaded, never the server path
        raise EvaluationRefused(str(exc).replace(str(stored), name)) from None
    except ValueError as exc:
        raise EvaluationRefused(f"{name}: {exc}") from None


def _evaluate_whole(job: Job, folder: Path) -> dict[str, Any]:
    params = job.params
    names, originals = params["files"], params["originals"]

    def read(role: str) -> tuple[str, bytes] | None:
        if role not in names:
            return None
        return originals[role], (folder / names[role]).read_bytes()

    system = SystemFile(
        name=originals["file"],
        data=(folder / names["file"]).read_bytes(),
        fmt=params.get("format"),
        encoding=params.get("encoding") or "utf-8",
        source_text=read("source_text"),
        target_text=read("target_text"),
        normalize=bool(params.get("normalize")),
    )
    return evaluate_file(
        project=job.project,
        file=system,
        level=params.get("level") or "both",
        include_identical=bool(params.get("include_identical")),
    )


def evaluate_work(job: Job, reporter: Any) -> dict[str, Any]:
    """The job's work: evaluate the stored files as the synchronous request would (a jsonl
    file a chunk at a time, other formats whole: pharaoh and naacl are read against their
    sentences), then delete them (always). The result is the synchronous answer's dict."""
    params = job.params
    folder = uploads.upload_root() / str(params.get("upload", ""))
    try:
        if job.project is None or not params.get("upload") or not folder.is_dir():
            raise EvaluationRefused(
                "the uploaded files are gone (the upload expired); upload again"
            )
        reporter.progress(5, "Reading and scoring the file")
        fmt = evaluation_format(params["originals"]["file"], params.get("format"))
        if fmt == "jsonl" and set(params["files"]) == {"file"}:
            return _evaluate_in_chunks(job, folder, reporter)
        return _evaluate_whole(job, folder)
    finally:
        uploads.delete_upload(folder)
