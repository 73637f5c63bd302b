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
    """Stored links (already validated) to an Alignment."""
    return Alignment.from_links(links, strict=False)
