"""Line up the same sentence pairs across several annotation files (one file per annotator).

Pairs are matched **by id** when every file gives every pair a non-empty id, ids are unique within
each file, and some id occurs in all files; otherwise **by position**. A pair whose source or
target tokens differ between files is never mixed: it is left out and a message names its id and
the files. Pairs missing from some files are left out too unless ``allow_missing`` (Krippendorff's
α can use them), with a message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from alignment_core.alignment import AlignedPair, Alignment


@dataclass
class MatchedPair:
    """One sentence pair with each file's alignment (None where a file lacks the pair)."""

    id: str
    subcorpus: str
    source: list[str]
    target: list[str]
    alignments: list[Alignment | None]


@dataclass
class Matching:
    pairs: list[MatchedPair]
    by_id: bool
    problems: list[str] = field(default_factory=list)  # one line per pair left out, or a summary


def _ids_usable(files: Sequence[Sequence[AlignedPair]]) -> bool:
    common: set[str] | None = None
    for pairs in files:
        ids = [p.id for p in pairs]
        if not ids or any(not i for i in ids) or len(set(ids)) != len(ids):
            return False
        common = set(ids) if common is None else common & set(ids)
    return bool(common)


def _by_id(files: Sequence[Sequence[AlignedPair]]) -> list[tuple[str, list]]:
    """Each id, in the order of the first file holding it, with each file's pair (or None)."""
    index = [{p.id: p for p in pairs} for pairs in files]
    order: dict[str, None] = {}
    for pairs in files:
        order.update((p.id, None) for p in pairs)
    return [(pid, [ix.get(pid) for ix in index]) for pid in order]


def _by_position(files, names, problems: list[str]) -> list[tuple[str, list]]:
    """Each position ("#1", ...) with each file's pair there (or None); a message in
    ``problems`` when the files hold different numbers of pairs."""
    longest = max((len(f) for f in files), default=0)
    shortest = min((len(f) for f in files), default=0)
    if longest != shortest:
        counts = ", ".join(f"{n}: {len(f)}" for n, f in zip(names, files, strict=True))
        problems.append(f"files hold different numbers of pairs ({counts}), matched by position")
    return [(f"#{k + 1}", [f[k] if k < len(f) else None for f in files]) for k in range(longest)]


def match_pairs(
    files: Sequence[Sequence[AlignedPair]],
    names: Sequence[str],
    *,
    allow_missing: bool = False,
) -> Matching:
    """Match the pairs of ``files`` (``names`` label them in messages); see the module doc.

    The output keeps the order of the first file in which each pair appears. With
    ``allow_missing`` a pair needs to be in at least two files.
    """
    if len(files) != len(names):
        raise ValueError("one name per file")
    by_id = _ids_usable(files)
    problems: list[str] = []
    groups = _by_id(files) if by_id else _by_position(files, names, problems)
    out: list[MatchedPair] = []
    missing = 0
    for label, row in groups:
        present = [(n, p) for n, p in zip(names, row, strict=True) if p is not None]
        if len(present) < len(files) and not (allow_missing and len(present) >= 2):
            missing += 1
            continue
        first_name, first = present[0]
        differing = [
            n for n, p in present[1:] if p.source != first.source or p.target != first.target
        ]
        if differing:
            pid = first.id or label
            problems.append(
                f"pair {pid}: tokens differ between {first_name} and {', '.join(differing)}; "
                "left out"
            )
            continue
        out.append(
            MatchedPair(
                id=first.id or label,
                subcorpus=next((p.subcorpus for _, p in present if p.subcorpus), ""),
                source=list(first.source),
                target=list(first.target),
                alignments=[None if p is None else p.alignment for p in row],
            )
        )
    if missing:
        need = "at least two files" if allow_missing else "every file"
        problems.append(f"{missing} pair(s) not in {need}; left out")
    return Matching(out, by_id, problems)
