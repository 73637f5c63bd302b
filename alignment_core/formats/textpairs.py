"""Text-pair formats: TSV, two parallel files, and ``src ||| tgt`` bitext (SPEC §2).

They carry sentences, not alignments: every pair read has ``alignment=None``. Tokens are the
whitespace-separated words of each sentence.

* **tsv** — ``id<TAB>source<TAB>target``. A first line naming its columns is a header
  (``id``, ``source``/``src``, ``target``/``tgt``, optionally ``subcorpus``, ``metadata``
  — a JSON object, as the writer produces — and any other columns, which go to ``metadata``
  as strings; an empty cell adds no metadata key). Without a
  header a line has 3 fields (id, source, target) or 2 (source, target), as the first line does.
* **parallel** — two files, one sentence per line; line n of each is pair n.
* **bitext** — ``source ||| target`` or ``id ||| source ||| target`` (as the first line does).

Where a file gives no ids, pair n (1-based, counting pairs, not blank lines or a header) gets
id ``str(n)`` — the same numbering the parallel and pharaoh formats use, so NAACL pair ids match.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from alignment_core.alignment import AlignedPair
from alignment_core.formats import textcheck
from alignment_core.formats._io import (
    PairCollector,
    check_tokens,
    check_word_id,
    drop_trailing_blank,
    escape_bom,
    split_lines,
)
from alignment_core.formats.errors import FormatError
from alignment_core.formats.textcheck import Normalization

_ALIASES = {"src": "source", "tgt": "target"}
_CORE_COLUMNS = ("id", "source", "target")
_KNOWN_COLUMNS = frozenset((*_CORE_COLUMNS, "subcorpus", "metadata"))
SEPARATOR = "|||"


# -- TSV ------------------------------------------------------------------------------------


def _header(line: str) -> list[str] | None:
    """Column names if ``line`` is a header (it names a source and a target column).

    Known names are matched case-insensitively; other columns keep their spelling (they
    become metadata keys).
    """
    names = []
    for field in line.split("\t"):
        key = field.strip().casefold()
        key = _ALIASES.get(key, key)
        names.append(key if key in _KNOWN_COLUMNS else field.strip())
    if "source" in names and "target" in names:
        return names
    return None


def parse_tsv(
    text: str, name: str, *, max_tokens: int | None = None, normalize: Normalization | None = None
) -> list[AlignedPair]:
    """Read TSV text pairs; blank lines are skipped. See the module docstring for columns."""
    out = PairCollector(name, max_tokens=max_tokens, normalize=normalize)
    for number, pair in iter_tsv(enumerate(split_lines(text), 1), name):
        out.add(pair, number)
    return out.pairs


def iter_tsv(lines: Iterable[tuple[int, str]], name: str) -> Iterator[tuple[int, AlignedPair]]:
    """``(line number, pair)`` of numbered TSV lines, one at a time (a streamed read): the
    first non-blank line may be a header; blank lines are skipped. The caller checks each pair
    (``PairCollector``)."""
    read: _PlainRows | _HeadedRows | None = None
    ordinal = 0
    for number, line in lines:
        if not line.strip():
            continue
        if read is None:
            columns = _header(line)
            if columns is not None:
                _check_columns(columns, name, number)
                read = _HeadedRows(columns, name)
                continue
            read = _PlainRows(name)
        ordinal += 1
        yield number, read.pair(line.split("\t"), ordinal, number)


class _PlainRows:
    """Rows without a header: (id, source, target) or (source, target), as the first says."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.n_fields = 0

    def pair(self, fields: list[str], ordinal: int, lineno: int) -> AlignedPair:
        if not self.n_fields:
            self.n_fields = len(fields)
            if self.n_fields not in (2, 3):
                raise FormatError(
                    f"expected 3 tab-separated fields (id, source, target) or 2 "
                    f"(source, target), got {len(fields)}",
                    file=self.name,
                    line=lineno,
                )
        if len(fields) != self.n_fields:
            shape = "id, source, target" if self.n_fields == 3 else "source, target"
            raise FormatError(
                f"expected {self.n_fields} tab-separated fields ({shape}) as on the first line, "
                f"got {len(fields)}",
                file=self.name,
                line=lineno,
            )
        pid = fields[0].strip() if self.n_fields == 3 else str(ordinal)
        return AlignedPair(pid, fields[-2].split(), fields[-1].split())


class _HeadedRows:
    """Rows under a header naming their columns (the core ones, subcorpus, metadata, more)."""

    def __init__(self, columns: list[str], name: str) -> None:
        self.columns, self.name = columns, name
        self.idx = {c: n for n, c in enumerate(columns)}
        self.required = max(self.idx[c] for c in _CORE_COLUMNS if c in self.idx) + 1

    def pair(self, fields: list[str], ordinal: int, lineno: int) -> AlignedPair:
        columns, idx = self.columns, self.idx
        if not self.required <= len(fields) <= len(columns):
            raise FormatError(
                f"expected {len(columns)} tab-separated fields as the header says "
                f"({', '.join(columns)}), got {len(fields)}",
                file=self.name,
                line=lineno,
            )
        fields += [""] * (len(columns) - len(fields))
        pair = AlignedPair(
            fields[idx["id"]].strip() if "id" in idx else str(ordinal),
            fields[idx["source"]].split(),
            fields[idx["target"]].split(),
        )
        for col, value in zip(columns, fields, strict=True):
            value = value.strip()
            if col in _CORE_COLUMNS or not value:
                continue
            if col == "subcorpus":
                pair.subcorpus = value
            elif col == "metadata":
                pair.metadata.update(_metadata_cell(value, self.name, lineno))
            else:
                pair.metadata[col] = value
        return pair


def _check_columns(columns: list[str], name: str, line: int) -> None:
    seen: set[str] = set()
    for col in columns:
        if not col:
            raise FormatError("header has an empty column name", file=name, line=line)
        if col in seen:
            raise FormatError(f"header names column {col!r} twice", file=name, line=line)
        seen.add(col)


def _metadata_cell(value: str, name: str, line: int) -> dict:
    try:
        meta = textcheck.loads(value)
    except textcheck.JSONProblem as exc:
        column = f" (column {exc.colno})" if exc.colno else ""
        raise FormatError(
            f"the metadata column must hold a JSON object: {exc}{column}", file=name, line=line
        ) from None
    if not isinstance(meta, dict):
        raise FormatError("the metadata column must hold a JSON object", file=name, line=line)
    return meta


def _tsv_cell(value: str, pair: AlignedPair, what: str) -> str:
    if any(c in value for c in "\t\n\r") or value != value.strip():
        raise FormatError(
            f"cannot write pair {pair.id!r} as tsv: its {what} {value!r} contains a tab, a line "
            "break or surrounding whitespace"
        )
    return value


def format_tsv(pairs: Iterable[AlignedPair]) -> Iterator[str]:
    """A header line ``id source target subcorpus metadata``, then one line per pair.

    ``metadata`` holds the pair's metadata as a JSON object (empty when there is none), so a
    file written here reads back losslessly while the writer still streams.
    """
    yield "id\tsource\ttarget\tsubcorpus\tmetadata\n"
    for pair in pairs:
        check_tokens(pair, "tsv")
        meta = escape_bom(json.dumps(pair.metadata, ensure_ascii=False)) if pair.metadata else ""
        cells = [
            _tsv_cell(pair.id, pair, "id"),
            " ".join(pair.source),
            " ".join(pair.target),
            _tsv_cell(pair.subcorpus, pair, "subcorpus"),
            _tsv_cell(meta, pair, "metadata"),
        ]
        yield "\t".join(cells) + "\n"


# -- bitext ---------------------------------------------------------------------------------


def parse_bitext(
    text: str, name: str, *, max_tokens: int | None = None, normalize: Normalization | None = None
) -> list[AlignedPair]:
    """Read ``src ||| tgt`` or ``id ||| src ||| tgt`` lines (the first line sets which)."""
    out = PairCollector(name, max_tokens=max_tokens, normalize=normalize)
    parts_expected = 0
    ordinal = 0
    for k, line in enumerate(split_lines(text)):
        tokens = line.split()
        if not tokens:
            continue
        ordinal += 1
        parts: list[list[str]] = [[]]
        for tok in tokens:
            if tok == SEPARATOR:
                parts.append([])
            else:
                parts[-1].append(tok)
        if not parts_expected:
            parts_expected = len(parts)
        if len(parts) != parts_expected or len(parts) not in (2, 3):
            shape = "'id ||| source ||| target'" if parts_expected == 3 else "'source ||| target'"
            raise FormatError(
                f"expected {shape} (as on the first line), found {len(parts) - 1} '|||' separators",
                file=name,
                line=k + 1,
            )
        pid = " ".join(parts[0]) if len(parts) == 3 else str(ordinal)
        out.add(AlignedPair(pid, parts[-2], parts[-1]), k + 1)
    return out.pairs


def format_bitext(pairs: Iterable[AlignedPair]) -> Iterator[str]:
    """One ``id ||| source ||| target`` line per pair (ids are always written)."""
    for pair in pairs:
        check_tokens(pair, "bitext", forbidden=(SEPARATOR,))
        check_word_id(pair, "bitext")
        yield f"{pair.id} ||| {' '.join(pair.source)} ||| {' '.join(pair.target)}\n"


# -- parallel files -------------------------------------------------------------------------


def parse_parallel(
    source_text: str,
    source_name: str,
    target_text: str,
    target_name: str,
    *,
    max_tokens: int | None = None,
    normalize: Normalization | None = None,
) -> list[AlignedPair]:
    """Line n of both files is pair n (id ``str(n)``); trailing blank lines are ignored.

    A blank line elsewhere is an empty sentence, which is an error (it would shift every
    following pair if skipped on one side only).
    """
    src = drop_trailing_blank(split_lines(source_text))
    tgt = drop_trailing_blank(split_lines(target_text))
    check_same_length(source_name, len(src), target_name, len(tgt), what="sentences")
    out = PairCollector(source_name, max_tokens=max_tokens, normalize=normalize)
    for k, (s, t) in enumerate(zip(src, tgt, strict=True)):
        for side, sentence, name in (("source", s, source_name), ("target", t, target_name)):
            if not sentence.strip():
                raise FormatError(
                    f"empty {side} sentence (line {k + 1} of both files is pair {k + 1})",
                    file=name,
                    line=k + 1,
                )
        out.add(AlignedPair(str(k + 1), s.split(), t.split()), k + 1)
    return out.pairs


def check_same_length(a_name: str, a_count: int, b_name: str, b_count: int, *, what: str) -> None:
    """Ragged parallel files: name both files and both counts, pointing at the first extra line."""
    if a_count == b_count:
        return
    longer = a_name if a_count > b_count else b_name
    raise FormatError(
        f"files are ragged: {a_name} has {a_count} {what} but {b_name} has {b_count}",
        file=longer,
        line=min(a_count, b_count) + 1,
    )


def format_sentences(pairs: Iterable[AlignedPair], side: str) -> Iterator[str]:
    """One sentence per line, ``side`` = "source" or "target" (half of a parallel corpus)."""
    if side not in ("source", "target"):
        raise ValueError(f"side must be 'source' or 'target', not {side!r}")
    for pair in pairs:
        check_tokens(pair, "parallel text")
        yield " ".join(pair.source if side == "source" else pair.target) + "\n"
