"""GIZA++ ``*.A3.*`` files (SPEC §2), as GIZA writes them and as the MSR RTE corpus ships them.

Three lines per pair::

    # Sentence pair (7) source length 3 target length 2 alignment score : 1.5e-08
    the house                                  <- our SOURCE sentence
    NULL ({ }) das ({ 1 }) Haus ({ 2 p1 })     <- our TARGET sentence, each token followed by
                                                  the 1-based SOURCE positions it links to

The id is what the header's parentheses hold (``# sentence pair 7`` is accepted too). A ``p``
before a position marks a possible link, ``/`` is ignored, and a leading ``NULL`` group is
skipped; a truncated ``}`` closes a group like ``})``. Link (i, j) is 0-based: i = position − 1, j = index of the target token (NULL not
counted). Any ``alignment score`` goes to ``metadata["alignment_score"]`` (a string).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from alignment_core.alignment import AlignedPair, AlignmentError
from alignment_core.formats._io import (
    LinkSet,
    PairCollector,
    check_tokens,
    check_word_id,
    sorted_links,
    split_lines,
)
from alignment_core.formats.errors import FormatError
from alignment_core.formats.textcheck import Normalization

_HEADER = re.compile(r"#\s*sentence\s+pair\s*(?:\(\s*([^()]*?)\s*\)|([^\s()]+))(.*)", re.I)
_SCORE = re.compile(r"alignment\s+score\s*:\s*(\S+)", re.I)
OPEN, CLOSE = "({", "})"
# A lone "}" also closes a group: it cannot be a position, and real files truncate "})"
# (the MSR RTE2 C file ends with "({ 23 / / }").
CLOSERS = frozenset((CLOSE, "}"))


def _groups(line: str, name: str, lineno: int) -> list[tuple[str, list[str]]]:
    """Split a target line into (token, entries-inside-the-braces) groups."""
    toks = line.split()
    groups: list[tuple[str, list[str]]] = []
    k = 0
    while k < len(toks):
        word = toks[k]
        if k + 1 >= len(toks) or toks[k + 1] != OPEN:
            raise FormatError(
                f"target token {word!r} is not followed by '({{ ... }})'", file=name, line=lineno
            )
        k += 2
        start = k
        while k < len(toks) and toks[k] not in CLOSERS:
            k += 1
        if k == len(toks):
            raise FormatError(f"'({{' after token {word!r} is never closed", file=name, line=lineno)
        groups.append((word, toks[start:k]))
        k += 1
    return groups


def _positions(entries: list[str], word: str, name: str, lineno: int) -> list[tuple[int, bool]]:
    """(1-based source position, is_sure) for each entry; ``/`` is ignored."""
    out = []
    for entry in entries:
        if entry == "/":
            continue
        possible = entry[:1] == "p"
        digits = entry[1:] if possible else entry
        if not (digits.isascii() and digits.isdigit()):
            raise FormatError(
                f"malformed position {entry!r} after token {word!r} (expected N or pN, 1-based)",
                file=name,
                line=lineno,
            )
        pos = int(digits)
        if pos == 0:
            raise FormatError(
                f"position 0 after token {word!r}: source positions are 1-based",
                file=name,
                line=lineno,
            )
        out.append((pos, not possible))
    return out


def parse(
    text: str, name: str, *, max_tokens: int | None = None, normalize: Normalization | None = None
) -> list[AlignedPair]:
    """Read every record; blank lines between records are ignored."""
    lines = split_lines(text)
    out = PairCollector(name, max_tokens=max_tokens, normalize=normalize)
    k = 0
    while k < len(lines):
        if not lines[k].strip():
            k += 1
            continue
        header_no = k + 1
        m = _HEADER.fullmatch(lines[k].strip())
        if m is None:
            raise FormatError(
                "expected a '# sentence pair (N) ...' header line", file=name, line=header_no
            )
        pid = m[1] if m[1] is not None else m[2]
        if k + 2 >= len(lines):
            raise FormatError(
                f"pair {pid!r}: the file ends before its source and target lines",
                file=name,
                line=header_no,
            )
        source = lines[k + 1].split()
        groups = _groups(lines[k + 2], name, k + 3)
        if groups and groups[0][0] == "NULL":
            _positions(groups[0][1], "NULL", name, k + 3)  # checked, then ignored
            groups = groups[1:]
        links = LinkSet()
        for j, (word, entries) in enumerate(groups):
            for pos, sure in _positions(entries, word, name, k + 3):
                if pos > len(source):
                    raise FormatError(
                        f"pair {pid!r}: target token {j + 1} ({word!r}) links source position "
                        f"{pos}, but the source sentence has {len(source)} tokens",
                        file=name,
                        line=k + 3,
                    )
                try:
                    links.add(pos - 1, j, sure)
                except AlignmentError as exc:
                    raise FormatError(
                        f"pair {pid!r}: {exc} (0-based; the file lists position {pos} after "
                        f"target token {j + 1}, {word!r})",
                        file=name,
                        line=k + 3,
                    ) from None
        pair = AlignedPair(pid, source, [w for w, _ in groups], links.alignment())
        score = _SCORE.search(m[3])
        if score:
            pair.metadata["alignment_score"] = score[1]
        for side, tokens, lineno in (("source", source, k + 2), ("target", groups, k + 3)):
            if not tokens:
                raise FormatError(f"pair {pid!r}: empty {side} sentence", file=name, line=lineno)
        out.add(pair, header_no)
        k += 3
    return out.pairs


def format_giza_a3(pairs: Iterable[AlignedPair]) -> Iterator[str]:
    """One three-line record per pair, shaped as GIZA++ writes it.

    As in GIZA, the header's "source length" counts the third line's tokens (our target) and
    "target length" the second line's (our source); ``NULL`` lists the unaligned source
    positions. Readers ignore both, so the round trip is lossless.
    """
    for pair in pairs:
        check_tokens(pair, "giza-a3")
        check_word_id(pair, "giza-a3", forbidden_chars="()")
        by_target: list[list[str]] = [[] for _ in pair.target]
        aligned: set[int] = set()
        for i, j, sure in sorted_links(pair.alignment):
            by_target[j].append(str(i + 1) if sure else f"p{i + 1}")
            aligned.add(i)
        header = (
            f"# Sentence pair ({pair.id}) source length {len(pair.target)} "
            f"target length {len(pair.source)}"
        )
        score = pair.metadata.get("alignment_score")
        if score is not None:
            if not str(score) or str(score).split() != [str(score)]:
                raise FormatError(
                    f"cannot write pair {pair.id!r} as giza-a3: alignment_score {score!r} is not "
                    "a single word"
                )
            header += f" alignment score : {score}"
        unaligned = [str(i + 1) for i in range(len(pair.source)) if i not in aligned]
        groups = [("NULL", unaligned), *zip(pair.target, by_target, strict=True)]
        target = " ".join(f"{w} ({{ {' '.join(e)} }})" if e else f"{w} ({{ }})" for w, e in groups)
        yield f"{header}\n{' '.join(pair.source)}\n{target}\n"
