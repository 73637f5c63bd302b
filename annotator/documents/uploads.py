"""Uploads of documents in bounded memory: what the API and the documents page do with the
files of a request, and how the align job reads a stored upload later.

* Small uploads (both files together at most ``READ_IN_REQUEST_BYTES``) are read in the
  request, as before: a bad file is a 400 naming it, and nothing is stored.
* A bigger pair, or any zip, is copied as it came (Django's upload handlers have streamed it
  to a temporary file; it is copied 64 KB at a time) into ``var/documents/<token>/``, and
  only checked cheaply here: its size, NUL bytes, UTF-8 (read 1 MB at a time), and for a
  zip its directory (names matched into pairs, declared sizes). Its pairs are stored
  *waiting* with no sentences; the align job reads each one when its task runs
  (``read_stored``), so the web process parses nothing big and holds no file whole.
* A stored file the job cannot read leaves its pair *failed* with the reason naming the file
  (for a zip: the archive and member); the job's other pairs go on. A folder is deleted once
  none of its pairs waits any more.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from annotator.corpora.services.uploads import safe_name
from annotator.documents import services
from annotator.documents.reading import (
    DocumentError,
    Upload,
    check_text_file,
    list_archive,
    read_document,
    read_member,
    unique_names,
)
from annotator.models import DocumentPair, Project

# Both files of a pair up to this size together are read in the request (a few thousand
# sentences: tens of MB of Python objects at most); anything bigger is read by the job.
READ_IN_REQUEST_BYTES = 1024 * 1024


def documents_root() -> Path:
    return Path(settings.VAR_DIR) / "documents"


def accept_upload(
    *,
    project: Project,
    user: Any,
    source_language: str,
    target_language: str,
    source: Any = None,
    target: Any = None,
    archive: Any = None,
    kind: str = DocumentPair.Kind.PARALLEL,
    split: str = "auto",
    name: str = "",
) -> list[DocumentPair]:
    """Document pairs from uploaded files (Django ``UploadedFile``s: ``name``, ``size``,
    ``chunks()``): read now when small, else stored for the align job. Raises
    ``DocumentError`` naming the file (and nothing is kept) for what can be told cheaply."""
    if kind not in DocumentPair.Kind.values:
        raise DocumentError(f"unknown kind {kind!r} (parallel or comparable)")
    common = {"project": project, "user": user, "kind": kind, "split": split}
    if archive is not None:
        return _store_archive(archive, source_language, target_language, **common)
    if source is None or target is None:
        raise DocumentError("give a source and a target document, or a zip archive of them")
    if source.size + target.size <= READ_IN_REQUEST_BYTES:
        return services.create_document_pairs(
            **common, name=name,
            source=Upload(source.name, source.read(), source_language),
            target=Upload(target.name, target.read(), target_language),
        )  # fmt: skip
    folder = _store({"source": source, "target": target})
    try:
        for role, upload in (("source", source), ("target", target)):
            check_text_file(folder / _stored_name(role, upload), filename=upload.name)
        row = _waiting(
            common, name or f"{source.name} / {target.name}", folder,
            {"source": _stored_name("source", source), "target": _stored_name("target", target)},
            (source.name, source_language), (target.name, target_language),
        )  # fmt: skip
        return _create(project, [row])
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _store_archive(archive: Any, source_language: str, target_language: str, **common: Any):
    folder = _store({"archive": archive})
    try:
        stored = _stored_name("archive", archive)
        found = list_archive(
            folder / stored, filename=archive.name,
            source_language=source_language, target_language=target_language,
        )  # fmt: skip
        rows = [
            _waiting(
                common, pair.name, folder,
                {"archive": stored, "filename": archive.name, "source": pair.source,
                 "target": pair.target},
                (pair.source, source_language), (pair.target, target_language),
            )
            for pair in found
        ]  # fmt: skip
        return _create(common["project"], rows)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _stored_name(role: str, upload: Any) -> str:
    return f"{role}-{safe_name(upload.name)}"


def _store(files: dict[str, Any]) -> Path:
    """Copy each uploaded file into a new folder, chunk by chunk."""
    folder = documents_root() / uuid.uuid4().hex
    folder.mkdir(parents=True)
    try:
        for role, upload in files.items():
            with open(folder / _stored_name(role, upload), "wb") as fh:
                for chunk in upload.chunks():
                    fh.write(chunk)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def _waiting(common, name, folder: Path, where: dict[str, str], src, tgt) -> DocumentPair:
    return DocumentPair(
        project=common["project"], name=name, kind=common["kind"],
        created_by=services.user_or_none(common["user"]),
        source_language=src[1], target_language=tgt[1],
        source_filename=src[0][:255], target_filename=tgt[0][:255],
        state=DocumentPair.State.WAITING,
        stored={"folder": folder.name, "split": common["split"], **where},
    )  # fmt: skip


def _create(project: Project, rows: list[DocumentPair]) -> list[DocumentPair]:
    with transaction.atomic():
        taken = set(DocumentPair.objects.filter(project=project).values_list("name", flat=True))
        for row, unique in zip(rows, unique_names([r.name for r in rows], taken), strict=True):
            row.name = unique
        return DocumentPair.objects.bulk_create(rows, batch_size=500)


def read_stored(document_pair: DocumentPair) -> DocumentPair:
    """Read a waiting pair's stored files into its sentences (the align job, one pair at a
    time). A file that cannot be read marks the pair failed with the reason, which is
    raised as ``DocumentError``; either way the pair no longer waits, and its folder is
    deleted once no pair of it waits."""
    dp = document_pair
    where = dict(dp.stored)
    try:
        src, tgt = _stored_uploads(dp, where)
        split = where.get("split", "auto")
        for side, upload in (("source", src), ("target", tgt)):
            doc = read_document(upload, split=split)
            for field, value in services.side_fields(side, doc).items():
                if field != f"{side}_filename":
                    setattr(dp, field, value)
    except DocumentError as exc:
        DocumentPair.objects.filter(pk=dp.pk).update(
            state=DocumentPair.State.FAILED, error=str(exc), stored={}
        )
        _forget(where)
        raise
    dp.state, dp.error, dp.stored = DocumentPair.State.READY, "", {}
    dp.save()
    _forget(where)
    return dp


def _stored_uploads(dp: DocumentPair, where: dict[str, str]) -> tuple[Upload, Upload]:
    folder = documents_root() / where["folder"]
    if where.get("archive"):
        path, label = folder / where["archive"], where["filename"]
        return (
            read_member(path, where["source"], filename=label, language=dp.source_language),
            read_member(path, where["target"], filename=label, language=dp.target_language),
        )
    out = []
    for side in ("source", "target"):
        path = folder / where[side]
        if not path.is_file():
            raise DocumentError(f"{getattr(dp, f'{side}_filename')}: the stored upload is gone")
        name, language = getattr(dp, f"{side}_filename"), getattr(dp, f"{side}_language")
        out.append(Upload(name, path.read_bytes(), language))
    return out[0], out[1]


def _forget(where: dict[str, str]) -> None:
    """Delete the upload folder once no pair of it waits to be read."""
    token = where.get("folder")
    if not token or DocumentPair.objects.filter(stored__folder=token).exists():
        return
    folder = documents_root() / token
    if folder.parent.resolve() == documents_root().resolve():
        shutil.rmtree(folder, ignore_errors=True)
