"""Uploaded documents → sentences (issue 33). Pure functions of bytes and options; nothing here
writes. A file that cannot be read raises ``DocumentError`` naming the file and the place.

Formats: ``html`` (main text by blocks, lxml; each sentence keeps its block for the aligner's
anchors), ``lines`` (one sentence per line, taken as it is), ``text`` (raw text, split per
language by pysbd). ``auto`` picks HTML by name or content, then ``lines`` when the text has
no blank line (a paragraph break is how raw text shows it was not split already).
"""

from __future__ import annotations

import codecs
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from alignment_core.formats.msrp import tokenize  # the grid's tokens of running text
from alignment_core.sentalign.pairing import PairingError, is_hidden, match_by_name
from alignment_core.sentalign.split import (
    SplitError,
    html_sentences,
    lines_as_sentences,
    looks_like_html,
    split_text,
)
from annotator.corpora.services.zip_members import READ_ERRORS, describe

ArchiveFile = Path | BinaryIO  # a zip on disk, or open

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
    """A document pair of a zip: its name and its two members (names in the archive)."""

    name: str
    source: str
    target: str


def list_archive(
    archive: ArchiveFile, *, filename: str, source_language: str, target_language: str
) -> list[ArchivePair]:
    """Document pairs in a zip (a path or a binary file), matched by file name from the
    archive's directory alone (``alignment_core.sentalign.pairing``, the rule ``sentalign``'s
    directories follow too): no member is read here (``read_member`` reads one when it is
    needed). Every member must find its partner; one the archive declares bigger than a
    document may be is refused here too."""
    try:
        with zipfile.ZipFile(archive) as opened:
            members = [m for m in opened.infolist() if not m.is_dir()]
    except READ_ERRORS as exc:
        raise DocumentError(f"{filename}: not a readable zip archive ({describe(exc)})") from None
    if len(members) > MAX_ARCHIVE_MEMBERS:
        raise DocumentError(f"{filename}: {len(members)} files, more than {MAX_ARCHIVE_MEMBERS}")
    for info in members:
        if info.file_size > MAX_DOCUMENT_BYTES and not is_hidden(info.filename):
            raise DocumentError(f"{filename}: {info.filename} is larger than a document may be")
    try:
        pairs = match_by_name(
            ((m.filename, None) for m in members),
            source_language=source_language,
            target_language=target_language,
        )
    except PairingError as exc:
        raise DocumentError(f"{filename}: {exc}") from None
    if not pairs:
        raise DocumentError(f"{filename}: no documents in the archive")
    return [ArchivePair(p.name, p.source, p.target) for p in pairs]


def read_member(archive: ArchiveFile, member: str, *, filename: str, language: str) -> Upload:
    """One member of a zip as an Upload named by the member. The bytes actually extracted
    count against the limit (a bomb declares small sizes); a member that cannot be read (CRC,
    deflate, encryption, unknown method) is a DocumentError naming the archive and member."""
    chunks: list[bytes] = []
    size = 0
    try:
        with zipfile.ZipFile(archive) as opened, opened.open(member) as stream:
            while chunk := stream.read(1 << 20):
                size += len(chunk)
                if size > MAX_DOCUMENT_BYTES:
                    raise DocumentError(
                        f"{filename}: {member} is larger than a document may be "
                        f"({MAX_DOCUMENT_BYTES:,} bytes)"
                    )
                chunks.append(chunk)
    except (KeyError, *READ_ERRORS) as exc:
        raise DocumentError(f"{filename}: {member} cannot be read ({describe(exc)})") from None
    return Upload(member, b"".join(chunks), language)


def check_text_file(path: Path, *, filename: str) -> None:
    """What ``decode`` refuses, checked on a stored file without holding it: more than a
    document may have, NUL bytes at its head (binary), or bytes that are not UTF-8 (with the
    offset and line of the first one, as ``decode`` words it). Reads 1 MB at a time."""
    size = path.stat().st_size
    if size > MAX_DOCUMENT_BYTES:
        raise DocumentError(
            f"{filename}: {size:,} bytes, more than the {MAX_DOCUMENT_BYTES:,} a document may have"
        )
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = lines = 0
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(1 << 20)
            if offset == 0 and b"\x00" in chunk[:8192]:
                raise DocumentError(f"{filename}: a binary file (NUL bytes), not text or HTML")
            pending = decoder.getstate()[0]  # an unfinished character from the last chunk
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                data = pending + chunk
                where = offset - len(pending) + exc.start
                line = lines + data[: exc.start].count(b"\n") + 1
                raise DocumentError(
                    f"{filename}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                    f"{where}, line {line}); save it as UTF-8"
                ) from None
            if not chunk:
                return
            offset += len(chunk)
            lines += chunk.count(b"\n")


def unique_names(names: Iterable[str], taken: set[str]) -> list[str]:
    out = []
    for name in names:
        candidate, k = name, 2
        while candidate in taken:
            candidate, k = f"{name} ({k})", k + 1
        taken.add(candidate)
        out.append(candidate)
    return out
