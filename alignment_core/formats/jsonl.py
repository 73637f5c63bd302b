"""JSON Lines, the lossless native format (SPEC §2): one JSON object per pair.

``{"id", "subcorpus", "source": [tokens], "target": [tokens], "sure": [[i, j], ...],
"possible": [[i, j], ...], "annotator"?, "metadata"?}`` with 0-based indices; ``possible``
excludes ``sure`` (a cell in both is an error). A line with neither ``sure`` nor ``possible``
is a text-only pair (``alignment=None``). ``source``/``target`` may also be a string, split on
whitespace. ``id`` may be a string or an integer. Keys not listed above are kept in
``metadata`` (an explicit ``metadata`` entry wins on a clash). Blank lines are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from alignment_core.alignment import AlignedPair, AlignmentError
from alignment_core.formats import textcheck
from alignment_core.formats._io import BOM, LinkSet, PairCollector, escape_bom, split_lines
from alignment_core.formats.errors import FormatError
from alignment_core.formats.textcheck import Normalization

_KNOWN = frozenset(
    ("id", "subcorpus", "source", "target", "sure", "possible", "annotator", "metadata")
)


class _Bad(Exception):
    """A field problem; the caller adds file and line."""


def pair_id(value: Any) -> str:
    """An id as a string: JSON strings as they are, integers in decimal."""
    if isinstance(value, str):
        return value.replace(BOM, "").strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise _Bad(f"'id' must be a string or an integer, got {value!r}")


def tokens(value: Any, side: str) -> list[str]:
    """A sentence: a list of non-empty whitespace-free strings, or one string to split."""
    if isinstance(value, str):
        return value.replace(BOM, "").split()
    if not isinstance(value, list):
        raise _Bad(f"{side!r} must be a list of tokens or a string, got {type(value).__name__}")
    out = []
    for k, tok in enumerate(value):
        if not isinstance(tok, str):
            raise _Bad(f"{side} token {k} must be a string, got {tok!r}")
        tok = tok.replace(BOM, "")  # a BOM escaped inside a JSON string survives decoding
        if not tok or tok.split() != [tok]:
            raise _Bad(f"{side} token {k} ({tok!r}) is empty or contains whitespace")
        out.append(tok)
    return out


def _add_links(links: LinkSet, value: Any, key: str) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        raise _Bad(f"{key!r} must be a list of [i, j] pairs")
    for link in value:
        if not (
            isinstance(link, list)
            and len(link) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in link)
        ):
            raise _Bad(f"malformed {key} link {link!r} (expected [i, j], 0-based integers)")
        try:
            links.add(link[0], link[1], key == "sure")
        except AlignmentError as exc:
            raise _Bad(str(exc)) from None


def pair_from_object(obj: Any) -> AlignedPair:
    """Build one pair from a decoded JSON object (raises ``_Bad`` with the reason)."""
    if not isinstance(obj, dict):
        raise _Bad(f"expected a JSON object, got {type(obj).__name__}")
    for key in ("id", "source", "target"):
        if key not in obj:
            raise _Bad(f"missing field {key!r}")
    pid = pair_id(obj["id"])
    pair = AlignedPair(pid, tokens(obj["source"], "source"), tokens(obj["target"], "target"))
    try:
        if obj.get("sure") is not None or obj.get("possible") is not None:
            links = LinkSet()
            _add_links(links, obj.get("sure"), "sure")
            _add_links(links, obj.get("possible"), "possible")
            pair.alignment = links.alignment()
    except _Bad as exc:
        raise _Bad(f"pair {pid!r}: {exc}") from None
    subcorpus = obj.get("subcorpus")
    if subcorpus is not None:
        if not isinstance(subcorpus, str):
            raise _Bad(f"'subcorpus' must be a string, got {subcorpus!r}")
        pair.subcorpus = subcorpus
    annotator = obj.get("annotator")
    if annotator is not None:
        if not isinstance(annotator, str):
            raise _Bad(f"'annotator' must be a string, got {annotator!r}")
        pair.annotator = annotator
    metadata = obj.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise _Bad(f"'metadata' must be an object, got {type(metadata).__name__}")
    pair.metadata = {k: v for k, v in obj.items() if k not in _KNOWN}
    pair.metadata.update(metadata or {})
    return pair


def parse(
    text: str, name: str, *, max_tokens: int | None = None, normalize: Normalization | None = None
) -> list[AlignedPair]:
    out = PairCollector(name, max_tokens=max_tokens, normalize=normalize)
    for number, pair in iter_pairs(enumerate(split_lines(text), 1), name):
        out.add(pair, number)
    return out.pairs


def iter_pairs(lines: Iterable[tuple[int, str]], name: str) -> Iterator[tuple[int, AlignedPair]]:
    """``(line number, pair)`` of numbered lines, one at a time (a streamed read); blank lines
    are skipped. The caller checks each pair (``PairCollector``)."""
    for number, line in lines:
        if not line.strip():
            continue
        try:
            obj = textcheck.loads(line)
        except textcheck.JSONProblem as exc:
            column = f" (column {exc.colno})" if exc.colno else ""
            raise FormatError(f"{exc}{column}", file=name, line=number) from None
        try:
            pair = pair_from_object(obj)
        except _Bad as exc:
            raise FormatError(str(exc), file=name, line=number) from None
        yield number, pair


def format_jsonl(pairs: Iterable[AlignedPair]) -> Iterator[str]:
    """One line per pair (UTF-8, not ASCII-escaped); links sorted by (i, j)."""
    for pair in pairs:
        try:
            yield escape_bom(json.dumps(pair.to_dict(), ensure_ascii=False)) + "\n"
        except (TypeError, ValueError) as exc:
            raise FormatError(f"cannot write pair {pair.id!r} as jsonl: {exc}") from None
