"""Storing an import's new pairs at the database's own speed, inside the import's transaction.

The pairs are checked and planned before they get here (``importing_plan``); what is left is
sending rows. The ORM's ``bulk_create`` spends most of an import's time building a model
instance per row and adapting each field (measured: about 60 % of a 100,000-pair import on
PostgreSQL). Here each row is encoded once, as the database will store it:

* PostgreSQL: ``COPY ... FROM STDIN`` (text format) fed by a file-like object that encodes the
  rows as psycopg2 reads it, so a chunk's text is never held whole. The primary keys are drawn
  from the table's own sequence first, so the rows carry them and the alignments of the
  import can point at their pairs without reading them back.
* SQLite: one ``executemany`` of a prepared INSERT (the sqlite3 module loops in C). The
  import holds SQLite's one write lock, so the next primary keys are known.

JSON columns are encoded as Django's JSONField encodes them (``json.dumps`` with its
defaults), so the stored rows are the ones ``bulk_create`` would have written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from django.db import connection
from django.utils import timezone

from annotator.models import SentencePair

_COLUMNS = (
    "id", "project_id", "subcorpus_id", "external_id", "position", "source_tokens",
    "target_tokens", "is_trial", "metadata", "created_at",
)  # fmt: skip
# COPY's text format: these characters in a value are written as escapes.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


class NewPair(NamedTuple):
    """One new pair as it will be stored (tokens and metadata still Python values)."""

    external_id: str
    position: int
    source: Sequence[str]
    target: Sequence[str]
    is_trial: bool
    metadata: dict[str, Any]
    subcorpus_id: int | None


def insert_pairs(project_id: int, rows: Sequence[NewPair], *, keys: bool = True) -> list[int]:
    """Insert ``rows`` into the project's pairs; returns their primary keys, in order (an
    empty list without ``keys``: on PostgreSQL the table's identity default then gives them).
    Must run inside the import's transaction (it holds the writes' lock on SQLite)."""
    if not rows:
        return []
    now = timezone.now()
    if connection.vendor == "postgresql":
        return _copy_rows(project_id, rows, now, keys=keys)
    return _execute_rows(project_id, rows, now)


def _table() -> str:
    return connection.ops.quote_name(SentencePair._meta.db_table)


def _copy_rows(project_id: int, rows: Sequence[NewPair], now: Any, *, keys: bool) -> list[int]:
    """PostgreSQL: keys from the sequence (if asked for), then one COPY of the rows."""
    table = SentencePair._meta.db_table
    pks: list[int] = []
    with connection.cursor() as cursor:
        if keys:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
                [table, len(rows)],
            )
            pks = [pk for (pk,) in cursor.fetchall()]
        lines = _copy_lines(project_id, rows, pks or None, str(now))
        columns = ", ".join(_COLUMNS if keys else _COLUMNS[1:])
        cursor.cursor.copy_expert(f"COPY {_table()} ({columns}) FROM STDIN", CopyStream(lines))
    return pks


def _copy_lines(
    project_id: int, rows: Sequence[NewPair], pks: Sequence[int] | None, created: str
) -> Iterator[str]:
    """The rows as lines of COPY's text format (the key first when ``pks`` are given). JSON
    text (``json.dumps``' defaults: ASCII, control characters escaped) can only hold a
    backslash among COPY's special characters."""
    dumps, escape = json.dumps, _escape_json
    head = f"\t{project_id}\t" if pks else f"{project_id}\t"
    tail = f"\t{created}\n"
    for k, row in enumerate(rows):
        sub = "\\N" if row.subcorpus_id is None else str(row.subcorpus_id)
        yield "".join(
            (
                str(pks[k]) if pks else "", head, sub, "\t", row.external_id.translate(_COPY_ESCAPES), "\t",
                str(row.position), "\t", escape(tokens_json(row.source)), "\t",
                escape(tokens_json(row.target)), "\tt\t" if row.is_trial else "\tf\t",
                escape(dumps(row.metadata)) if row.metadata else "{}", tail,
            )
        )  # fmt: skip


def tokens_json(tokens: Sequence[str]) -> str:
    """``json.dumps(tokens)``, built directly when no token needs an escape (printable ASCII
    without a quote or backslash: the checks have refused control characters)."""
    plain = " ".join(tokens)
    if plain.isascii() and plain.isprintable() and '"' not in plain and "\\" not in plain:
        return '["' + '", "'.join(tokens) + '"]'
    return json.dumps(list(tokens))


def _escape_json(text: str) -> str:
    return text.replace("\\", "\\\\") if "\\" in text else text


class CopyStream:
    """A file-like object over an iterator of text lines: psycopg2's ``copy_expert`` calls
    ``read(size)`` until it gets nothing; the lines are encoded as they are asked for."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = iter(lines)
        self._buffer = b""

    def read(self, size: int = -1) -> bytes:
        parts = [self._buffer]
        have = len(self._buffer)
        for line in self._lines:
            data = line.encode("utf-8")
            parts.append(data)
            have += len(data)
            if 0 <= size <= have:
                break
        data = b"".join(parts)
        if size < 0:
            self._buffer = b""
            return data
        self._buffer = data[size:]
        return data[:size]

    def readline(self, size: int = -1) -> bytes:  # part of the file protocol; COPY reads
        return self.read(size)


def _execute_rows(project_id: int, rows: Sequence[NewPair], now: Any) -> list[int]:
    """SQLite: keys after the highest ever given (AUTOINCREMENT), then one executemany."""
    table = SentencePair._meta.db_table
    created = connection.ops.adapt_datetimefield_value(now)
    dumps = json.dumps
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT max(coalesce((SELECT max(id) FROM {_table()}), 0), "
            "coalesce((SELECT seq FROM sqlite_sequence WHERE name = %s), 0))",
            [table],
        )
        start = cursor.fetchone()[0] + 1
        pks = list(range(start, start + len(rows)))
        values = (
            (pk, project_id, row.subcorpus_id, row.external_id, row.position,
             tokens_json(row.source), tokens_json(row.target), row.is_trial,
             dumps(row.metadata), created)
            for pk, row in zip(pks, rows, strict=True)
        )  # fmt: skip
        marks = ", ".join("?" for _ in _COLUMNS)
        cursor.cursor.executemany(
            f"INSERT INTO {_table()} ({', '.join(_COLUMNS)}) VALUES ({marks})", values
        )
    return pks
