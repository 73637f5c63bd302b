"""Helpers every reader and writer shares: decoding, line splitting, link sets, pair checks.

SPEC §2: real files are dirty. Readers tolerate byte-order marks anywhere (U+FEFF is removed
from the whole text before anything else), CRLF line ends and trailing whitespace; they are
strict about everything that changes meaning, and every rejection is a ``FormatError`` naming
the file, the 1-based line and the reason.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from alignment_core.alignment import AlignedPair, Alignment, AlignmentError, Link
from alignment_core.formats import textcheck
from alignment_core.formats.errors import FormatError

BOM = "\ufeff"

# What a caller may hand a parser: raw bytes (decoded here), text, or a list of lines.
TextData = str | bytes | Sequence[str]
PathLike = str | os.PathLike[str]


def decode(data: TextData, *, encoding: str, name: str) -> str:
    """Bytes → text in ``encoding`` with every U+FEFF removed (BOMs at the start or mid-line).

    An undecodable byte is a FormatError naming the line it sits on and suggesting --encoding.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode(encoding)
        except LookupError:
            raise FormatError(f"unknown encoding {encoding!r}", file=name) from None
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            bad = data[exc.start : exc.end].hex(" ")
            raise FormatError(
                f"byte(s) {bad} are not valid {encoding}; if the file uses another encoding, "
                "pass it with --encoding (e.g. --encoding latin-1)",
                file=name,
                line=line,
            ) from None
    elif isinstance(data, str):
        text = data
    else:
        text = "\n".join(data)
    return text.replace(BOM, "") if BOM in text else text


def read_path(path: PathLike, *, encoding: str) -> str:
    """Read and decode a whole file (see ``decode``)."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise FormatError(f"cannot read file: {exc.strerror or exc}", file=name) from None
    return decode(data, encoding=encoding, name=name)


def streams_lines(encoding: str) -> bool:
    """Whether a file in ``encoding`` can be read a line at a time (``\\n`` is the byte 0x0A
    and no other character's bytes contain it: UTF-8, Latin-1 and other ASCII supersets; not
    UTF-16 or UTF-32). An unknown encoding is a FormatError, as ``decode`` says."""
    try:
        codec = codecs.lookup(encoding)
    except LookupError:
        return True  # the reader names the unknown encoding, with the file
    return codec.name not in _WIDE_CODECS and "\n".encode(codec.name) == b"\n"


_WIDE_CODECS = frozenset(("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"))


class LineReader:
    """A file read a line at a time, in constant memory: iterates ``(line number, line)`` as
    ``enumerate(split_lines(read_path(path)), 1)`` would give them (line ends and trailing
    whitespace removed, U+FEFF dropped). Only for encodings :func:`streams_lines` accepts. An
    undecodable byte is a FormatError naming its line, worded as ``decode`` words it.
    ``fraction`` is the share of the file's bytes read so far (for progress)."""

    def __init__(self, path: PathLike, *, encoding: str) -> None:
        self.path, self.name, self.encoding = path, str(path), encoding
        self.size = 0
        self.done = 0

    @property
    def fraction(self) -> float:
        return self.done / self.size if self.size else 1.0

    def __iter__(self) -> Iterator[tuple[int, str]]:
        try:
            decoder = codecs.getincrementaldecoder(self.encoding)()
        except LookupError:
            raise FormatError(f"unknown encoding {self.encoding!r}", file=self.name) from None
        try:
            fh = open(self.path, "rb")  # noqa: SIM115 - closed below, also on early exit
        except OSError as exc:
            raise FormatError(f"cannot read file: {exc.strerror or exc}", file=self.name) from None
        with fh:
            self.size = os.fstat(fh.fileno()).st_size
            number = 0
            for number, raw in enumerate(fh, 1):  # noqa: B007 - used after the loop
                self.done += len(raw)
                yield number, self._text(decoder, raw, number, final=False)
            tail = self._text(decoder, b"", number, final=True)
            if tail:  # a decoder holding bytes back at the end (a cut multi-byte character)
                yield number, tail

    def _text(self, decoder: Any, raw: bytes, number: int, *, final: bool) -> str:
        try:
            text = decoder.decode(raw, final)
        except UnicodeDecodeError as exc:
            bad = exc.object[exc.start : exc.end].hex(" ")
            raise FormatError(
                f"byte(s) {bad} are not valid {self.encoding}; if the file uses another "
                "encoding, pass it with --encoding (e.g. --encoding latin-1)",
                file=self.name,
                line=number,
            ) from None
        if BOM in text:
            text = text.replace(BOM, "")
        return text.rstrip()


def split_lines(text: str) -> list[str]:
    """Physical lines with line ends and trailing whitespace removed; item k is line k + 1.

    Only ``\\n`` ends a line (``\\r\\n`` too): ``str.splitlines`` would also break on U+0085
    and friends, which a Latin-1 file can legitimately contain.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


def drop_trailing_blank(lines: list[str]) -> list[str]:
    """Blank lines at the end of a file carry no meaning (editors add them)."""
    end = len(lines)
    while end and not lines[end - 1]:
        end -= 1
    return lines[:end]


def escape_bom(json_text: str) -> str:
    """Write U+FEFF inside JSON strings as ``\\ufeff``: readers drop every raw U+FEFF."""
    return json_text.replace(BOM, "\\ufeff") if BOM in json_text else json_text


class LinkSet:
    """Accumulates one pair's 0-based links, refusing a repeated cell or one marked S and P."""

    __slots__ = ("sure", "possible")

    def __init__(self) -> None:
        self.sure: set[Link] = set()
        self.possible: set[Link] = set()

    def add(self, i: int, j: int, sure: bool) -> None:
        """Add link (i, j); raise AlignmentError on a repeated cell."""
        cell = (i, j)
        if cell in self.sure or cell in self.possible:
            if (cell in self.sure) == sure:
                raise AlignmentError(f"duplicate link {i}-{j}")
            raise AlignmentError(f"link {i}-{j} is marked both sure and possible")
        (self.sure if sure else self.possible).add(cell)

    def alignment(self) -> Alignment:
        return Alignment(frozenset(self.sure), frozenset(self.possible))


class PairCollector:
    """Collects a file's pairs in order, checking what every format must satisfy.

    Each pair needs tokens on both sides, a non-empty id unique within the file, and an
    alignment (if any) inside its grid. Every string must be storable visible text (see
    ``textcheck``: no NUL, lone surrogate or control character, no invisible token) and
    metadata strict JSON; with ``max_tokens`` a sentence may have at most that many tokens.
    Errors name ``name`` and the pair's line. With ``normalize`` (a ``textcheck.Normalization``)
    the tokens are cleaned first (control characters removed, NFC), and counted there.
    """

    def __init__(
        self,
        name: str,
        *,
        max_tokens: int | None = None,
        normalize: textcheck.Normalization | None = None,
    ) -> None:
        self.name = name
        self.max_tokens = max_tokens
        self.normalize = normalize
        self.pairs: list[AlignedPair] = []
        self.lines: dict[str, int] = {}

    def add(self, pair: AlignedPair, line: int) -> None:
        self.check(pair, line)
        self.pairs.append(pair)

    def check(self, pair: AlignedPair, line: int) -> None:
        """Everything ``add`` checks, without keeping the pair (a streamed read keeps only the
        ids and their lines, for the duplicate check across the whole file)."""

        def fail(reason: str) -> FormatError:
            return FormatError(reason, file=self.name, line=line)

        if not pair.id:
            raise fail("empty pair id")
        if self.normalize is not None:
            pair.source, pair.target = self.normalize.clean_pair(pair.source, pair.target)
        if reason := textcheck.name_problem(pair.id, "pair id"):
            raise fail(reason)
        for side, tokens in (("source", pair.source), ("target", pair.target)):
            if not tokens:
                raise fail(
                    f"pair {pair.id!r}: empty {side} sentence (a pair needs tokens on both sides)"
                )
            if self.max_tokens is not None and len(tokens) > self.max_tokens:
                raise fail(
                    f"pair {pair.id!r}: the {side} sentence has {len(tokens)} tokens, more than "
                    f"the limit of {self.max_tokens} tokens a side"
                )
            if reason := textcheck.tokens_problem(tokens, side):
                raise fail(f"pair {pair.id!r}: {reason}")
        for what, value in (("subcorpus", pair.subcorpus), ("annotator", pair.annotator)):
            if value and (reason := textcheck.name_problem(value, what)):
                raise fail(f"pair {pair.id!r}: {reason}")
        if pair.metadata and (reason := textcheck.json_value_problem(pair.metadata, "metadata")):
            raise fail(f"pair {pair.id!r}: {reason}")
        first = self.lines.get(pair.id)
        if first is not None:
            raise fail(f"duplicate pair id {pair.id!r} (first seen on line {first})")
        if pair.alignment is not None:
            try:
                pair.alignment.validate(len(pair.source), len(pair.target))
            except AlignmentError as exc:
                raise fail(f"pair {pair.id!r}: {exc}") from None
        self.lines[pair.id] = line


# -- writer-side checks ---------------------------------------------------------------------


def check_tokens(pair: AlignedPair, fmt: str, *, forbidden: Iterable[str] = ()) -> None:
    """A whitespace-delimited format can only carry non-empty tokens without whitespace."""
    bad_words = set(forbidden)
    for side, tokens in (("source", pair.source), ("target", pair.target)):
        if not tokens:
            raise FormatError(f"cannot write pair {pair.id!r} as {fmt}: empty {side} sentence")
        for k, tok in enumerate(tokens):
            if not tok or tok != "".join(tok.split()) or BOM in tok:
                raise FormatError(
                    f"cannot write pair {pair.id!r} as {fmt}: {side} token {k} ({tok!r}) is "
                    "empty or contains whitespace"
                )
            if tok in bad_words:
                raise FormatError(
                    f"cannot write pair {pair.id!r} as {fmt}: {side} token {k} is {tok!r}, "
                    "which the format uses as a separator"
                )


def check_word_id(pair: AlignedPair, fmt: str, *, forbidden_chars: str = "") -> None:
    """Formats that put the id in a whitespace-separated field need an id without whitespace."""
    pid = pair.id
    if not pid or pid != "".join(pid.split()) or any(c in pid for c in forbidden_chars):
        raise FormatError(
            f"cannot write pair id {pid!r} as {fmt}: ids must be non-empty and contain no "
            f"whitespace{' or ' + ' '.join(forbidden_chars) if forbidden_chars else ''}"
        )


def sorted_links(alignment: Alignment | None) -> list[tuple[int, int, bool]]:
    """(i, j, is_sure) sorted by (i, j); an absent alignment has no links."""
    if alignment is None:
        return []
    out = [(i, j, True) for i, j in alignment.sure] + [(i, j, False) for i, j in alignment.possible]
    out.sort()
    return out


# -- output files ----------------------------------------------------------------------------


class OutputFiles:
    """Files being written: a path goes to ``.name.tmp-PID`` until ``commit`` renames it."""

    def __init__(self) -> None:
        self._files: list[tuple[TextIO, Path, Path]] = []
        self.first_name = "<output>"

    def open(self, dest: PathLike | TextIO) -> TextIO:
        if hasattr(dest, "write"):
            return dest  # type: ignore[return-value]
        final = Path(dest)  # type: ignore[arg-type]
        if not self._files:
            self.first_name = str(final)
        tmp = final.with_name(f".{final.name}.tmp-{os.getpid()}")
        try:
            fh = open(tmp, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        except OSError as exc:
            raise FormatError(f"cannot write: {exc.strerror or exc}", file=str(final)) from None
        self._files.append((fh, tmp, final))
        return fh

    def commit(self) -> None:
        for fh, tmp, final in self._files:
            fh.close()
            os.replace(tmp, final)

    def abort(self) -> None:
        for fh, tmp, _ in self._files:
            fh.close()
            tmp.unlink(missing_ok=True)
