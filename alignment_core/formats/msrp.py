"""The Microsoft Research Paraphrase Corpus format (Dolan & Brockett 2005), for sentence pairs
with a yes/no decision (issue 33's pair classifier).

Tab-separated, UTF-8 (a byte-order mark is tolerated), one header line then one pair a line:
``Quality  #1 ID  #2 ID  #1 String  #2 String``. Quality is ``1`` (the two strings say the
same thing / the pair is worth aligning) or ``0``; strings may hold ``"`` (there is no
quoting: fields are split on tabs only, so a string cannot contain a tab). The header is
recognised with spaces or hyphens (``#1-ID``); it is written as the corpus writes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from alignment_core.alignment import AlignedPair
from alignment_core.formats._io import PairCollector
from alignment_core.formats.errors import FormatError
from alignment_core.formats.textcheck import Normalization

HEADER = ("Quality", "#1 ID", "#2 ID", "#1 String", "#2 String")


@dataclass(frozen=True)
class MsrpPair:
    quality: int | None  # 1, 0, or None when the file leaves the decision empty
    id1: str
    id2: str
    string1: str
    string2: str


def _norm(field: str) -> str:
    return field.strip().lower().replace("-", " ").replace("_", " ")


def parse_msrp(text: str, name: str = "<msrp>", *, require_quality: bool = True) -> list[MsrpPair]:
    """Read an MSRP file. ``require_quality=False`` accepts an empty Quality (pairs to classify)."""
    lines = text.replace("\ufeff", "").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise FormatError("empty file (expected the header " + "\\t".join(HEADER) + ")", file=name)
    header = [_norm(f) for f in lines[0].rstrip("\r").split("\t")]
    if header != [_norm(f) for f in HEADER]:
        raise FormatError(
            "first line is not the MSRP header (Quality, #1 ID, #2 ID, #1 String, #2 String "
            "separated by tabs)",
            file=name,
            line=1,
        )
    out: list[MsrpPair] = []
    for k, raw in enumerate(lines[1:], start=2):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            raise FormatError(
                f"{len(fields)} tab-separated fields, expected 5 (Quality, #1 ID, #2 ID, "
                "#1 String, #2 String)",
                file=name,
                line=k,
            )
        q = fields[0].strip()
        if q in ("0", "1"):
            quality: int | None = int(q)
        elif q == "" and not require_quality:
            quality = None
        else:
            raise FormatError(f"Quality {q!r} is not 0 or 1", file=name, line=k)
        if not fields[3].strip() or not fields[4].strip():
            raise FormatError("an empty string", file=name, line=k)
        out.append(MsrpPair(quality, fields[1].strip(), fields[2].strip(), fields[3], fields[4]))
    return out


def format_msrp(pairs: Iterable[MsrpPair]) -> Iterator[str]:
    yield "\t".join(HEADER) + "\n"
    for p in pairs:
        for field in (p.id1, p.id2, p.string1, p.string2):
            if "\t" in field or "\n" in field:
                raise FormatError(f"pair {p.id1}/{p.id2}: a field holds a tab or a line end")
        q = "" if p.quality is None else str(p.quality)
        yield f"{q}\t{p.id1}\t{p.id2}\t{p.string1}\t{p.string2}\n"


# Words (with inner hyphens, apostrophes and dots: "well-known", "don't", "U.S") and each
# punctuation mark: MSRP strings are running text, and the grid needs tokens.
_TOKEN = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]")
QUALITY_KEY = "msrp_quality"


def tokenize(text: str) -> list[str]:
    """The grid's tokens of running text: words and punctuation marks, in order."""
    return _TOKEN.findall(text)


def parse_pairs(
    text: str, name: str, *, max_tokens: int | None = None, normalize: Normalization | None = None
) -> list[AlignedPair]:
    """An MSRP file as sentence pairs to align: id ``#1 ID-#2 ID``, both strings tokenised,
    the Quality (when given) kept in the pair's metadata as ``msrp_quality``."""
    out = PairCollector(name, max_tokens=max_tokens, normalize=normalize)
    for k, row in enumerate(parse_msrp(text, name, require_quality=False)):
        metadata = {} if row.quality is None else {QUALITY_KEY: row.quality}
        pair = AlignedPair(
            id=f"{row.id1}-{row.id2}",
            source=tokenize(row.string1),
            target=tokenize(row.string2),
            metadata=metadata,
        )
        out.add(pair, k + 2)  # line 1 is the header
    return out.pairs


def format_pairs(pairs: Iterable[AlignedPair]) -> Iterator[str]:
    """Sentence pairs in MSRP form (tokens joined by spaces; an id ``a-b`` gives the two ids)."""

    def rows() -> Iterator[MsrpPair]:
        for p in pairs:
            id1, _, id2 = p.id.partition("-")
            yield MsrpPair(
                quality=p.metadata.get(QUALITY_KEY) if p.metadata else None,
                id1=id1,
                id2=id2 or id1,
                string1=" ".join(p.source),
                string2=" ".join(p.target),
            )

    yield from format_msrp(rows())
