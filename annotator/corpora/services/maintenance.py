"""Keeping PostgreSQL's view of the tables current after a bulk write.

Straight after a large import the new rows' pages are not yet marked all-visible, so the
pair list's count and offset walk read every row from the heap (the API benchmark measured
the list 4.6× a trivial view then, 2.9× once vacuumed), until autovacuum comes round.
PostgreSQL's own advice for a bulk load is to VACUUM and ANALYZE afterwards; an import that
wrote at least ``SETTLE_ROWS`` rows does so once it has committed (``settle_after_commit``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import partial

from django.db import DatabaseError, connections, transaction
from django.db.models import Model

log = logging.getLogger(__name__)

# Fewer rows than this and autovacuum's own pass soon after costs nobody anything.
SETTLE_ROWS = 1000


def settle_tables(*, models: Iterable[type[Model]], using: str = "default") -> bool:
    """``VACUUM (ANALYZE)`` the tables of ``models``: planner statistics for the new rows and
    an up-to-date visibility map, so index-only scans see them. PostgreSQL only, and only
    outside a transaction (VACUUM cannot run inside one); returns whether it ran. VACUUM takes
    no lock that blocks reads or writes, so annotators working meanwhile are not held up. It
    runs after the import has committed, so a failure here is logged, never raised: the
    import stands, and autovacuum will do the same later."""
    connection = connections[using]
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return False
    tables = sorted({connection.ops.quote_name(m._meta.db_table) for m in models})
    if not tables:
        return False
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM (ANALYZE) {', '.join(tables)}")
    except DatabaseError:
        log.warning("VACUUM (ANALYZE) of %s after a bulk write failed", tables, exc_info=True)
        return False
    return True


def settle_after_commit(*, models: Iterable[type[Model]], rows: int) -> bool:
    """Settle ``models``' tables once the current transaction commits, when it wrote at least
    ``SETTLE_ROWS`` rows (nothing if it rolls back: a failed or dry-run import). Returns
    whether it was scheduled."""
    if rows < SETTLE_ROWS:
        return False
    transaction.on_commit(partial(settle_tables, models=tuple(models)))
    return True


def analyze_tables(*, models: Iterable[type[Model]], using: str = "default") -> bool:
    """``ANALYZE`` the tables of ``models`` now, inside the current transaction (PostgreSQL and
    SQLite; returns whether it ran). An import read in chunks does so after its first chunk:
    the planner then knows the tables hold rows, and the next chunks' lookups of stored pairs
    by external id use the unique (project, external id) index: without statistics SQLite
    picks the (project, subcorpus) index for them (EXPLAIN QUERY PLAN) and walks every pair of
    the project. Both count the transaction's own new rows; SQLite's statistics roll back
    with it."""
    connection = connections[using]
    if connection.vendor not in ("postgresql", "sqlite"):
        return False
    tables = sorted({connection.ops.quote_name(m._meta.db_table) for m in models})
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"ANALYZE {', '.join(tables)}")
        else:  # SQLite analyses one table (or index) a statement
            for table in tables:
                cursor.execute(f"ANALYZE {table}")
    return True
