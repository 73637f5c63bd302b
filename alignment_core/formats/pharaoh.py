"""Pharaoh / Moses alignment lines (SPEC §2): line n holds the links of pair n.

Links are 0-based ``i-j`` (sure) and ``i?j`` (possible); ``ipj`` is accepted on input for
possible. An empty line is a pair with no links (it is not skipped); blank lines at the end of
the file beyond the text's pair count are ignored. The format carries no text: the caller supplies the pairs' sentences, and
the line count must equal their count.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Sequence

from alignment_core.alignment import AlignedPair, AlignmentError
from alignment_core.formats._io import (
    LinkSet,
    PairCollector,
    drop_trailing_blank,
    sorted_links,
    split_lines,
)
from alignment_core.formats.errors import FormatError
from alignment_core.formats.textcheck import Normalization

_LINK = re.compile(r"(\d+)([-?p])(\d+)")


def parse(
    text: str,
    name: str,
    text_pairs: Sequence[AlignedPair],
    text_name: str,
    *,
    max_tokens: int | None = None,
    normalize: Normalization | None = None,
) -> list[AlignedPair]:
    """Attach line n's links to ``text_pairs[n - 1]`` (ids, tokens, subcorpus come from there)."""
    lines = split_lines(text)
    if len(lines) > len(text_pairs):  # blank lines past the last pair are editors' padding
        lines = lines[: max(len(text_pairs), len(drop_trailing_blank(lines)))]
    if len(lines) != len(text_pairs):
        raise FormatError(
            f"{name} has {len(lines)} alignment lines but {text_name} has {len(text_pairs)} "
            "sentence pairs (one line per pair, an empty line for a pair without links)",
            file=name,
            line=min(len(lines), len(text_pairs)) + 1,
        )
    out = PairCollector(name, max_tokens=max_tokens, normalize=normalize)
    for k, (line, pair) in enumerate(zip(lines, text_pairs, strict=True)):
        links = LinkSet()
        for tok in line.split():
            m = _LINK.fullmatch(tok)
            if m is None:
                raise FormatError(
                    f"malformed link {tok!r} (expected i-j, i?j or ipj with 0-based indices)",
                    file=name,
                    line=k + 1,
                )
            try:
                links.add(int(m[1]), int(m[3]), m[2] == "-")
            except AlignmentError as exc:
                raise FormatError(f"pair {pair.id!r}: {exc}", file=name, line=k + 1) from None
        out.add(dataclasses.replace(pair, alignment=links.alignment()), k + 1)
    return out.pairs


def format_pharaoh(pairs: Iterable[AlignedPair]) -> Iterator[str]:
    """One line per pair, links sorted by (i, j); a pair without an alignment is an empty line."""
    for pair in pairs:
        links = sorted_links(pair.alignment)
        yield " ".join(f"{i}{'-' if sure else '?'}{j}" for i, j, sure in links) + "\n"
