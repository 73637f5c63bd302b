"""The Edinburgh++ paraphrase-alignment release (Cohn et al. 2008; Thadani et al. 2012).

A JSON array of ``{"id", "name", "source", "target", "sureAlign", "possibleAlign"}``: sentences
are space-separated token strings, links are space-separated 0-based ``i-j`` (source-target).
The id prefix tells subcorpus and annotation: ``mtc-common:12`` (doubly annotated),
``news-A:3`` / ``news-C:3`` (one annotator), ``mtc-trial:7`` (the annotators' trial set).
Reading sets ``subcorpus``, ``metadata["annotation"]`` and, for trial pairs,
``metadata["trial"] = True``; a ``name`` different from the id is kept in ``metadata["name"]``.
Other keys of an entry are ignored.

The release ships sure-only and sure+possible files whose ``possibleAlign`` is empty; read the
sure+possible file with ``sure_text`` = the sure-only file to get possible = (sure+poss) − sure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from alignment_core.alignment import AlignedPair, Alignment, AlignmentError
from alignment_core.formats import textcheck
from alignment_core.formats._io import BOM, LinkSet, PairCollector, check_tokens, escape_bom
from alignment_core.formats.errors import FormatError
from alignment_core.formats.textcheck import Normalization

_ID = re.compile(r"([^\s:-]+)-([^\s:-]+):")
_LINK = re.compile(r"(\d+)-(\d+)")
_WS = re.compile(r"[ \t\r\n]*")


def edinburgh_id_info(pair_id: str) -> tuple[str, bool]:
    """(subcorpus, is_trial) from an Edinburgh-style id: ``mtc-trial:7`` → ("mtc", True).

    An id without the ``subcorpus-annotation:`` prefix gives ("", False).
    """
    m = _ID.match(pair_id)
    if m is None:
        return "", False
    return m[1], m[2] == "trial"


def _annotation(pair_id: str) -> str | None:
    m = _ID.match(pair_id)
    return m[2] if m else None


def _entries(text: str, name: str) -> Iterator[tuple[int, Any]]:
    """(1-based line where the entry starts, decoded entry) for each item of the top array."""

    def fail(reason: str, pos: int) -> FormatError:
        return FormatError(reason, file=name, line=text.count("\n", 0, pos) + 1)

    pos = _WS.match(text).end()
    if pos >= len(text) or text[pos] != "[":
        raise fail("invalid JSON: expected an array '[' of pairs", pos)
    pos = _WS.match(text, pos + 1).end()
    line, counted = 1, 0
    if pos < len(text) and text[pos] == "]":
        pos += 1
    else:
        while True:
            try:
                obj, end = textcheck.decode_json(text, pos, whole=False)
            except textcheck.JSONProblem as exc:
                if exc.lineno is None:
                    raise fail(str(exc), pos) from None
                raise FormatError(
                    f"{exc} (column {exc.colno})", file=name, line=exc.lineno
                ) from None
            line += text.count("\n", counted, pos)
            counted = pos
            yield line, obj
            pos = _WS.match(text, end).end()
            if pos < len(text) and text[pos] == ",":
                pos = _WS.match(text, pos + 1).end()
                continue
            if pos < len(text) and text[pos] == "]":
                pos += 1
                break
            raise fail("invalid JSON: expected ',' or ']' after an entry", pos)
    pos = _WS.match(text, pos).end()
    if pos != len(text):
        raise fail("invalid JSON: extra data after the array", pos)


def _field(obj: dict[str, Any], key: str, pid: str | None, *, required: bool = True) -> str:
    value = obj.get(key)
    if value is None and not required:
        return ""
    who = f"pair {pid!r}: " if pid else ""
    if value is None:
        raise ValueError(f"{who}missing field {key!r}")
    if not isinstance(value, str):
        raise ValueError(f"{who}{key!r} must be a string, got {value!r}")
    return value.replace(BOM, "")  # a BOM escaped inside a JSON string survives decoding


def _pair(obj: Any) -> AlignedPair:
    """One entry → pair; ValueError with the reason on a bad entry."""
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    raw_id = obj.get("id")
    if isinstance(raw_id, int) and not isinstance(raw_id, bool):
        raw_id = str(raw_id)  # tolerate numeric ids
    pid = _field({**obj, "id": raw_id}, "id", None).strip()
    pair = AlignedPair(pid, _field(obj, "source", pid).split(), _field(obj, "target", pid).split())
    links = LinkSet()
    for key, sure in (("sureAlign", True), ("possibleAlign", False)):
        for tok in _field(obj, key, pid, required=sure).split():
            m = _LINK.fullmatch(tok)
            if m is None:
                raise ValueError(f"pair {pid!r}: malformed link {tok!r} in {key} (expected i-j)")
            try:
                links.add(int(m[1]), int(m[2]), sure)
            except AlignmentError as exc:
                raise ValueError(f"pair {pid!r}: {exc}") from None
    pair.alignment = links.alignment()
    pair.subcorpus, trial = edinburgh_id_info(pid)
    annotation = _annotation(pid)
    if annotation is not None:
        pair.metadata["annotation"] = annotation
    if trial:
        pair.metadata["trial"] = True
    name = obj.get("name")
    if name is not None and name != pid:
        pair.metadata["name"] = name
    return pair


def _read(
    text: str, name: str, max_tokens: int | None, normalize: Normalization | None = None
) -> PairCollector:
    out = PairCollector(name, max_tokens=max_tokens, normalize=normalize)
    for line, obj in _entries(text, name):
        try:
            pair = _pair(obj)
        except ValueError as exc:
            raise FormatError(str(exc), file=name, line=line) from None
        out.add(pair, line)
    return out


def parse(
    text: str,
    name: str,
    sure_text: str | None = None,
    sure_name: str = "<sure>",
    *,
    max_tokens: int | None = None,
    normalize: Normalization | None = None,
) -> list[AlignedPair]:
    """Read one file, or combine a sure+possible file (``text``) with its sure-only file."""
    main = _read(text, name, max_tokens, normalize)
    if sure_text is None:
        return main.pairs
    # cleaned alike, counted apart: its tokens are the main file's
    sure = _read(sure_text, sure_name, max_tokens, Normalization() if normalize else None)
    sure_by_id = {p.id: p for p in sure.pairs}
    for pid, line in sure.lines.items():
        if pid not in main.lines:
            raise FormatError(f"pair {pid!r} is not in {name}", file=sure_name, line=line)
    out = []
    for pair in main.pairs:
        line = main.lines[pair.id]
        s = sure_by_id.get(pair.id)
        if s is None:
            raise FormatError(f"pair {pair.id!r} is not in {sure_name}", file=name, line=line)
        s_line = sure.lines[pair.id]
        if (s.source, s.target) != (pair.source, pair.target):
            raise FormatError(
                f"pair {pair.id!r}: its sentences differ from those on line {s_line} of {sure_name}",
                file=name,
                line=line,
            )
        assert s.alignment is not None and pair.alignment is not None
        if s.alignment.possible:
            i, j = min(s.alignment.possible)
            raise FormatError(
                f"pair {pair.id!r}: the sure-only file has a possible link {i}-{j}",
                file=sure_name,
                line=s_line,
            )
        every = pair.alignment.all_links
        missing = s.alignment.sure - every
        if missing:
            i, j = min(missing)
            raise FormatError(
                f"pair {pair.id!r}: sure link {i}-{j} (line {s_line} of {sure_name}) is missing "
                "from the sure+possible file",
                file=name,
                line=line,
            )
        pair.alignment = Alignment(s.alignment.sure, every - s.alignment.sure)
        out.append(pair)
    return out


def format_edinburgh(pairs: Iterable[AlignedPair]) -> Iterator[str]:
    """A JSON array, one entry per line, streamed one chunk per pair (0-based ``i-j`` links)."""
    opened = False
    for pair in pairs:
        check_tokens(pair, "edinburgh")
        alignment = pair.alignment or Alignment()
        entry = {
            "id": pair.id,
            "name": pair.metadata.get("name", pair.id),
            "source": " ".join(pair.source),
            "target": " ".join(pair.target),
            "sureAlign": " ".join(f"{i}-{j}" for i, j in sorted(alignment.sure)),
            "possibleAlign": " ".join(f"{i}-{j}" for i, j in sorted(alignment.possible)),
        }
        yield ("[\n" if not opened else ",\n") + escape_bom(json.dumps(entry, ensure_ascii=False))
        opened = True
    yield "\n]\n" if opened else "[]\n"
