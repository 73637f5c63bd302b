"""Turn sentence pairs into the flat integer arrays the compiled kernels read.

Text identity (SPEC §3, §4) is decided on casefolded text: a phrase pair is identical when
``" ".join(source[i1..i2]).casefold() == " ".join(target[j1..j2]).casefold()``. To decide that with
integers, every casefolded token is split on single spaces into *pieces* and each distinct piece
gets an id. ``" ".join`` of space-free pieces is injective, so two spans have the same text
exactly when their piece-id sequences are equal — even for tokens that contain spaces or are
empty. A whitespace token is one piece, so in the usual case piece ids are token ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from alignment_core.alignment import Link


class TokenEncoder:
    """Maps tokens to piece ids; keep one per batch so that ids are shared across sentences."""

    def __init__(self) -> None:
        self._tokens: dict[str, tuple[int, ...]] = {}
        self._pieces: dict[str, int] = {}

    def _token(self, token: str) -> tuple[int, ...]:
        ids = self._tokens.get(token)
        if ids is None:
            pieces = self._pieces
            ids = tuple(pieces.setdefault(p, len(pieces)) for p in token.casefold().split(" "))
            self._tokens[token] = ids
        return ids

    def extend(self, tokens: Sequence[str], pieces: list[int], starts: list[int]) -> None:
        """Append the tokens' piece ids to ``pieces`` and each token's start offset to ``starts``,
        then the end offset: ``len(tokens) + 1`` offsets, absolute positions in ``pieces``."""
        lookup = self._token
        for tok in tokens:
            starts.append(len(pieces))
            pieces.extend(lookup(tok))
        starts.append(len(pieces))

    def encode(self, tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(piece ids, token start offsets of length n + 1) of one sentence, as int32 arrays."""
        pieces: list[int] = []
        starts: list[int] = []
        self.extend(tokens, pieces, starts)
        return np.asarray(pieces, np.int32), np.asarray(starts, np.int32)


def links_to_arrays(links: Iterable[Link]) -> tuple[np.ndarray, np.ndarray]:
    """(source indices, target indices) of a link set as int32 arrays, in sorted link order."""
    ordered = sorted(links)
    li = np.fromiter((i for i, _ in ordered), np.int32, len(ordered))
    lj = np.fromiter((j for _, j in ordered), np.int32, len(ordered))
    return li, lj


class LinkPacker:
    """Concatenates link sets of many pairs into flat (i, j) arrays with per-pair offsets."""

    def __init__(self) -> None:
        self.flat: list[int] = []  # i0, j0, i1, j1, ...
        self.offsets: list[int] = [0]

    def add(self, links: Iterable[Link]) -> None:
        flat = self.flat
        for link in links:
            flat.extend(link)
        self.offsets.append(len(flat) // 2)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(sources, targets, offsets): links of pair k are positions offsets[k]:offsets[k+1]."""
        both = np.asarray(self.flat, np.int32).reshape(-1, 2)
        return (
            np.ascontiguousarray(both[:, 0]),
            np.ascontiguousarray(both[:, 1]),
            np.asarray(self.offsets, np.int64),
        )


def check_links_in_grid(li: np.ndarray, lj: np.ndarray, n: int, m: int, what: str) -> None:
    """Raise ValueError when a link lies outside the n × m grid (kernels do not bounds-check)."""
    if li.size and (li.min() < 0 or lj.min() < 0 or li.max() >= n or lj.max() >= m):
        raise ValueError(f"{what}: a link lies outside the {n} × {m} grid")
