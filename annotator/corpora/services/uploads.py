"""Uploaded corpora imported by a job (``POST /api/projects/{id}/imports/``).

The upload is stored under ``var/uploads/<token>/`` when the request arrives, kept while its
import job waits and runs, and deleted when the job ends (whatever the outcome). A folder
whose job never ran (broker down, worker lost) is swept an hour later. The import itself is
``importing.import_files``: all or nothing.

File names in error messages and reports are the uploaded ones, never server paths.
"""

from __future__ import annotations

import json
import re
import shutil
import time
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from annotator.corpora.services.importing import CorpusImportError, ImportSource, import_files
from annotator.corpora.services.importing_report import Problem
from annotator.corpora.services.upload_head import check_upload
from annotator.corpora.services.zip_members import BrokenMember, extract_member, open_archive
from annotator.jobs.runner import UNFINISHED
from annotator.jobs.services import start_job
from annotator.models import Job, Project
from annotator.projects.services import member_rules

# Roles of uploaded files, as import_corpus names them.
FILE_ROLES = ("file", "source_text", "target_text", "sure_file")
SWEEP_AFTER_SECONDS = 3600
# The job kinds that own an upload folder while they wait and run (import, evaluate).
UPLOAD_JOB_KINDS = ("import", "evaluate")
ZIP_MAX_MEMBERS = 20
ZIP_LINK_EXTENSIONS = {".pharaoh": "pharaoh", ".naacl": "naacl", ".talp": "pharaoh"}
# The import options an upload carries to its job (the API's and the Import page's fields).
OPTION_NAMES = (
    "format", "encoding", "text_format", "annotator", "load_as", "subcorpus",
    "max_length_ratio", "token_mismatch", "replace_gold", "dry_run",
    "normalize",
)  # fmt: skip


def upload_root() -> Path:
    return Path(settings.VAR_DIR) / "uploads"


def safe_name(name: str) -> str:
    """The uploaded file's base name, reduced to safe characters (extension kept, so the
    format can still be guessed from it)."""
    base = Path(name.replace("\\", "/")).name
    base = re.sub(r"[^A-Za-z0-9._+-]+", "_", base).lstrip(".") or "upload"
    return base[:120]


def store_upload(
    *, files: Mapping[str, tuple[str, Iterable[bytes]]]
) -> tuple[Path, dict[str, str]]:
    """Write each ``role → (original name, chunks)`` into a new folder; returns the folder and
    ``role → stored file name``. Nothing is left behind if writing fails."""
    unknown = set(files) - set(FILE_ROLES)
    if unknown:
        raise ValueError(f"unknown upload role(s): {', '.join(sorted(unknown))}")
    folder = upload_root() / uuid.uuid4().hex
    folder.mkdir(parents=True)
    names: dict[str, str] = {}
    try:
        for role, (original, chunks) in files.items():
            name = safe_name(original)
            if name in names.values():
                name = f"{role}-{name}"
            with open(folder / name, "wb") as fh:
                for chunk in chunks:
                    fh.write(chunk)
            names[role] = name
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder, names


def delete_upload(folder: Path) -> None:
    """Remove an upload folder (only ever one under ``var/uploads``)."""
    folder = Path(folder)
    if folder.parent.resolve() == upload_root().resolve():
        shutil.rmtree(folder, ignore_errors=True)


def sweep_uploads(*, now: float | None = None) -> int:
    """Delete upload folders older than SWEEP_AFTER_SECONDS whose job is not waiting or
    running (it failed to queue, or died). Returns how many were removed."""
    root = upload_root()
    if not root.is_dir():
        return 0
    now = now or time.time()
    removed = 0
    for folder in root.iterdir():
        if not folder.is_dir() or now - folder.stat().st_mtime < SWEEP_AFTER_SECONDS:
            continue
        busy = Job.objects.filter(
            kind__in=UPLOAD_JOB_KINDS, status__in=UNFINISHED, params__upload=folder.name
        ).exists()
        if not busy:
            delete_upload(folder)
            removed += 1
    return removed


def unpack_export_zip(*, folder: Path, name: str) -> dict[str, str]:
    """An export zip (links file + TSV of the pairs) uploaded as ``file``: extract the two
    members needed and return ``{"file": links, "source_text": tsv, "format": fmt}``.
    Raises CorpusImportError naming the zip when it is not such an archive."""

    def refuse(reason: str) -> CorpusImportError:
        return CorpusImportError(Problem(reason, file=name))

    try:
        archive = open_archive(folder / name)
    except ValueError as exc:
        raise refuse(str(exc)) from None
    with archive:
        members = archive.infolist()
        if len(members) > ZIP_MAX_MEMBERS:
            raise refuse(f"holds {len(members)} files; an export zip holds 4")
        links = [m for m in members if Path(m.filename).suffix.lower() in ZIP_LINK_EXTENSIONS]
        texts = [m for m in members if Path(m.filename).suffix.lower() == ".tsv"]
        if len(links) != 1 or len(texts) != 1:
            raise refuse(
                "expected one .pharaoh or .naacl links file and one .tsv of the pairs (as the "
                "export writes them)"
            )
        out: dict[str, str] = {
            "format": ZIP_LINK_EXTENSIONS[Path(links[0].filename).suffix.lower()]
        }
        limit = settings.API_UPLOAD_MAX_MB * 1024 * 1024
        for role, member in (("file", links[0]), ("source_text", texts[0])):
            target = f"unzipped-{safe_name(member.filename)}"
            try:  # the bytes really extracted count, not the sizes the archive declares
                extract_member(archive, member, folder / target, limit=limit)
            except BrokenMember as exc:
                raise refuse(str(exc)) from None
            out[role] = target
    return out


def import_source(
    *, folder: Path, names: Mapping[str, str], options: Mapping[str, Any]
) -> ImportSource:
    """The ImportSource of an upload folder and the request's reading options."""

    def path(role: str) -> Path | None:
        return folder / names[role] if names.get(role) else None

    return ImportSource(
        path=folder / names["file"],
        fmt=options.get("format"),
        encoding=options.get("encoding") or "utf-8",
        source_text=path("source_text"),
        target_text=path("target_text"),
        sure_path=path("sure_file"),
        annotator=options.get("annotator"),
        text_format=options.get("text_format"),
        normalize=bool(options.get("normalize")),
        name=names["file"],  # the uploaded name: notes and reports never show the folder
    )


def start_import_job(
    *,
    project: Project,
    user: Any,
    folder: Path,
    names: Mapping[str, str],
    options: Mapping[str, Any],
) -> Job:
    """Queue the import of an upload folder; the job owns the folder from here on."""
    sweep_uploads()
    params = {"upload": folder.name, "files": dict(names), **dict(options)}
    return start_job(kind="import", project=project, user=user, params=params)


class ImportRefused(ValueError):
    """The import was refused and nothing written; the message names file, line, reason."""


def accept_upload(
    *, project: Project, user: Any, files: Mapping[str, Any], options: Mapping[str, Any]
) -> Job:
    """Store the uploaded files (``role → UploadedFile``), unpack an export zip, check the
    head and queue the import job: what the API and the Import page both do with an upload.

    A file that cannot be read raises ImportRefused naming the uploaded file, line and
    reason (no server path), and nothing is kept."""
    options = {name: options.get(name) for name in OPTION_NAMES}
    _check_annotator(project=project, user=user, options=options)
    folder, names = store_upload(files={role: (f.name, f.chunks()) for role, f in files.items()})
    try:
        if names["file"].lower().endswith(".zip"):
            unpacked = unpack_export_zip(folder=folder, name=names["file"])
            options["format"] = unpacked.pop("format")
            names.update(unpacked)
        source = import_source(folder=folder, names=names, options=options)
        check_upload(source)  # a malformed head (a small file: any line) is refused now
    except CorpusImportError as exc:
        delete_upload(folder)
        raise ImportRefused(_without_folder(str(exc), folder)) from None
    except BaseException:
        delete_upload(folder)
        raise
    return start_import_job(project=project, user=user, folder=folder, names=names, options=options)


def _check_annotator(*, project: Project, user: Any, options: Mapping[str, Any]) -> None:
    """The one annotator an upload names must be someone ``user`` may add (the job checks
    the names inside the files too): refused now, in the words used for a name nobody has."""
    name = options.get("annotator")
    if options.get("load_as") != "annotator" or not name:
        return
    if member_rules.not_addable_names(project=project, by=user, names=[name]):
        raise ImportRefused(member_rules.not_addable(name))


def _without_folder(text: str, folder: Path) -> str:
    return text.replace(f"{folder}/", "").replace(str(folder), "")


def import_work(job: Job, reporter: Any) -> dict[str, Any]:
    """The job's work: import the uploaded files, then delete them (always)."""
    params = job.params
    folder = upload_root() / str(params.get("upload", ""))
    try:
        if job.project is None or not params.get("upload") or not folder.is_dir():
            raise ImportRefused("the uploaded files are gone (the upload expired); upload again")
        source = import_source(folder=folder, names=params["files"], options=params)
        try:
            report = import_files(
                project=job.project,
                sources=[source],
                load_alignments_as=params.get("load_as"),
                subcorpus=params.get("subcorpus"),
                max_length_ratio=params.get("max_length_ratio"),
                on_token_mismatch=params.get("token_mismatch") or "error",
                replace_gold=bool(params.get("replace_gold")),
                dry_run=bool(params.get("dry_run")),
                progress=reporter.as_progress(),
                added_by=job.created_by or AnonymousUser(),  # who asked; no one: refuse names
            )
        except (CorpusImportError, ValueError) as exc:
            raise ImportRefused(_without_folder(str(exc), folder)) from None
        result = report.as_dict()
        return json.loads(_without_folder(json.dumps(result), folder))
    finally:
        delete_upload(folder)
