"""Template filters for the lead's pages: ``duration`` (seconds → "1 h 05 min") and
``percent`` (a 0..1 rate → "12.5%")."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def duration(seconds: float | None) -> str:
    total = round(seconds or 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


@register.filter
def percent(rate: float | None) -> str:
    return "—" if rate is None else f"{100 * rate:.1f}%"
