"""ORM queries compiled once and run as server-side prepared statements: the grid's hottest
requests (opening a pair, saving it) without the ORM's SQL compilation and PostgreSQL's planning
on every request (issue 32).

A :class:`CompiledQuery` is built from a function that answers the queryset for stand-in values
(ids no row can have). On its first use on a database connection the queryset is compiled once;
the stand-ins are then found among the SQL's parameters and replaced by the real values on every
run. Rows become model instances through Django's own machinery (the compiler's converters, the
related populators of ``select_related``), so an instance is what the same queryset would give:
``tests/app/test_compiled_queries.py`` compares them field by field on both databases.

On PostgreSQL the SQL is PREPAREd once per connection (``PREPARE name AS ...``, one extra round
trip) and run as ``EXECUTE name(...)``: after a few runs the server keeps a generic plan and does
not plan it again. A prepared statement lives as long as its connection (``CONN_MAX_AGE``) and
survives a rollback; a new connection prepares again. Behind a pooler in transaction mode (e.g.
PgBouncer), where a connection's session is not the server's, set
``GRIDALIGN_PREPARED_STATEMENTS=false``: the same SQL is then sent in full each time, as it is on
SQLite.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import get_related_populators
from django.db.models.sql.constants import GET_ITERATOR_CHUNK_SIZE

# A parameter (%s) or a literal per cent sign (%%) in SQL written for a DB-API cursor
_PLACEHOLDER = re.compile(r"%[s%]")


class CompiledQuery:
    """``build(**stand_ins)`` (a queryset) compiled once per connection; :meth:`fetch` runs it
    with real values for the stand-ins and answers its model instances."""

    def __init__(self, name: str, build: Callable[..., QuerySet], stand_ins: dict[str, int]):
        if len(set(stand_ins.values())) != len(stand_ins):
            raise ValueError("each stand-in needs a value of its own")
        self.name = name
        self.build = build
        self.stand_ins = stand_ins

    def fetch(self, using: str = "default", **values: Any) -> list[Any]:
        """The queryset's instances (a ``values_list()``: its tuples) for ``values`` (one per
        stand-in)."""
        connection = connections[using]
        compiled = _compiled_for(connection, self)
        params = [values[p.name] if isinstance(p, _StandIn) else p for p in compiled.params]
        with connection.cursor() as cursor:
            run_prepared(cursor, compiled.statement, compiled.sql, params)
            rows = cursor.fetchall()
        return compiled.instances(rows, using)


class _StandIn:
    """Where a stand-in's value goes among a compiled query's parameters."""

    def __init__(self, name: str):
        self.name = name


class _Compiled:
    """One query compiled on one connection: its SQL, its parameters (constants and stand-ins)
    and what turns its rows into instances (as ``ModelIterable`` does)."""

    def __init__(self, query: CompiledQuery, connection: Any):
        queryset = query.build(**query.stand_ins)
        compiler = queryset.query.get_compiler(connection=connection)
        self.sql, raw = compiler.as_sql()
        by_value = {value: _StandIn(name) for name, value in query.stand_ins.items()}
        self.params = [by_value.get(p, p) if type(p) is int else p for p in raw]
        found = {p.name for p in self.params if isinstance(p, _StandIn)}
        if found != set(query.stand_ins):
            raise ValueError(
                f"{query.name}: stand-ins not in the SQL: {set(query.stand_ins) - found}"
            )
        self.statement = statement_name(query.name, self.sql)
        self.compiler = compiler
        self.klass_info = klass_info = compiler.klass_info
        if klass_info is None:  # values_list(): rows, not instances
            return
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.span = (fields[0], fields[-1] + 1)
        self.init_list = [f[0].target.attname for f in compiler.select[self.span[0] : self.span[1]]]

    def instances(self, rows: Sequence[tuple], using: str) -> list[Any]:
        """The rows as the queryset gives them: model instances, or a ``values_list()``'s
        tuples."""
        compiler = self.compiler
        if compiler.has_extra_select:  # as execute_sql does: only the selected columns
            rows = [row[: compiler.col_count] for row in rows]
        converted = compiler.results_iter([rows], chunk_size=GET_ITERATOR_CHUNK_SIZE)
        if self.klass_info is None:
            return [tuple(row) for row in converted]
        start, end = self.span
        populators = get_related_populators(self.klass_info, compiler.select, using)
        annotations = compiler.annotation_col_map or {}
        out = []
        for row in converted:
            obj = self.model.from_db(using, self.init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            for attr, position in annotations.items():
                setattr(obj, attr, row[position])
            out.append(obj)
        return out


def _compiled_for(connection: Any, query: CompiledQuery) -> _Compiled:
    """``query`` compiled for ``connection`` (a thread's own database wrapper), once."""
    cache = connection.__dict__.setdefault("_gridalign_compiled", {})
    if query.name not in cache:
        cache[query.name] = _Compiled(query, connection)
    return cache[query.name]


def statement_name(kind: str, sql: str) -> str:
    """A prepared statement's name: its kind and a digest of its SQL (one name per text)."""
    return f"gridalign_{kind}_{hashlib.sha1(sql.encode()).hexdigest()[:12]}"


def numbered_parameters(sql: str) -> str:
    """``sql`` as written for a DB-API cursor (``%s``, ``%%``) as PREPARE takes it ($1, $2, %)."""
    numbers = itertools.count(1)
    return _PLACEHOLDER.sub(lambda m: "%" if m.group() == "%%" else f"${next(numbers)}", sql)


def prepared_statements_on(connection: Any) -> bool:
    return connection.vendor == "postgresql" and getattr(
        settings, "GRIDALIGN_PREPARED_STATEMENTS", True
    )


def run_prepared(cursor: Any, name: str, sql: str, params: Sequence[Any]) -> None:
    """Execute ``sql`` (``%s`` placeholders) with ``params`` through ``cursor``: on PostgreSQL as
    the prepared statement ``name``, PREPAREd the first time this connection runs it."""
    connection = cursor.db
    if not prepared_statements_on(connection):
        cursor.execute(sql, params)
        return
    raw = connection.connection
    known = connection.__dict__.get("_gridalign_prepared")
    if known is None or known[0] is not raw:  # a new connection knows no statement yet
        known = connection.__dict__["_gridalign_prepared"] = (raw, set())
    if name not in known[1]:
        cursor.execute(f"PREPARE {name} AS " + numbered_parameters(sql))
        known[1].add(name)
    if not params:
        cursor.execute(f"EXECUTE {name}")
        return
    cursor.execute(f"EXECUTE {name}(" + ", ".join(["%s"] * len(params)) + ")", params)
