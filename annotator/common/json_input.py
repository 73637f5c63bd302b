"""JSON in and out of the API, safe against hostile bodies.

Every JSON body goes through :class:`StrictJSONParser` (``DEFAULT_PARSER_CLASSES``) before any
view runs: a body nested deeper than :data:`MAX_DEPTH` levels (which would otherwise exhaust
Python's recursion limit in the decoder, ~1,000 levels, or in the code after it) and a string
holding a lone UTF-16 surrogate (``"\\ud800"``: decodable JSON, but no UTF-8 can carry it, so
echoing it back, storing it in PostgreSQL or writing it to a file fails) are a 400 with the
usual ``{"error": ...}``. So is a string holding NUL (``"\\u0000"``): valid JSON, but
PostgreSQL stores no NUL in text or in jsonb (SQLite would keep it silently).

What goes out never fails to encode either: :func:`printable` replaces what UTF-8 cannot carry
by its ``\\uXXXX`` escape, and :class:`SafeJSONRenderer` applies it when a response would not
encode (it never should once the parser has run; multipart fields arrive already decoded with
replacement characters).
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer

# Deepest nesting of arrays and objects accepted in a request body. The deepest body of the
# API is an annotation's links (3 levels); metadata and options stay far below this.
MAX_DEPTH = 64


def storable_problem(text: str) -> str | None:
    """Why a database cannot store ``text`` (a NUL, a lone surrogate), or None."""
    if "\x00" in text:
        return "holds a NUL character (\\u0000), which cannot be stored"
    if not encodable(text):
        return "holds a lone surrogate (\\ud800-\\udfff): not valid Unicode"
    return None


def encodable(text: str) -> bool:
    """True when ``text`` can be written as UTF-8 (it holds no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def input_problem(data: Any, *, max_depth: int = MAX_DEPTH) -> str | None:
    """Why a decoded JSON value is refused, or None: too deep, or a string (value or key) that
    is not valid Unicode. Iterative, so no input can exhaust the recursion limit here."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > max_depth:
                return f"JSON nested deeper than {max_depth} levels"
            if isinstance(value, dict):
                for key, item in value.items():
                    if problem := storable_problem(key):
                        return f"a key {problem}"
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str) and (problem := storable_problem(value)):
            return f"a string {problem}"
    return None


class StrictJSONParser(JSONParser):
    """DRF's JSON parser, plus: too deep a body, a NUL or a lone surrogate is a ParseError
    (400)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON nested deeper than {MAX_DEPTH} levels") from None
        problem = input_problem(data)
        if problem:
            raise ParseError(problem)
        return data


def printable(data: Any) -> Any:
    """``data`` (JSON-like) with every string UTF-8 cannot carry replaced by a copy whose bad
    characters are written as ``\\uXXXX`` escapes; anything else unchanged. Never raises on
    deep data: depth past MAX_DEPTH is cut to a marker."""

    def fix(value: Any, depth: int) -> Any:
        if isinstance(value, str):
            if encodable(value):
                return value
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        if depth > MAX_DEPTH:
            return "…"
        if isinstance(value, dict):
            return {fix(k, depth + 1): fix(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [fix(v, depth + 1) for v in value]
        return value

    return fix(data, 0)


class SafeJSONRenderer(JSONRenderer):
    """DRF's JSON renderer that, should a value not encode as UTF-8, renders the printable
    copy instead of failing with a 500 while reporting an error."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            return super().render(printable(data), accepted_media_type, renderer_context)
