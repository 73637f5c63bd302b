"""``{% when moment %}``: one way to write a moment on every page. The server writes it in UTC
(``2026-11-29 04:42 UTC``) inside ``<time datetime=… data-when=…>``; the browser's
``gridalign/when.js`` rewrites it in the reader's own time zone (``2026-11-29 05:42``) and
names that zone once, at the foot of the page. ``precision`` is ``minutes`` (the default),
``seconds`` or ``date``."""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils.html import format_html

register = template.Library()

FORMATS = {"date": "%Y-%m-%d", "minutes": "%Y-%m-%d %H:%M", "seconds": "%Y-%m-%d %H:%M:%S"}


@register.simple_tag
def when(moment: datetime | None, precision: str = "minutes", empty: str = "–") -> str:
    if precision not in FORMATS:
        raise template.TemplateSyntaxError(
            f"when: precision {precision!r} is not one of {list(FORMATS)}"
        )
    if moment is None:
        return empty
    utc = moment.astimezone(UTC)
    shown = utc.strftime(FORMATS[precision]) + ("" if precision == "date" else " UTC")
    return format_html(
        '<time datetime="{}" data-when="{}">{}</time>',
        utc.isoformat().replace("+00:00", "Z"), precision, shown,
    )  # fmt: skip
