"""Uploaded documents → sentences (issue 33). Pure functions of bytes and options; nothing here
writes. A file that cannot be read raises ``DocumentError`` naming the file and the place.

Formats: ``html`` (main text by blocks, lxml; each sentence keeps its block for the aligner's
anchors), ``lines`` (one sentence per line, taken as it is), ``text`` (raw text, split per
language by pysbd). ``auto`` picks HTML by name or content, then ``lines`` when the text has
no blank line (a paragraph break is how raw text shows it was not split already).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from alignment_core.formats.msrp import tokenize  # the grid's tokens of running text
from alignment_core.sentalign.split import (
    SplitError,
    html_sentences,
    lines_as_sentences,
    looks_like_html,
    split_text,
)

SPLIT_MODES = ("auto", "lines", "text", "html")
MAX_DOCUMENT_BYTES = 20 * 1024 * 1024  # one side of a document pair
MAX_ARCHIVE_MEMBERS = 2000


class DocumentError(ValueError):
    """A document cannot be taken; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Upload:
    """One side of a document pair as uploaded: its file name, bytes and language."""

    filename: str
    data: bytes
    language: str


@dataclass
class ReadDocument:
    filename: str
    language: str
    format: str  # html, lines or text
    original: str
    sentences: list[str]
    blocks: list[int] = field(default_factory=list)


def decode(upload: Upload) -> str:
    """The file as text: UTF-8 (a BOM is dropped). Binary data and other encodings are refused
    with the byte offset and line of the first problem."""
    data = upload.data
    if len(data) > MAX_DOCUMENT_BYTES:
        raise DocumentError(
            f"{upload.filename}: {len(data):,} bytes, more than the {MAX_DOCUMENT_BYTES:,} a "
            "document may have"
        )
    nul = data.find(b"\x00")
    if nul >= 0:  # anywhere: PostgreSQL stores no NUL in text (SQLite would, silently)
        line = data.count(b"\n", 0, nul) + 1
        raise DocumentError(
            f"{upload.filename}: a binary file, not text or HTML (a NUL byte on line {line}, "
            f"offset {nul})"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DocumentError(
            f"{upload.filename}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}, line {line}); save it as UTF-8"
        ) from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def choose_format(filename: str, text: str, split: str) -> str:
    if split != "auto":
        return split
    if filename.lower().endswith((".html", ".htm", ".xhtml")) or looks_like_html(text):
        return "html"
    lines = [line for line in text.split("\n") if line.strip()]
    has_paragraphs = re.search(r"\n[ \t]*\n", text.strip()) is not None
    return "lines" if len(lines) > 1 and not has_paragraphs else "text"


def read_document(upload: Upload, *, split: str = "auto") -> ReadDocument:
    """Decode, extract and split one document. Empty lines never become sentences."""
    if split not in SPLIT_MODES:
        raise DocumentError(
            f"{upload.filename}: unknown split mode {split!r} (one of {SPLIT_MODES})"
        )
    text = decode(upload)
    fmt = choose_format(upload.filename, text, split)
    blocks: list[int] = []
    try:
        if fmt == "html":
            sentences, blocks, _ = html_sentences(text, upload.language)
        elif fmt == "lines":
            sentences = [s for s in lines_as_sentences(text) if s]
        else:
            sentences = split_text(text, upload.language)
    except SplitError as exc:
        raise DocumentError(f"{upload.filename}: {exc}") from None
    if not sentences:
        raise DocumentError(f"{upload.filename}: no text found")
    for k, sentence in enumerate(sentences):
        if not tokenize(sentence):
            raise DocumentError(f"{upload.filename}: sentence {k + 1} has no word ({sentence!r})")
    return ReadDocument(upload.filename, upload.language, fmt, text, sentences, blocks)


@dataclass(frozen=True)
class ArchivePair:
    name: str
    source: Upload
    target: Upload


def _stem_and_role(member: str, source_language: str, target_language: str):
    """``x.de`` / ``x.fr`` (by the languages), ``x.src.html`` / ``x.tgt.html``, ``x.src.txt``."""
    name = PurePosixPath(member).name
    parts = name.split(".")
    for k in range(len(parts) - 1, 0, -1):
        tag = parts[k].lower()
        stem = ".".join(parts[:k])
        if tag in ("src", "source", source_language.lower()):
            return stem, "source"
        if tag in ("tgt", "target", target_language.lower()):
            return stem, "target"
    return name, None


def read_archive(
    data: bytes, *, filename: str, source_language: str, target_language: str
) -> list[ArchivePair]:
    """Document pairs in a zip, matched by file name. Every member must find its partner."""
    import io

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in archive.infolist() if not m.is_dir()]
    except (zipfile.BadZipFile, OSError) as exc:
        raise DocumentError(f"{filename}: not a readable zip archive ({exc})") from None
    if len(members) > MAX_ARCHIVE_MEMBERS:
        raise DocumentError(f"{filename}: {len(members)} files, more than {MAX_ARCHIVE_MEMBERS}")
    sides: dict[str, dict[str, Upload]] = {}
    for info in members:
        if PurePosixPath(info.filename).name.startswith("."):
            continue  # __MACOSX/._x, .DS_Store
        stem, role = _stem_and_role(info.filename, source_language, target_language)
        if role is None:
            raise DocumentError(
                f"{filename}: {info.filename} is neither a source nor a target (name files "
                f"x.{source_language} / x.{target_language}, or x.src.html / x.tgt.html)"
            )
        if info.file_size > MAX_DOCUMENT_BYTES:
            raise DocumentError(f"{filename}: {info.filename} is larger than a document may be")
        try:
            content = archive.read(info)
        except Exception as exc:  # CRC, deflate, encryption, unknown method: all a bad member
            raise DocumentError(f"{filename}: {info.filename} cannot be read ({exc})") from None
        language = source_language if role == "source" else target_language
        folder = str(PurePosixPath(info.filename).parent)
        key = stem if folder == "." else f"{folder}/{stem}"
        if role in sides.setdefault(key, {}):
            raise DocumentError(f"{filename}: two {role} files for {key}")
        sides[key][role] = Upload(info.filename, content, language)
    unmatched = sorted(
        f"{k} has no {'target' if 'source' in v else 'source'}"
        for k, v in sides.items()
        if len(v) != 2
    )
    if unmatched:
        raise DocumentError(f"{filename}: unmatched files: {'; '.join(unmatched[:10])}")
    if not sides:
        raise DocumentError(f"{filename}: no documents in the archive")
    return [ArchivePair(k, v["source"], v["target"]) for k, v in sorted(sides.items())]


def unique_names(names: Iterable[str], taken: set[str]) -> list[str]:
    out = []
    for name in names:
        candidate, k = name, 2
        while candidate in taken:
            candidate, k = f"{name} ({k})", k + 1
        taken.add(candidate)
        out.append(candidate)
    return out
