"""Sentences from documents: plain text (pysbd per language), one-sentence-per-line text taken
as it is, and HTML turned into blocks (lxml) whose boundaries the aligner uses as anchors.

Everything here takes text (``str``) and returns plain lists; reading and decoding files is the
caller's business (``alignment_core.formats._io.read_path`` names file and line on errors).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_SPACE = re.compile(r"\s+")

# Elements whose text is a block of its own (a paragraph, a heading, a cell …).
BLOCK_TAGS = frozenset(
    [
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "dt",
        "dd",
        "td",
        "th",
        "caption",
        "figcaption",
        "blockquote",
        "pre",
        "div",
        "section",
        "article",
        "main",
        "aside",
        "header",
        "footer",
        "address",
        "title",
        "summary",
        "legend",
        "label",
        "option",
    ]
)
# Elements whose text is never main text.
SKIP_TAGS = frozenset(
    ["script", "style", "noscript", "template", "nav", "svg", "head", "iframe", "object", "form"]
)


class SplitError(ValueError):
    """The text cannot be split as asked (an unknown language, HTML that does not parse)."""


@dataclass(frozen=True)
class Block:
    """One block of an HTML page: its text (whitespace collapsed) and where it sits (a path of
    tag names and 1-based sibling positions, e.g. ``body/div[2]/p[1]``)."""

    text: str
    path: str


def languages() -> list[str]:
    from pysbd.languages import LANGUAGE_CODES

    return sorted(LANGUAGE_CODES)


def lines_as_sentences(text: str) -> list[str]:
    """One sentence per line, as it is: line k is sentence k - 1 (trailing spaces and the last
    line end removed; empty lines stay, so indices match the file's lines)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r").strip() for line in lines]


def split_text(text: str, lang: str) -> list[str]:
    """Sentences of raw text: each paragraph (a run of non-empty lines) is split by pysbd's
    rules for ``lang`` (ISO 639-1, see ``languages()``), never at the periods of our own
    abbreviations, initials, numbers and ordinals (``abbreviations``), and always after an
    abbreviation that can end a sentence (``etc.``, ``usw.``, ``m.``) when a capital follows
    (pysbd keeps ``8125 m. Er kehrte`` together); a paragraph's end always ends its
    sentence. Whitespace inside a sentence is collapsed; empty sentences are dropped."""
    segmenter = _segmenter(lang)
    protect = _protector(lang)
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = _SPACE.sub(" ", para).strip()
        if not para:
            continue
        held, cuts = protect(para)
        for lo, hi in zip([0, *cuts], [*cuts, len(held)], strict=True):
            for sent in segmenter.segment(held[lo:hi]):
                sent = _SPACE.sub(" ", sent.replace(_HELD, ".")).strip()
                if sent:
                    out.append(sent)
    return out


# A period the splitter must not take as a boundary is replaced by this (a private-use
# character, one for one, so offsets hold) while pysbd runs, then put back.
_HELD = "\ue000"
_LETTER = r"[^\W\d_]"


def _hold(match: re.Match) -> str:
    return match.group(0).replace(".", _HELD)


def _next_char(text: str, pos: int) -> str:
    """The first non-space character at or after ``pos`` ('' at the end)."""
    rest = text[pos:].lstrip()
    return rest[:1]


def _abbreviation_pattern(abbrevs, *, capitalised: bool = True) -> re.Pattern | None:
    """One regex for a list of abbreviations: spaces after inner periods optional, a
    lowercase first letter also capitalised (``capitalised``: ``Vgl.`` starting a sentence),
    not inside a longer word."""
    alts = []
    for abbr in sorted(set(abbrevs), key=len, reverse=True):
        compact = abbr.replace(" ", "")
        parts = []
        for k, ch in enumerate(compact):
            if k == 0 and ch.islower() and capitalised:  # at a sentence start (never lowered:
                parts.append(f"[{ch}{ch.upper()}]")  # French "M." is not the unit "m.")
            else:
                parts.append(re.escape(ch))
            if ch == "." and k < len(compact) - 1:
                parts.append(r"\s?")
        tail = "" if compact.endswith(".") else r"(?!\w)"
        alts.append("".join(parts) + tail)
    if not alts:
        return None
    return re.compile(r"(?<![\w.])(?:" + "|".join(alts) + ")")


@lru_cache(maxsize=64)
def _protector(lang: str):
    """``text -> (text, cuts)``: the periods that end no sentence in ``lang`` held, and the
    offsets after a sentence-ending abbreviation followed by a capital (where it ends)."""
    from alignment_core.sentalign.abbreviations import for_language

    ab = for_language(lang)
    inner = _abbreviation_pattern(ab.inner)
    before_number = _abbreviation_pattern(ab.before_number)
    may_end = _abbreviation_pattern(ab.may_end, capitalised=False)
    months = {m.lower() for m in ab.months}
    after = {w.lower() for w in ab.ordinal_after}
    ordinal = re.compile(r"(?<![\w.])(?:(\w+)\s+)?(\d{1,3})\.(?=\s+(\w+))")
    initial = re.compile(rf"(?<!{_LETTER})(?<![.\d]){_LETTER}\.(?=\s?({_LETTER}))")

    def in_sentence(text: str, m: re.Match) -> bool:
        nxt = _next_char(text, m.end())
        return nxt.islower() or nxt.isdigit() or nxt in ",;:)]"

    def ordinal_sub(m: re.Match) -> str:
        word, nxt = (m.group(1) or "").lower(), m.group(3)
        if word in after or nxt.lower() in months or nxt[:1].islower() or nxt[:1].isdigit():
            return m.group(0)[: m.start(2) - m.start(0)] + m.group(2) + _HELD
        return m.group(0)

    def initial_sub(m: re.Match) -> str:
        return _hold(m) if m.group(0)[0].isupper() and m.group(1).isupper() else m.group(0)

    def protect(text: str) -> str:
        text = re.sub(r"(?<=\d)\.(?=\d)", _HELD, text)  # 1.5, 3.7.2020, 10.30
        if inner:
            text = inner.sub(_hold, text)
        if before_number:
            text = before_number.sub(
                lambda m: _hold(m) if _next_char(text, m.end()).isdigit() else m.group(0), text
            )
        cuts = []
        if may_end:
            cuts = [m.end() for m in may_end.finditer(text) if _next_char(text, m.end()).isupper()]
            text = may_end.sub(lambda m: _hold(m) if in_sentence(text, m) else m.group(0), text)
        text = ordinal.sub(ordinal_sub, text)
        return initial.sub(initial_sub, text), cuts

    return protect


def _segmenter(lang: str):
    import pysbd

    if lang not in languages():
        raise SplitError(f"no sentence splitter for language {lang!r} (known: {languages()})")
    return pysbd.Segmenter(language=lang, clean=False)


def looks_like_html(text: str) -> bool:
    head = text.lstrip()[:512].lower()
    return head.startswith(("<!doctype html", "<html")) or bool(
        re.search(r"<(body|p|div|h[1-6])[\s>]", head)
    )


def html_blocks(html: str) -> list[Block]:
    """The main text of a page as blocks, in document order.

    A block is a run of text directly inside a block element; a nested block element is a
    block of its own and cuts its parent's text, so ``<div>intro <p>para</p> outro</div>``
    gives ``intro`` (path ``…/div[1]``), ``para`` (``…/div[1]/p[1]``) and ``outro``
    (``…/div[1]``). Scripts, styles, navigation and the head are left out; empty blocks are
    dropped.
    """
    import lxml.etree
    import lxml.html

    if not html.strip():
        return []
    try:
        root = lxml.html.document_fromstring(html)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise SplitError(f"not readable as HTML: {exc}") from None
    body = root.find("body")
    start = body if body is not None else root
    blocks: list[Block] = []

    def tag_of(el) -> str:
        return el.tag.lower() if isinstance(el.tag, str) else ""

    # Text waits in ``pending`` (with the path of the block it belongs to) until a block
    # boundary flushes it, so a block nested inside inline elements still cuts the text.
    pending: list[str] = []
    pending_path = [tag_of(start)]

    def flush() -> None:
        text = _SPACE.sub(" ", "".join(pending)).strip()
        if text:
            blocks.append(Block(text, pending_path[0]))
        pending.clear()

    def walk(el, path: str, block_path: str) -> None:
        pending.append(el.text or "")
        counts: dict[str, int] = {}
        for child in el:
            tag = tag_of(child)
            if tag and tag not in SKIP_TAGS:
                counts[tag] = counts.get(tag, 0) + 1
                child_path = f"{path}/{tag}[{counts[tag]}]"
                if tag in BLOCK_TAGS:
                    flush()
                    pending_path[0] = child_path
                    walk(child, child_path, child_path)
                    flush()
                    pending_path[0] = block_path
                elif tag == "br":
                    pending.append(" ")
                else:
                    walk(child, child_path, block_path)
            pending.append(child.tail or "")

    walk(start, tag_of(start), tag_of(start))
    flush()
    return blocks


def html_sentences(html: str, lang: str) -> tuple[list[str], list[int], list[Block]]:
    """Sentences of a page, each sentence's block number (0-based, non-decreasing), the blocks."""
    sentences: list[str] = []
    block_of: list[int] = []
    blocks = html_blocks(html)
    for k, block in enumerate(blocks):
        for sent in split_text(block.text, lang):
            sentences.append(sent)
            block_of.append(k)
    return sentences, block_of, blocks
