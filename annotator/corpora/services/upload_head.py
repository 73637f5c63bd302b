"""What the import request checks of an uploaded corpus before it queues the job.

A small upload (at most FULL_CHECK_MAX_BYTES in all) is read whole, as before: a malformed
line is a 400 at once with its file and line. A big one is not parsed in the request (a 50 MB
TSV parsed whole took the web process to 1.7 GB): only its head is. The first HEAD_BYTES of
each file, cut at a line end, must decode in the given encoding and hold no NUL; for the
formats whose every line stands alone (jsonl, tsv, bitext) that head is also read as pairs, so
a wrong format or a broken first line is still a 400 at once. The rest is read by the import
job, whose failure names the file and line the same way.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from alignment_core.formats import guess_format
from annotator.corpora.services.importing import ImportSource, read_source
from annotator.corpora.services.importing_report import CorpusImportError, Problem

FULL_CHECK_MAX_BYTES = 2 * 1024 * 1024
HEAD_BYTES = 256 * 1024
LINE_FORMATS = frozenset({"jsonl", "tsv", "bitext"})


def _files(source: ImportSource) -> list[Path]:
    paths = (source.path, source.source_text, source.target_text, source.sure_path)
    return [Path(p) for p in paths if p is not None]


def _head(path: Path) -> bytes:
    """The file's first HEAD_BYTES, cut after the last complete line (all of a shorter file)."""
    with open(path, "rb") as fh:
        data = fh.read(HEAD_BYTES + 1)
    if len(data) <= HEAD_BYTES:
        return data
    end = data.rfind(b"\n", 0, HEAD_BYTES)
    return data[: end + 1] if end >= 0 else data[:HEAD_BYTES]


def _check_bytes(path: Path, head: bytes, encoding: str, shown: str) -> None:
    nul = head.find(b"\x00")
    if nul >= 0 and not encoding.lower().replace("-", "").startswith("utf16"):
        line = head.count(b"\n", 0, nul) + 1
        raise CorpusImportError(Problem("a NUL byte: not a text file", file=shown, line=line))
    try:
        head.decode(encoding)
    except UnicodeDecodeError as exc:
        line = head.count(b"\n", 0, exc.start) + 1
        raise CorpusImportError(
            Problem(f"cannot decode as {encoding}: {exc.reason}", file=shown, line=line)
        ) from None


def check_file_head(path: Path, encoding: str, shown: str) -> bytes:
    """The file's head (HEAD_BYTES, cut at a line end), checked as ``check_upload`` checks a
    big file's: it decodes in ``encoding`` and holds no NUL; CorpusImportError names ``shown``
    and the line otherwise."""
    head = _head(path)
    _check_bytes(path, head, encoding, shown)
    return head


def check_upload(source: ImportSource) -> None:
    """Raise CorpusImportError (file, line, reason) for an upload the import would refuse
    from its first lines; a small upload is read whole. Memory: at most a small file's pairs,
    else HEAD_BYTES per file."""
    files = _files(source)
    if sum(os.path.getsize(p) for p in files) <= FULL_CHECK_MAX_BYTES:
        read_source(source)
        return
    fmt = source.fmt or guess_format(source.path)
    if fmt is None:
        read_source(source)  # refuses with its own message (no format)
    heads = {p: _head(p) for p in files}
    for path, head in heads.items():
        _check_bytes(path, head, source.encoding or "utf-8", path.name)
    if fmt not in LINE_FORMATS or len(files) != 1:
        return
    folder = Path(tempfile.mkdtemp(prefix="gridalign-head-"))
    try:
        copy = folder / Path(source.path).name
        copy.write_bytes(heads[Path(source.path)])
        try:
            read_source(replace(source, path=copy, fmt=fmt))
        except CorpusImportError as exc:  # name the uploaded file, not the copy of its head
            raise CorpusImportError(
                [
                    replace(p, file=str(source.path)) if p.file == str(copy) else p
                    for p in exc.problems
                ]
            ) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
