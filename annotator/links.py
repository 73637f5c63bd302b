"""Links as the database stores them: ``[[i, j, "S"|"P"], ...]``, 0-based, sorted, unique.

The one place where stored links are checked and converted; models, services, the API and the
admin all go through here so that no invalid alignment reaches the database.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from alignment_core import Alignment, AlignmentError


def parse_links(links: Any, n_source: int, n_target: int) -> Alignment:
    """Validate stored/posted links against a grid of n_source × n_target; raise ValidationError."""
    if not isinstance(links, list):
        raise ValidationError(
            f"links must be a list of [i, j, 'S'|'P'], got {type(links).__name__}"
        )
    try:
        alignment = Alignment.from_links(links, strict=True)
        alignment.validate(n_source, n_target)
    except AlignmentError as exc:
        raise ValidationError(str(exc)) from None
    return alignment


def normalize_links(links: Any, n_source: int, n_target: int) -> list[list[Any]]:
    """Validated, sorted storage form."""
    return parse_links(links, n_source, n_target).to_links()


def to_alignment(links: list[list[Any]]) -> Alignment:
    """Stored links (already validated on the way in) to an Alignment, without checking them
    again: exports and reports convert every stored alignment, and the per-link checks of
    ``Alignment.from_links`` were half the cost of a gold export. A cell stored both ways
    counts as sure, as ``from_links(strict=False)`` has it."""
    sure = frozenset((link[0], link[1]) for link in links if len(link) < 3 or link[2] == "S")
    possible = frozenset((link[0], link[1]) for link in links if len(link) == 3 and link[2] == "P")
    return Alignment(sure, possible - sure)


def links_difference(before: list[list[Any]], after: list[list[Any]]) -> dict[str, int]:
    """How ``after`` differs from ``before`` (links ``[i, j, "S"|"P"]``): cells added, removed,
    and kept with sure/possible changed; ``fewer`` is how many links fewer ``after`` has (0 when
    it has as many or more). All zero (but ``fewer``) means the same alignment."""
    old = {(int(i), int(j)): str(k) for i, j, k in before}
    new = {(int(i), int(j)): str(k) for i, j, k in after}
    return {
        "added": len(new.keys() - old.keys()),
        "removed": len(old.keys() - new.keys()),
        "changed": sum(1 for c in old.keys() & new.keys() if old[c] != new[c]),
        "fewer": max(0, len(old) - len(new)),
    }
