"""Folding the tallies' rows of changes (PairTally, SeedTally: one row appended per statement
that writes pairs or seeds) into one row per key, so the sums the pages read stay a few rows
after many imports and seedings. PostgreSQL only (SQLite keeps no tally).

Each fold is one statement, ``DELETE ... RETURNING`` feeding the ``INSERT`` of the sums: it
removes exactly the rows it sums, so rows that other transactions append meanwhile are neither
lost nor counted twice."""

from __future__ import annotations

from django.db import connection

FOLD_PAIRS = """
WITH gone AS (DELETE FROM annotator_pairtally WHERE project_id = %s RETURNING *)
INSERT INTO annotator_pairtally (project_id, subcorpus_id, pairs, trial, seeded)
SELECT project_id, subcorpus_id, sum(pairs), sum(trial), sum(seeded) FROM gone
GROUP BY project_id, subcorpus_id
HAVING sum(pairs) <> 0 OR sum(trial) <> 0 OR sum(seeded) <> 0
"""

FOLD_SEEDS = """
WITH gone AS (
    DELETE FROM annotator_seedtally
    WHERE aligner_run_id IN (SELECT id FROM annotator_alignerrun WHERE project_id = %s)
    RETURNING *
)
INSERT INTO annotator_seedtally (aligner_run_id, seeds)
SELECT aligner_run_id, sum(seeds) FROM gone GROUP BY aligner_run_id HAVING sum(seeds) <> 0
"""


def fold_tallies(*, project_id: int) -> bool:
    """Fold the project's tally rows (and its runs' seed tally rows) into one a key; returns
    whether it ran (PostgreSQL). Call it after a bulk write (an import, a seeding)."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute(FOLD_PAIRS, [project_id])
        cursor.execute(FOLD_SEEDS, [project_id])
    return True
