"""The Alignment value type and the AlignedPair record every format reads and writes.

Conventions (SPEC §1), 0-based everywhere:

* a link is ``(i, j)``: source token ``i`` to target token ``j``;
* ``Alignment.sure`` holds the sure links, ``Alignment.possible`` the possible-only links
  (disjoint from ``sure``), so ``A_S = sure`` and ``A_P = sure | possible`` (``all_links``);
* the compact storage form is ``[[i, j, "S" | "P"], ...]`` sorted by ``(i, j)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SURE = "S"
POSSIBLE = "P"
LABELS = (SURE, POSSIBLE)

Link = tuple[int, int]


class AlignmentError(ValueError):
    """An alignment is malformed: a bad index, label or duplicate link. The message says which."""


@dataclass(frozen=True)
class Alignment:
    """A set of sure and possible links between a source and a target sentence."""

    sure: frozenset[Link] = frozenset()
    possible: frozenset[Link] = frozenset()

    def __post_init__(self) -> None:
        overlap = self.sure & self.possible
        if overlap:
            i, j = min(overlap)
            raise AlignmentError(f"link {i}-{j} is both sure and possible")

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_sets(cls, sure: Iterable[Link] = (), possible: Iterable[Link] = ()) -> Alignment:
        """Build from sure links and possible links; a link in both counts as sure."""
        s = frozenset((int(i), int(j)) for i, j in sure)
        p = frozenset((int(i), int(j)) for i, j in possible) - s
        return cls(s, p)

    @classmethod
    def from_links(cls, links: Iterable[Sequence[Any]], *, strict: bool = True) -> Alignment:
        """Build from the storage form ``[[i, j, "S"|"P"], ...]`` (a missing label means sure).

        With ``strict`` a repeated cell is an error; otherwise a cell marked both ways is sure.
        """
        sure: set[Link] = set()
        possible: set[Link] = set()
        for n, link in enumerate(links):
            if not isinstance(link, Sequence) or isinstance(link, str) or len(link) not in (2, 3):
                raise AlignmentError(f"link #{n + 1}: expected [i, j, label], got {link!r}")
            i, j = link[0], link[1]
            if not (_is_int(i) and _is_int(j)):
                raise AlignmentError(f"link #{n + 1}: indices must be integers, got {link!r}")
            label = link[2] if len(link) == 3 else SURE
            if label not in LABELS:
                raise AlignmentError(f"link #{n + 1}: label must be 'S' or 'P', got {label!r}")
            cell = (int(i), int(j))
            if cell in sure or cell in possible:
                if strict:
                    raise AlignmentError(f"link #{n + 1}: duplicate link {cell[0]}-{cell[1]}")
                if label == SURE:
                    possible.discard(cell)
                    sure.add(cell)
                continue
            (sure if label == SURE else possible).add(cell)
        return cls(frozenset(sure), frozenset(possible))

    # -- views --------------------------------------------------------------------------
    @property
    def all_links(self) -> frozenset[Link]:
        """A_P: every link, sure or possible."""
        return self.sure | self.possible

    def to_links(self) -> list[list[Any]]:
        """The compact storage form, sorted by (i, j)."""
        out = [[i, j, SURE] for i, j in self.sure] + [[i, j, POSSIBLE] for i, j in self.possible]
        out.sort(key=lambda link: (link[0], link[1]))
        return out

    def label(self, i: int, j: int) -> str | None:
        if (i, j) in self.sure:
            return SURE
        if (i, j) in self.possible:
            return POSSIBLE
        return None

    def __len__(self) -> int:
        return len(self.sure) + len(self.possible)

    def __bool__(self) -> bool:
        return bool(self.sure or self.possible)

    # -- validation ---------------------------------------------------------------------
    def validate(self, n_source: int, n_target: int) -> None:
        """Raise AlignmentError unless every link lies inside an n_source × n_target grid."""
        for i, j in sorted(self.all_links):
            if not (0 <= i < n_source):
                raise AlignmentError(
                    f"link {i}-{j}: source index {i} out of range (sentence has {n_source} tokens)"
                )
            if not (0 <= j < n_target):
                raise AlignmentError(
                    f"link {i}-{j}: target index {j} out of range (sentence has {n_target} tokens)"
                )


@dataclass
class AlignedPair:
    """One sentence pair as files carry it: tokens, optional alignment and its provenance.

    ``alignment`` is None when the file holds text only (a text-pair file) — distinct from an
    empty alignment, which says "annotated, and nothing aligned".
    """

    id: str
    source: list[str]
    target: list[str]
    alignment: Alignment | None = None
    subcorpus: str = ""
    annotator: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        if self.alignment is not None:
            self.alignment.validate(len(self.source), len(self.target))

    def to_dict(self) -> dict[str, Any]:
        return _pair_dict(self)


def _pair_dict(pair: AlignedPair) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": pair.id,
        "subcorpus": pair.subcorpus,
        "source": list(pair.source),
        "target": list(pair.target),
    }
    if pair.alignment is not None:
        d["sure"] = sorted([i, j] for i, j in pair.alignment.sure)
        d["possible"] = sorted([i, j] for i, j in pair.alignment.possible)
    if pair.annotator is not None:
        d["annotator"] = pair.annotator
    if pair.metadata:
        d["metadata"] = dict(pair.metadata)
    return d


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def links_from_mapping(m: Mapping[str, Any]) -> Alignment:
    """Build from a mapping with ``sure`` and ``possible`` lists of ``[i, j]`` (the JSONL shape)."""
    return Alignment.from_sets(
        (tuple(x) for x in m.get("sure") or ()), (tuple(x) for x in m.get("possible") or ())
    )
