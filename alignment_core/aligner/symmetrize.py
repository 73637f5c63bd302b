"""Symmetrisation of two directional alignments (Och & Ney 2003; Koehn et al. 2003).

Links are 0-based ``(i, j)`` = (source position, target position). ``forward`` is the
source→target model's Viterbi alignment (each target word picks at most one source word),
``backward`` the target→source one. The grow heuristics follow Koehn's published pseudo-code
(Moses ``grow-diag-final``) with "e" = source rows and "f" = target columns:

* ``grow-diag``: start from the intersection; repeat until nothing changes: for every source
  i, target j (in that order) already aligned, look at the 8 neighbours (order: left, up,
  right, down, then the four diagonals) and add a neighbour that is in the union and whose
  source or target word is still unaligned;
* ``final``: then, for each direction (forward first), every link of that direction whose
  source OR target word is unaligned is added (``final-and``: source AND target unaligned).
"""

from __future__ import annotations

from collections.abc import Iterable

Link = tuple[int, int]

METHODS = ("intersect", "union", "grow-diag", "grow-diag-final", "grow-diag-final-and")

# Koehn's order: (-1,0),(0,-1),(1,0),(0,1),(-1,-1),(-1,1),(1,-1),(1,1)
_NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def links_from_states(
    forward_states: Iterable[int], backward_states: Iterable[int]
) -> tuple[set[Link], set[Link]]:
    """Directional link sets from Viterbi states (-1 = NULL).

    ``forward_states[j]`` is the source position of target word j; ``backward_states[i]`` the
    target position of source word i.
    """
    fwd = {(int(i), j) for j, i in enumerate(forward_states) if i >= 0}
    bwd = {(i, int(j)) for i, j in enumerate(backward_states) if j >= 0}
    return fwd, bwd


def symmetrize(
    forward: set[Link], backward: set[Link], n_source: int, n_target: int, method: str = "intersect"
) -> set[Link]:
    """Combine two directional link sets by ``method`` (one of ``METHODS``)."""
    if method == "intersect":
        return forward & backward
    if method == "union":
        return forward | backward
    if method == "grow-diag":
        return grow_diag(forward, backward, n_source, n_target)
    if method == "grow-diag-final":
        return _final(
            grow_diag(forward, backward, n_source, n_target),
            forward,
            backward,
            False,
            n_source,
            n_target,
        )
    if method == "grow-diag-final-and":
        return _final(
            grow_diag(forward, backward, n_source, n_target),
            forward,
            backward,
            True,
            n_source,
            n_target,
        )
    raise ValueError(f"unknown symmetrisation {method!r}; choose one of {', '.join(METHODS)}")


def grow_diag(forward: set[Link], backward: set[Link], n_source: int, n_target: int) -> set[Link]:
    """Koehn's GROW-DIAG: grow the intersection towards the union through neighbouring cells."""
    union = forward | backward
    alignment = set(forward & backward)
    src_aligned = [False] * n_source
    tgt_aligned = [False] * n_target
    for i, j in alignment:
        src_aligned[i] = tgt_aligned[j] = True
    added = True
    while added:
        added = False
        for i in range(n_source):
            for j in range(n_target):
                if (i, j) not in alignment:
                    continue
                for di, dj in _NEIGHBOURS:
                    ni, nj = i + di, j + dj
                    if not (0 <= ni < n_source and 0 <= nj < n_target):
                        continue
                    if (ni, nj) in alignment or (ni, nj) not in union:
                        continue
                    if not src_aligned[ni] or not tgt_aligned[nj]:
                        alignment.add((ni, nj))
                        src_aligned[ni] = tgt_aligned[nj] = True
                        added = True
    return alignment


def _final(
    alignment: set[Link],
    forward: set[Link],
    backward: set[Link],
    both: bool,
    n_source: int,
    n_target: int,
) -> set[Link]:
    """Koehn's FINAL (``both=False``) or FINAL-AND (``both=True``), forward links first."""
    out = set(alignment)
    src_aligned = [False] * n_source
    tgt_aligned = [False] * n_target
    for i, j in out:
        src_aligned[i] = tgt_aligned[j] = True
    for direction in (forward, backward):
        for i in range(n_source):
            for j in range(n_target):
                if (i, j) not in direction or (i, j) in out:
                    continue
                free_s, free_t = not src_aligned[i], not tgt_aligned[j]
                if (free_s and free_t) if both else (free_s or free_t):
                    out.add((i, j))
                    src_aligned[i] = tgt_aligned[j] = True
    return out
