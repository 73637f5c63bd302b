"""Readers and writers for the alignment file formats of SPEC §2.

Every reader returns ``list[AlignedPair]`` with 0-based links (whatever base the file uses) and
either succeeds completely or raises one ``FormatError`` naming the file, the 1-based line and
the reason. Writers yield text chunks so an HTTP export can stream them.

Formats (``FORMATS``): ``pharaoh``, ``naacl`` (links only: the sentences come from elsewhere),
``giza-a3``, ``jsonl``, ``edinburgh`` (sentences and links), ``tsv``, ``parallel``, ``bitext``
(sentences only: ``alignment=None``).

Where pharaoh / naacl get their sentences, in ``read_pairs``:

* ``source_text=`` and ``target_text=``: two files, one sentence per line (pair n = line n,
  id ``str(n)``); or
* ``source_text=`` alone: a text-pair file (tsv, bitext, jsonl, edinburgh or giza-a3; format
  from ``text_format=``, its extension, or its first line), which also supplies ids, subcorpus
  and metadata. NAACL pair ids are matched against those ids.

``parse_pairs`` takes the same from memory: ``source_lines`` / ``target_lines`` (bytes, text or
a list of lines) or ``text_pairs`` (already-read pairs).

The ``parallel`` format is two files: ``read_pairs(src, "parallel", target_text=tgt)``,
``parse_pairs(src_data, "parallel", target_lines=tgt_data)`` and
``write_pairs(pairs, src, "parallel", target_text=tgt)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from alignment_core.alignment import AlignedPair
from alignment_core.formats import edinburgh, giza_a3, jsonl, msrp, naacl, pharaoh, textpairs
from alignment_core.formats._io import (
    LineReader,
    OutputFiles,
    PairCollector,
    PathLike,
    TextData,
    decode,
    read_path,
    streams_lines,
)
from alignment_core.formats.edinburgh import edinburgh_id_info
from alignment_core.formats.errors import FormatError
from alignment_core.formats.textcheck import Normalization
from alignment_core.formats.textpairs import format_sentences
from alignment_core.progress import Progress

__all__ = [
    "FORMATS",
    "FormatError",
    "FormatInfo",
    "Normalization",
    "edinburgh_id_info",
    "format_pairs",
    "format_sentences",
    "guess_format",
    "iter_pair_chunks",
    "parse_pairs",
    "read_pairs",
    "write_pairs",
]

Writer = Callable[[Iterable[AlignedPair]], Iterator[str]]


@dataclass(frozen=True)
class FormatInfo:
    """What a format carries and how to name a file of it."""

    name: str
    description: str
    carries_text: bool  # the file holds the sentences
    carries_alignment: bool  # the file holds links
    extension: str  # suggested extension for an export
    media_type: str
    writer: Writer | None  # None: "parallel", which writes two files (see write_pairs)

    @property
    def needs_text(self) -> bool:
        """Reading it needs the sentences from elsewhere (pharaoh, naacl)."""
        return not self.carries_text


_P, _J = "text/plain", "application/json"
FORMATS: dict[str, FormatInfo] = {
    f.name: f
    for f in (
        # name, description, carries_text, carries_alignment, extension, media type, writer
        FormatInfo("pharaoh", "0-based i-j / i?j links, a line per pair", False, True,
                   ".pharaoh", _P, pharaoh.format_pharaoh),
        FormatInfo("naacl", "'pairid i j S|P' per link, 1-based", False, True,
                   ".naacl", _P, naacl.format_naacl),
        FormatInfo("giza-a3", "GIZA++ A3 records, 1-based", True, True,
                   ".A3", _P, giza_a3.format_giza_a3),
        FormatInfo("jsonl", "a JSON object per pair, 0-based (lossless)", True, True,
                   ".jsonl", "application/x-ndjson", jsonl.format_jsonl),
        FormatInfo("edinburgh", "Edinburgh++ JSON array, 0-based", True, True,
                   ".json", _J, edinburgh.format_edinburgh),
        FormatInfo("tsv", "id<TAB>source<TAB>target (header honoured)", True, False,
                   ".tsv", "text/tab-separated-values", textpairs.format_tsv),
        FormatInfo("parallel", "two files, a sentence per line", True, False,
                   ".txt", _P, None),
        FormatInfo("bitext", "'id ||| source ||| target' lines", True, False,
                   ".bitext", _P, textpairs.format_bitext),
        FormatInfo("msrp", "MSR Paraphrase Corpus: Quality, two ids, two strings (tab-separated)",
                   True, False, ".msrp", "text/tab-separated-values", msrp.format_pairs),
    )
}  # fmt: skip

_EXTENSIONS = (  # checked in order, on the lower-cased file name
    (".jsonl", "jsonl"),
    (".json", "edinburgh"),
    (".align.txt", "giza-a3"),
    (".a3", "giza-a3"),
    (".tsv", "tsv"),
    (".bitext", "bitext"),
    (".msrp", "msrp"),
    (".pharaoh", "pharaoh"),
    (".talp", "pharaoh"),
    (".align", "pharaoh"),
    (".naacl", "naacl"),
    (".wa", "naacl"),
)
_GIZA_OUTPUT = re.compile(r"\.a3\.[^.]+$")  # GIZA's own names: corpus.A3.final, *.A3.5


def guess_format(path: PathLike) -> str | None:
    """The format a file name suggests, or None (extensions listed in ``_EXTENSIONS``)."""
    name = Path(path).name.lower()
    for suffix, fmt in _EXTENSIONS:
        if name.endswith(suffix):
            return fmt
    return "giza-a3" if _GIZA_OUTPUT.search(name) else None


def _info(fmt: str) -> FormatInfo:
    try:
        return FORMATS[fmt]
    except KeyError:
        raise FormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}") from None


# -- reading --------------------------------------------------------------------------------


def parse_pairs(
    data: TextData,
    fmt: str,
    *,
    name: str = "<input>",
    encoding: str = "utf-8",
    source_lines: TextData | None = None,
    target_lines: TextData | None = None,
    source_name: str = "<source>",
    target_name: str = "<target>",
    text_pairs: Sequence[AlignedPair] | None = None,
    text_name: str = "<text>",
    sure_data: TextData | None = None,
    sure_name: str = "<sure>",
    subcorpus: str | None = None,
    max_tokens: int | None = None,
    normalize: Normalization | None = None,
) -> list[AlignedPair]:
    """Parse pairs held in memory (bytes are decoded with ``encoding``); links are 0-based.

    ``name`` (and ``source_name``, ...) are what error messages call each input. pharaoh and
    naacl need ``source_lines`` + ``target_lines`` or ``text_pairs``; ``parallel`` takes its
    target side as ``target_lines``; ``sure_data`` is the Edinburgh sure-only file. Pairs
    without a subcorpus get ``subcorpus``. With ``max_tokens``, a sentence longer than that
    (either side) is an error naming its line. A token with a control character is an error
    too, unless ``normalize`` (a ``Normalization``) cleans the tokens (control characters
    removed, NFC) and counts what it changed.
    """
    limit: dict[str, Any] = {"max_tokens": max_tokens, "normalize": normalize}
    info = _info(fmt)
    text = decode(data, encoding=encoding, name=name)
    if sure_data is not None and fmt != "edinburgh":
        raise FormatError(
            f"a separate sure-links file only applies to edinburgh, not {fmt}", file=name
        )
    if fmt == "parallel":
        if target_lines is None or source_lines is not None or text_pairs is not None:
            raise FormatError(
                "parallel needs exactly one target file besides the source file", file=name
            )
        target = decode(target_lines, encoding=encoding, name=target_name)
        pairs = textpairs.parse_parallel(text, name, target, target_name, **limit)
    elif info.needs_text:
        if text_pairs is not None and (source_lines is not None or target_lines is not None):
            raise FormatError(
                "pass either text_pairs or source_lines/target_lines, not both", file=name
            )
        if text_pairs is None:
            text_pairs, text_name = _text_of(
                fmt, name, encoding, source_lines, target_lines, source_name, target_name, limit
            )
        parse = pharaoh.parse if fmt == "pharaoh" else naacl.parse
        pairs = parse(text, name, text_pairs, text_name, **limit)
    else:
        if source_lines is not None or target_lines is not None or text_pairs is not None:
            raise FormatError(
                f"{fmt} files carry their own sentences: drop the text files", file=name
            )
        pairs = _parse_self_contained(text, fmt, name, encoding, sure_data, sure_name, limit)
    return _with_subcorpus(pairs, subcorpus)


def _with_subcorpus(pairs: list[AlignedPair], subcorpus: str | None) -> list[AlignedPair]:
    """``pairs``, those without a subcorpus given ``subcorpus`` (if any)."""
    if subcorpus:
        for pair in pairs:
            if not pair.subcorpus:
                pair.subcorpus = subcorpus
    return pairs


def _text_of(fmt, name, encoding, source_lines, target_lines, source_name, target_name, limit):
    """The sentence pairs a links-only format (pharaoh, naacl) reads its links against, from
    the two one-sentence-a-line files, and what errors call them."""
    if source_lines is None or target_lines is None:
        raise FormatError(
            f"{fmt} files carry no sentences: give a source text and a target text (one "
            "sentence per line), or a source text of pairs (tsv, bitext or jsonl)",
            file=name,
        )
    text_pairs = textpairs.parse_parallel(
        decode(source_lines, encoding=encoding, name=source_name),
        source_name,
        decode(target_lines, encoding=encoding, name=target_name),
        target_name,
        **limit,
    )
    return text_pairs, f"{source_name} + {target_name}"


def _parse_self_contained(text, fmt, name, encoding, sure_data, sure_name, limit):
    """The pairs of a format that carries its own sentences (edinburgh with its optional
    sure-only file, giza-a3, jsonl, tsv, bitext)."""
    if fmt == "edinburgh":
        sure = None if sure_data is None else decode(sure_data, encoding=encoding, name=sure_name)
        return edinburgh.parse(text, name, sure, sure_name, **limit)
    return {
        "giza-a3": giza_a3.parse,
        "jsonl": jsonl.parse,
        "tsv": textpairs.parse_tsv,
        "bitext": textpairs.parse_bitext,
        "msrp": msrp.parse_pairs,
    }[fmt](text, name, **limit)


def read_pairs(
    path: PathLike,
    fmt: str | None = None,
    *,
    encoding: str = "utf-8",
    source_text: PathLike | None = None,
    target_text: PathLike | None = None,
    sure_path: PathLike | None = None,
    subcorpus: str | None = None,
    text_format: str | None = None,
    max_tokens: int | None = None,
    normalize: Normalization | None = None,
) -> list[AlignedPair]:
    """Read a whole file of pairs (links 0-based). ``fmt=None`` guesses from the extension.

    pharaoh / naacl: ``source_text`` + ``target_text`` (one sentence per line each) or
    ``source_text`` alone as a text-pair file (``text_format`` or guessed). parallel:
    ``path`` is the source side and ``target_text`` the target side. edinburgh: ``sure_path``
    is the sure-only file when ``path`` is the sure+possible file. ``max_tokens``: see
    ``parse_pairs``; so is ``normalize``.
    """
    name = str(path)
    if fmt is None:
        fmt = guess_format(path)
        if fmt is None:
            raise FormatError(
                f"cannot tell the format from the file name; pass --from ({', '.join(FORMATS)})",
                file=name,
            )
    info = _info(fmt)
    limit: dict[str, Any] = {"max_tokens": max_tokens, "normalize": normalize}
    kwargs: dict = {}
    if info.needs_text and source_text is not None and target_text is None:
        text_fmt = text_format or guess_format(source_text) or _sniff_text_format(source_text)
        if not _info(text_fmt).carries_text or text_fmt == "parallel":
            raise FormatError(
                f"a {text_fmt} file cannot supply sentences; pass --target-text as well",
                file=str(source_text),
            )
        kwargs["text_pairs"] = read_pairs(source_text, text_fmt, encoding=encoding, **limit)
        kwargs["text_name"] = str(source_text)
    else:
        if source_text is not None:
            kwargs["source_lines"] = read_path(source_text, encoding=encoding)
            kwargs["source_name"] = str(source_text)
        if target_text is not None:
            kwargs["target_lines"] = read_path(target_text, encoding=encoding)
            kwargs["target_name"] = str(target_text)
    if sure_path is not None:
        kwargs["sure_data"] = read_path(sure_path, encoding=encoding)
        kwargs["sure_name"] = str(sure_path)
    text = read_path(path, encoding=encoding)
    return parse_pairs(text, fmt, name=name, subcorpus=subcorpus, **limit, **kwargs)


# Formats read a line at a time by ``iter_pair_chunks`` (others are read whole).
STREAMED_FORMATS = ("jsonl", "tsv")
CHUNK_PAIRS = 5000


def iter_pair_chunks(
    path: PathLike,
    fmt: str | None = None,
    *,
    chunk_size: int = CHUNK_PAIRS,
    encoding: str = "utf-8",
    source_text: PathLike | None = None,
    target_text: PathLike | None = None,
    sure_path: PathLike | None = None,
    subcorpus: str | None = None,
    text_format: str | None = None,
    max_tokens: int | None = None,
    normalize: Normalization | None = None,
    progress: Progress | None = None,
) -> Iterator[list[AlignedPair]]:
    """``read_pairs`` in lists of at most ``chunk_size`` pairs, for inputs too big to hold.

    jsonl and tsv files (``STREAMED_FORMATS``, in an encoding where a line ends at byte 0x0A)
    are read a line at a time: memory holds one chunk, plus each id and its line for the
    duplicate check. Every pair is checked as ``read_pairs`` checks it, but an error is raised
    when its line is reached, after the chunks before it were yielded: a caller that must be
    all or nothing writes the chunks inside one transaction. Other formats (and other
    encodings) are read whole and yielded as one list. An empty input yields nothing.
    ``progress(fraction, message)``, if given, is told the share of the file read before each
    chunk is yielded. ``normalize``: as in ``read_pairs``. Further keyword options may be added (keyword-only, all defaulted).
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    fmt = fmt or guess_format(path)
    streamed = (
        fmt in STREAMED_FORMATS
        and source_text is None
        and target_text is None
        and sure_path is None
        and streams_lines(encoding)
    )
    if not streamed:
        pairs = read_pairs(path, fmt, encoding=encoding, source_text=source_text,
                           target_text=target_text, sure_path=sure_path, subcorpus=subcorpus,
                           text_format=text_format, max_tokens=max_tokens,
                           normalize=normalize)  # fmt: skip
        if progress is not None:
            progress(1.0, f"read {len(pairs)} pairs")
        if pairs:
            yield pairs
        return
    limit = {"max_tokens": max_tokens, "normalize": normalize}
    yield from _streamed_chunks(path, fmt, chunk_size, encoding, subcorpus, limit, progress)


def _streamed_chunks(path, fmt, chunk_size, encoding, subcorpus, limit, progress):
    name = str(path)
    lines = LineReader(path, encoding=encoding)
    checks = PairCollector(name, **limit)
    numbered = jsonl.iter_pairs(lines, name) if fmt == "jsonl" else textpairs.iter_tsv(lines, name)
    chunk: list[AlignedPair] = []
    read = 0
    for number, pair in numbered:
        checks.check(pair, number)
        chunk.append(pair)
        if len(chunk) >= chunk_size:
            read += len(chunk)
            if progress is not None:
                progress(lines.fraction, f"read {read} pairs")
            yield _with_subcorpus(chunk, subcorpus)
            chunk = []
    if progress is not None:
        progress(1.0, f"read {read + len(chunk)} pairs")
    if chunk:
        yield _with_subcorpus(chunk, subcorpus)


def _sniff_text_format(path: PathLike) -> str:
    try:
        with open(path, "rb") as fh:
            head = fh.read(65536)
    except OSError as exc:
        raise FormatError(f"cannot read file: {exc.strerror or exc}", file=str(path)) from None
    first = next((ln for ln in head.split(b"\n") if ln.strip()), b"")
    if b"|||" in first:
        return "bitext"
    if b"\t" in first:
        return "tsv"
    raise FormatError(
        "cannot tell the format of this text file; pass --text-format (tsv, bitext, jsonl, ...)",
        file=str(path),
    )


# -- writing --------------------------------------------------------------------------------


def format_pairs(pairs: Iterable[AlignedPair], fmt: str) -> Iterator[str]:
    """Text chunks (one per pair, plus any header/footer) of ``pairs`` written as ``fmt``.

    ``parallel`` writes two files: use ``format_sentences(pairs, "source" | "target")``.
    A pair a format cannot represent raises FormatError while iterating.
    """
    writer = _info(fmt).writer
    if writer is None:
        raise FormatError(
            'parallel text is two files: use format_sentences(pairs, "source"|"target") '
            "or write_pairs(..., target_text=...)"
        )
    return _named_errors(writer(pairs), "<output>")


def _named_errors(chunks: Iterator[str], name: str) -> Iterator[str]:
    try:
        yield from chunks
    except FormatError as exc:
        if exc.file is not None:
            raise
        raise FormatError(exc.reason, file=name, line=exc.line) from None


def write_pairs(
    pairs: Iterable[AlignedPair],
    path_or_textio: PathLike | TextIO,
    fmt: str,
    *,
    source_text: PathLike | TextIO | None = None,
    target_text: PathLike | TextIO | None = None,
) -> None:
    """Write ``pairs`` as ``fmt`` (UTF-8, ``\\n`` line ends) in one pass.

    ``source_text`` / ``target_text``: also write the sentences, one per line (useful beside
    pharaoh / naacl, whose files hold no text). For ``parallel``, ``path_or_textio`` is the
    source side and ``target_text`` is required. Paths are written to a temporary file and
    renamed at the end, so a failed write leaves no half-written file behind.
    """
    info = _info(fmt)
    if fmt == "parallel":
        if target_text is None or source_text is not None:
            raise FormatError("parallel output needs the target file (target_text=) only")
        source_text, path_or_textio = path_or_textio, None  # type: ignore[assignment]
    elif (source_text is None) != (target_text is None):
        raise FormatError("pass both source_text and target_text, or neither")
    outputs = OutputFiles()
    try:
        main = outputs.open(path_or_textio) if path_or_textio is not None else None
        sides = [
            (outputs.open(dest), side)
            for dest, side in ((source_text, "source"), (target_text, "target"))
            if dest is not None
        ]

        def with_sentences(items: Iterable[AlignedPair]) -> Iterator[AlignedPair]:
            for pair in items:
                for fh, side in sides:
                    fh.writelines(format_sentences((pair,), side))
                yield pair

        stream = with_sentences(pairs)
        if main is None:
            for _ in stream:
                pass
        else:
            assert info.writer is not None
            main.writelines(info.writer(stream))
    except FormatError as exc:
        outputs.abort()
        if exc.file is not None:
            raise
        raise FormatError(exc.reason, file=outputs.first_name, line=exc.line) from None
    except BaseException:
        outputs.abort()
        raise
    outputs.commit()
