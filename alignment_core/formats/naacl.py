"""NAACL 2003 shared-task alignment files (SPEC §2): one link per line.

``pairid i j [S|P] [confidence]`` with 1-based indices; index 0 is the NULL word and such links
are ignored. A missing label means S; a 4th field that is a number is a confidence (label S).
Confidences are not kept. Links attach to the pair of the supplied text with the same id; pairs
with no line get an empty alignment (the format cannot say "not annotated").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence

from alignment_core.alignment import AlignedPair, AlignmentError
from alignment_core.formats._io import (
    LinkSet,
    PairCollector,
    check_word_id,
    sorted_links,
    split_lines,
)
from alignment_core.formats.errors import FormatError
from alignment_core.formats.textcheck import Normalization

_USAGE = "expected 'pairid i j [S|P] [confidence]'"


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _index(field: str, what: str, name: str, line: int) -> int:
    if not field.isascii() or not field.isdigit():
        raise FormatError(
            f"{what} index {field!r} is not a non-negative integer ({_USAGE})", file=name, line=line
        )
    return int(field)


def _is_sure(fields: list[str], name: str, lineno: int) -> bool:
    """A line's label (S, P; none: sure), its optional confidence checked to be a number."""
    sure = True
    if len(fields) >= 4:
        label = fields[3]
        if label in ("S", "P"):
            sure = label == "S"
        elif len(fields) == 4 and _is_number(label):
            pass  # a confidence without a label
        else:
            raise FormatError(
                f"bad label {label!r}: expected S or P ({_USAGE})", file=name, line=lineno
            )
    if len(fields) == 5 and not _is_number(fields[4]):
        raise FormatError(
            f"bad confidence {fields[4]!r}: expected a number", file=name, line=lineno
        )
    return sure


def parse(
    text: str,
    name: str,
    text_pairs: Sequence[AlignedPair],
    text_name: str,
    *,
    max_tokens: int | None = None,
    normalize: Normalization | None = None,
) -> list[AlignedPair]:
    """Read links and attach them, by pair id, to ``text_pairs`` (kept in their order)."""
    by_id = {p.id: n for n, p in enumerate(text_pairs)}
    links: dict[int, LinkSet] = {}
    for k, line in enumerate(split_lines(text)):
        fields = line.split()
        if not fields:
            continue
        lineno = k + 1
        if not 3 <= len(fields) <= 5:
            raise FormatError(f"{_USAGE}, got {len(fields)} fields", file=name, line=lineno)
        pid = fields[0]
        i = _index(fields[1], "source", name, lineno)
        j = _index(fields[2], "target", name, lineno)
        sure = _is_sure(fields, name, lineno)
        n = by_id.get(pid)
        if n is None:
            raise FormatError(
                f"pair id {pid!r} is not among the {len(text_pairs)} pairs of {text_name}",
                file=name,
                line=lineno,
            )
        if i == 0 or j == 0:
            continue  # a NULL link: the format's way of saying "unaligned"
        pair = text_pairs[n]
        for what, idx, size in (("source", i, len(pair.source)), ("target", j, len(pair.target))):
            if idx > size:
                raise FormatError(
                    f"pair {pid!r}: {what} index {idx} out of range (sentence has {size} "
                    "tokens; NAACL indices are 1-based)",
                    file=name,
                    line=lineno,
                )
        found = links.get(n)
        if found is None:
            found = links[n] = LinkSet()
        try:
            found.add(i - 1, j - 1, sure)
        except AlignmentError as exc:
            raise FormatError(
                f"pair {pid!r}: {exc} (0-based; the file says {i} {j})", file=name, line=lineno
            ) from None
    out = PairCollector(text_name, max_tokens=max_tokens, normalize=normalize)
    for n, pair in enumerate(text_pairs):
        found = links.get(n)
        alignment = found.alignment() if found else LinkSet().alignment()
        out.add(dataclasses.replace(pair, alignment=alignment), n + 1)
    return out.pairs


def format_naacl(pairs: Iterable[AlignedPair]) -> Iterator[str]:
    """One chunk per pair: its links as ``id i j S|P`` lines, 1-based, sorted by (i, j)."""
    for pair in pairs:
        check_word_id(pair, "naacl")
        links = sorted_links(pair.alignment)
        if links:
            yield "".join(
                f"{pair.id} {i + 1} {j + 1} {'S' if sure else 'P'}\n" for i, j, sure in links
            )
