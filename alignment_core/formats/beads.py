"""Sentence-alignment bead files (issue 33; Bleualign / Vecalign's format).

One bead per line: ``[i, j]:[k]`` — the 0-based source sentence indices, a colon, the target
ones — with an optional ``:score`` (a float) at the end. Null beads have an empty side:
``[]:[k]`` (a target sentence with no source partner) and ``[i]:[]``. Comparable documents use
the same shape with one index a side, ``[i]:[j]``. Blank lines are skipped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from alignment_core.formats.errors import FormatError

_LINE = re.compile(r"\[([\d,\s]*)\]\s*:\s*\[([\d,\s]*)\](?:\s*:\s*(\S+))?")


@dataclass(frozen=True)
class BeadLine:
    src: tuple[int, ...]
    tgt: tuple[int, ...]
    score: float | None = None


def _indices(text: str, name: str, line: int) -> tuple[int, ...]:
    text = text.strip()
    if not text:
        return ()
    parts = [p.strip() for p in text.split(",")]
    if any(not p.isdigit() for p in parts):
        raise FormatError(f"malformed index list [{text}]", file=name, line=line)
    return tuple(int(p) for p in parts)


def parse_beads(text: str, name: str = "<beads>") -> list[BeadLine]:
    """Read a bead file; a malformed line is a ``FormatError`` naming file and line."""
    out: list[BeadLine] = []
    for k, raw in enumerate(text.replace("\ufeff", "").split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            raise FormatError(
                f"malformed bead {line[:60]!r} (expected [i, j]:[k] with an optional :score)",
                file=name,
                line=k,
            )
        src, tgt = _indices(m[1], name, k), _indices(m[2], name, k)
        if not src and not tgt:
            raise FormatError("a bead with both sides empty", file=name, line=k)
        score = None
        if m[3] is not None:
            try:
                score = float(m[3])
            except ValueError:
                raise FormatError(f"score {m[3]!r} is not a number", file=name, line=k) from None
            if not math.isfinite(score):
                raise FormatError(f"score {m[3]!r} is not finite", file=name, line=k)
        out.append(BeadLine(src, tgt, score))
    return out


def format_bead(src: Sequence[int], tgt: Sequence[int], score: float | None = None) -> str:
    """``[i, j]:[k]`` (+ ``:0.1234`` with a score), no line end."""
    text = f"[{', '.join(map(str, src))}]:[{', '.join(map(str, tgt))}]"
    return text if score is None else f"{text}:{score:.4f}"


def format_beads(
    beads: Iterable[tuple[Sequence[int], Sequence[int], float | None]],
) -> Iterator[str]:
    for src, tgt, score in beads:
        yield format_bead(src, tgt, score) + "\n"
