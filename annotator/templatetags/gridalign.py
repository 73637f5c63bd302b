"""Template filters: ``markdown`` (guidelines, raw HTML escaped, unsafe links dropped) and
``as_json`` (a value pretty-printed as JSON text)."""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import urlsplit

import markdown as md
from django import template
from django.utils.safestring import SafeString, mark_safe
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

register = template.Library()

SAFE_SCHEMES = {"", "http", "https", "mailto"}


class _DropUnsafeUrls(Treeprocessor):
    """Removes ``href``/``src`` values with a scheme such as ``javascript:``."""

    def run(self, root):
        for element in root.iter():
            for attr in ("href", "src"):
                value = element.get(attr)
                if value is not None and not _is_safe_url(value):
                    del element.attrib[attr]
        return None


def _is_safe_url(value: str) -> bool:
    # Browsers decode entities and ignore control characters and spaces in a scheme.
    decoded = re.sub(r"[\x00-\x20\x7f]", "", html.unescape(value))
    try:
        scheme = urlsplit(decoded).scheme.lower()
    except ValueError:
        return False
    return scheme in SAFE_SCHEMES


class _SafeMarkdown(Extension):
    def extendMarkdown(self, md_instance):  # noqa: N802 (the Markdown API's name)
        # Raw HTML is not passed through: it is escaped and shown as text.
        md_instance.preprocessors.deregister("html_block")
        md_instance.inlinePatterns.deregister("html")
        md_instance.treeprocessors.register(_DropUnsafeUrls(md_instance), "drop_unsafe_urls", 0)


def render_markdown(text: str) -> SafeString:
    """Markdown (with tables and fenced code) to HTML that is safe to put in a page."""
    html = md.markdown(
        text or "", extensions=["tables", "fenced_code", "sane_lists", _SafeMarkdown()]
    )
    return mark_safe(html)  # noqa: S308 (raw HTML escaped, URLs checked above)


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    return render_markdown(text)


@register.filter(name="as_json")
def as_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
