"""What text a sentence pair may hold, and strict JSON decoding — checks shared by every reader
and by the app's import (which also takes pairs from the API, not only from files).

A string read from a file must be storable on every database, the same way: SQLite keeps a NUL
character or a lone surrogate that PostgreSQL refuses (so an import that works in development
would fail in production). Tokens and ids must also be visible text: no control characters,
and no token made only of zero-width / format characters (it would show as an empty cell).
JSON is read strictly: ``NaN`` and ``Infinity`` are not JSON and no database column stores
them; nesting is bounded so a hostile file cannot exhaust the interpreter's stack.

Every function returns a reason (``str``) or None; callers add file, line and pair.

Normalisation is offered, never silent: a token with a control character is refused (the
reason names the option), unless the caller passes a ``Normalization``, which removes control
characters from inside tokens and puts every token in Unicode NFC, counting what it changed.
A token made only of control characters is refused all the same: removing it would shift
the positions of the tokens after it, which links refer to.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any

# Characters no stored string may contain: NUL (PostgreSQL text and jsonb refuse it) and the
# surrogate halves (not encodable as UTF-8; they appear from JSON escapes like "\ud800").
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# Control characters (C0, DEL, C1) have no place in a token, an id or a name.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


# Characters that draw nothing (Unicode's default-ignorable code points, less the controls
# refused above): soft hyphen, combining grapheme joiner, Arabic letter mark, Hangul fillers,
# Khmer inherent vowels, Mongolian vowel separator, zero-width space / joiners, direction marks
# and isolates, word joiner and invisible operators, variation selectors, BOM, shorthand format
# controls, musical formatting, tags.
_INVISIBLE = (
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
# A whole token of invisible characters, inside a space-joined sentence.
_INVISIBLE_TOKEN = re.compile(rf"(?:^| ){_INVISIBLE}+(?= |$)")
# One pass that finds none of the characters above clears a string (the common case) before
# the checks that say which rule it breaks: a name or id, then a sentence.
_NAME_SUSPECT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_TOKENS_SUSPECT = re.compile(f"[\x00-\x1f\x7f-\x9f\ud800-\udfff{_INVISIBLE[1:-1]}]")

MAX_JSON_DEPTH = 32  # metadata deeper than this is refused (real metadata is flat)


# How a refusal names the way out, on every surface that reads pairs.
NORMALIZE_HINT = (
    "the normalize option removes control characters from tokens (--normalize on the command "
    'line, "normalize": true in the API, "Clean the text" on the Import page)'
)


def _codepoint(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" {name}" if name else "")


def string_problem(value: str, what: str) -> str | None:
    """Why ``value`` (free text: metadata, a note) cannot be stored, or None."""
    m = _UNSTORABLE.search(value)
    if m is None:
        return None
    ch = m.group()
    if ch == "\x00":
        return f"{what} contains a NUL character (U+0000), which cannot be stored"
    return f"{what} contains a lone surrogate ({_codepoint(ch)}), which is not valid Unicode text"


def name_problem(value: str, what: str) -> str | None:
    """Why ``value`` cannot be an id or a name (visible one-line text), or None."""
    if not _NAME_SUSPECT.search(value):
        return None
    if reason := string_problem(value, what):
        return reason
    m = _CONTROL.search(value)
    if m is not None:
        return f"{what} contains a control character ({_codepoint(m.group())})"
    return None


def tokens_problem(tokens: list[str], side: str) -> str | None:
    """Why a sentence's tokens cannot be stored (assumed non-empty strings without whitespace):
    an unstorable or control character, or a token that is invisible. None when fine.

    One regex pass over the joined sentence; the per-token loop runs only to name the culprit.
    """
    joined = " ".join(tokens)
    if not _TOKENS_SUSPECT.search(joined):
        return None
    if not (
        _UNSTORABLE.search(joined) or _CONTROL.search(joined) or _INVISIBLE_TOKEN.search(joined)
    ):
        return None
    for k, tok in enumerate(tokens):
        if reason := name_problem(tok, f"{side} token {k} ({tok!r})"):
            if "control character" in reason:
                if _CONTROL.sub("", tok):
                    return f"{reason}; {NORMALIZE_HINT}"
                return (
                    f"{reason}; the token is only control characters, which no option removes "
                    "(the tokens after it would shift and the links with them): fix the file"
                )
            return reason
        if _INVISIBLE_TOKEN.fullmatch(tok):
            chars = ", ".join(sorted({_codepoint(c) for c in tok}))
            return (
                f"{side} token {k} ({tok!r}) is invisible: it holds only zero-width or format "
                f"characters ({chars})"
            )
    return None  # pragma: no cover - the joined checks found something a token holds


class Normalization:
    """Token cleaning a reader or an import applies when asked: control characters (C0, DEL,
    C1) removed from inside tokens, then Unicode NFC. Token counts never change (a token that
    is only control characters is left as it is, for the checks to refuse). One value counts
    over every sentence it cleans: ``tokens_changed``, ``pairs_changed``."""

    def __init__(self) -> None:
        self.tokens_changed = 0
        self.pairs_changed = 0

    def clean(self, tokens: list[str]) -> list[str]:
        """``tokens`` cleaned (the same list when nothing changes); counts the tokens."""
        joined = " ".join(tokens)
        if not _CONTROL.search(joined) and unicodedata.is_normalized("NFC", joined):
            return tokens
        out = []
        for tok in tokens:
            new = unicodedata.normalize("NFC", _CONTROL.sub("", tok)) or tok
            self.tokens_changed += new != tok
            out.append(new)
        return out

    def clean_pair(self, source: list[str], target: list[str]) -> tuple[list[str], list[str]]:
        """Both sides cleaned; a pair with a changed token counts once in ``pairs_changed``."""
        before = self.tokens_changed
        cleaned = self.clean(source), self.clean(target)
        self.pairs_changed += self.tokens_changed != before
        return cleaned


def json_value_problem(value: Any, what: str, *, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """Why a decoded JSON value (e.g. a pair's metadata) cannot be stored, or None: it must be
    made of dicts with string keys, lists, strings, finite numbers, booleans and None, nested
    at most ``max_depth`` deep, with storable strings. Iterative: no recursion to exhaust."""
    stack: list[tuple[Any, int, str]] = [(value, 0, what)]
    while stack:
        item, depth, where = stack.pop()
        if depth > max_depth:
            return f"{what} is nested more than {max_depth} levels deep"
        if isinstance(item, str):
            if reason := string_problem(item, where):
                return reason
        elif isinstance(item, bool) or item is None or isinstance(item, int):
            continue
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{where} is {item!r}, which is not a JSON number"
        elif isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    return f"{where} has a key that is not a string: {key!r}"
                if reason := string_problem(key, f"a key of {where}"):
                    return reason
                stack.append((sub, depth + 1, f"{where}[{key!r}]"))
        elif isinstance(item, list | tuple):
            stack.extend((sub, depth + 1, f"{where}[{n}]") for n, sub in enumerate(item))
        else:
            return f"{where} holds a {type(item).__name__}, which JSON cannot hold"
    return None


class JSONProblem(ValueError):
    """Text that is not strict JSON; ``str()`` is the reason, ``lineno``/``colno`` where."""

    def __init__(self, reason: str, lineno: int | None = None, colno: int | None = None) -> None:
        super().__init__(reason)
        self.lineno, self.colno = lineno, colno


def _refuse_constant(name: str) -> Any:
    raise JSONProblem(f"{name} is not valid JSON (numbers must be finite)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONProblem(f"the number {text[:40]} is too large for a float")
    return value


STRICT_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def decode_json(text: str, pos: int = 0, *, whole: bool = True) -> tuple[Any, int]:
    """Decode one strict JSON value at ``pos``: (value, end). ``whole``: nothing may follow.

    Raises JSONProblem for anything that is not strict JSON, with the position when known:
    invalid syntax, NaN / Infinity, an out-of-range float, an integer over Python's digit
    limit, or nesting too deep for the decoder.
    """
    try:
        value, end = STRICT_DECODER.raw_decode(text, pos)
    except JSONProblem:
        raise
    except json.JSONDecodeError as exc:
        raise JSONProblem(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise JSONProblem("invalid JSON: nested too deeply") from None
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        if "digits" in str(exc):
            raise JSONProblem("invalid JSON: a number has more digits than allowed") from None
        raise JSONProblem(f"invalid JSON: {exc}") from None
    if whole and text[end:].strip():
        rest = text[end:]
        col = end + len(rest) - len(rest.lstrip()) + 1
        raise JSONProblem("invalid JSON: extra data after the value", 1, col)
    return value, end


def loads(text: str) -> Any:
    """``json.loads`` that raises JSONProblem (see ``decode_json``); leading space allowed."""
    return decode_json(text, len(text) - len(text.lstrip()))[0]
