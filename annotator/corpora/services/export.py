"""Gold export: a project's gold alignments in any alignment format of SPEC §2, streamed.

Rows come from one ``iterator()`` query (a server-side cursor on PostgreSQL) and go through
the format writers of ``alignment_core.formats`` a pair at a time, so memory stays flat
whatever the corpus size. Trial pairs are left out unless asked for (they are never gold
for evaluation); when included they carry ``metadata["trial"] = true``, which an import reads
back as the trial flag.

pharaoh and naacl hold links only, so they come as a zip of the links file, a TSV of the pairs
(ids, subcorpus, metadata: what a re-import needs) and the two sides one sentence per line; or,
with ``text=``, just one of those text files. giza-a3 has no field for the subcorpus: export
one subcorpus at a time to keep it.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from alignment_core import AlignedPair
from alignment_core.formats import FORMATS, format_pairs, format_sentences
from annotator.links import to_alignment
from annotator.models import GoldAlignment, Project

EXPORT_FORMATS = ("jsonl", "pharaoh", "naacl", "giza-a3")
TEXT_CHOICES = ("source", "target", "pairs")  # pairs = the TSV (id, source, target, ...)
CHUNK_ROWS = 2000
FLUSH_BYTES = 256 * 1024


@dataclass(frozen=True)
class ExportOptions:
    fmt: str
    subcorpus: str | None = None  # None: all; "" : pairs without a subcorpus
    include_trial: bool = False
    text: str | None = None  # pharaoh/naacl: one text file instead of the zip

    @property
    def is_zip(self) -> bool:
        return FORMATS[self.fmt].needs_text and self.text is None


def check_options(*, project: Project, options: ExportOptions) -> None:
    """Raise ValueError naming the bad option (before any byte is sent)."""
    if options.fmt not in EXPORT_FORMATS:
        raise ValueError(
            f"format: {options.fmt!r} is not an export format; choose one of "
            f"{', '.join(EXPORT_FORMATS)}"
        )
    if options.text is not None:
        if options.text not in TEXT_CHOICES:
            raise ValueError(f"text: choose one of {', '.join(TEXT_CHOICES)}, not {options.text!r}")
        if not FORMATS[options.fmt].needs_text:
            raise ValueError(f"text: {options.fmt} files carry their own sentences")
    if options.subcorpus and not project.subcorpora.filter(name=options.subcorpus).exists():
        raise ValueError(
            f"subcorpus: project {project.name!r} has no subcorpus {options.subcorpus!r}"
        )


def gold_pairs(
    *, project: Project, subcorpus: str | None = None, include_trial: bool = False
) -> Iterator[AlignedPair]:
    """The project's gold pairs in import order, as AlignedPairs (links 0-based)."""
    rows = GoldAlignment.objects.filter(pair__project=project)
    if not include_trial:
        rows = rows.filter(pair__is_trial=False)
    if subcorpus == "":
        rows = rows.filter(pair__subcorpus__isnull=True)
    elif subcorpus is not None:
        rows = rows.filter(pair__subcorpus__name=subcorpus)
    values = rows.order_by("pair__position", "pair_id").values_list(
        "pair__external_id",
        "pair__subcorpus__name",
        "pair__source_tokens",
        "pair__target_tokens",
        "pair__is_trial",
        "pair__metadata",
        "links",
    )
    for pid, sub, source, target, trial, metadata, links in values.iterator(chunk_size=CHUNK_ROWS):
        metadata = dict(metadata or {})
        if trial:
            metadata["trial"] = True
        yield AlignedPair(
            id=pid,
            source=source,
            target=target,
            alignment=to_alignment(links),
            subcorpus=sub or "",
            metadata=metadata,
        )


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "project"


def file_name(*, project: Project, options: ExportOptions, today: dt.date | None = None) -> str:
    """``<project>-gold[-<subcorpus>]-<YYYY-MM-DD>.<ext>`` (zip, or the text file's)."""
    today = today or dt.date.today()
    base = f"{_slug(project.name)}-gold"
    if options.subcorpus:
        base += f"-{_slug(options.subcorpus)}"
    base += f"-{today.isoformat()}"
    if options.is_zip:
        return base + ".zip"
    if options.text in ("source", "target"):
        return f"{base}.{options.text}.txt"
    if options.text == "pairs":
        return base + ".tsv"
    return base + FORMATS[options.fmt].extension


def media_type(options: ExportOptions) -> str:
    if options.is_zip:
        return "application/zip"
    if options.text == "pairs":
        return "text/tab-separated-values; charset=utf-8"
    if options.text:
        return "text/plain; charset=utf-8"
    return FORMATS[options.fmt].media_type + "; charset=utf-8"


def _text_chunks(pairs: Iterable[AlignedPair], options: ExportOptions) -> Iterator[str]:
    if options.text in ("source", "target"):
        return format_sentences(pairs, options.text)
    if options.text == "pairs":
        return format_pairs(pairs, "tsv")
    return format_pairs(pairs, options.fmt)


def _batched(chunks: Iterable[str]) -> Iterator[bytes]:
    """Encode and group small chunks into pieces of about FLUSH_BYTES."""
    buffer: list[bytes] = []
    size = 0
    for chunk in chunks:
        data = chunk.encode("utf-8")
        buffer.append(data)
        size += len(data)
        if size >= FLUSH_BYTES:
            yield b"".join(buffer)
            buffer, size = [], 0
    if buffer:
        yield b"".join(buffer)


class _Sink(io.RawIOBase):
    """A write-only, unseekable stream that hands its bytes on (zipfile then writes data
    descriptors, so the archive can be streamed)."""

    def __init__(self) -> None:
        self._chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:  # type: ignore[override]
        self._chunks.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        out = b"".join(self._chunks)
        self._chunks.clear()
        return out


def _zip_chunks(*, project: Project, options: ExportOptions, base: str) -> Iterator[bytes]:
    """The links file, the pairs TSV and the two sides, one pass over the gold each."""
    members = [
        (f"{base}{FORMATS[options.fmt].extension}", None),
        (f"{base}.tsv", "pairs"),
        (f"{base}.source.txt", "source"),
        (f"{base}.target.txt", "target"),
    ]
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in members:
            pairs = gold_pairs(
                project=project, subcorpus=options.subcorpus, include_trial=options.include_trial
            )
            with archive.open(name, "w", force_zip64=True) as member:
                for piece in _batched(_text_chunks(pairs, ExportOptions(options.fmt, text=text))):
                    member.write(piece)
                    yield sink.take()
            yield sink.take()
    yield sink.take()


def export_chunks(
    *, project: Project, options: ExportOptions, today: dt.date | None = None
) -> Iterator[bytes]:
    """The export's bytes, in pieces. Call ``check_options`` and ``precheck`` first."""
    if options.is_zip:
        base = file_name(project=project, options=options, today=today).removesuffix(".zip")
        yield from (
            piece for piece in _zip_chunks(project=project, options=options, base=base) if piece
        )
        return
    pairs = gold_pairs(
        project=project, subcorpus=options.subcorpus, include_trial=options.include_trial
    )
    yield from _batched(_text_chunks(pairs, options))


def precheck(*, project: Project, options: ExportOptions) -> None:
    """Run the writers once without keeping their output, so a pair a format cannot carry
    (an id with spaces in naacl, parentheses in giza-a3, ...) is refused (FormatError) before
    a response starts rather than in the middle of a download. JSONL can carry any pair."""
    if options.fmt == "jsonl" and options.text is None:
        return
    kinds = [None, "pairs", "source", "target"] if options.is_zip else [options.text]
    for text in kinds:
        pairs = gold_pairs(
            project=project, subcorpus=options.subcorpus, include_trial=options.include_trial
        )
        for _ in _text_chunks(pairs, ExportOptions(options.fmt, text=text)):
            pass


def prepare_export(*, project: Project, options: ExportOptions) -> None:
    """Everything that can refuse an export, before its first byte (the API and
    ``manage.py export_gold``): ValueError naming a bad option, FormatError naming a pair the
    format cannot carry (FormatError is a ValueError)."""
    check_options(project=project, options=options)
    precheck(project=project, options=options)
