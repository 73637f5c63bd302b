"""The seed triggers of PairTally (migration 0010) look up each written seed's pair by its key,
whatever the planner thinks of the tables.

Found by seeding a million-pair project: the trigger after each 2,000-seed insert joined the
statement's pairs to the pairs table, and with the seeds table not yet analysed (a seeding
writes it faster than autovacuum analyses it) the planner guessed one row for the statement's
pairs and read the whole pairs table against them: 60 s a statement at 500,000 seeds, growing
with the project (EXPLAIN ANALYZE: 2,000 million join comparisons). Here each pair is found by
a ``LATERAL`` subquery with ``LIMIT 1`` (never flattened into a join, so always an index
probe on the primary key), and each pair's seeds are counted by a probe of the seeds' pair
index, as before. The counts written are the same.
"""

from django.db import migrations

TALLY = "annotator_pairtally"
SEED_TALLY = "annotator_seedtally"
PAIRS = "annotator_sentencepair"
SEEDS = "annotator_seedalignment"


def seeded_change(changed: str, sign: str, condition: str) -> str:
    """The PairTally rows adding ``sign`` to ``seeded`` for each pair in ``changed`` (a
    subquery of pair_id, k) whose seed count now meets ``condition`` (on ``k`` and ``now``)."""
    return f"""
    INSERT INTO {TALLY} (project_id, subcorpus_id, pairs, trial, seeded)
    SELECT p.project_id, p.subcorpus_id, 0, 0, {sign}count(*)
    FROM ({changed}) c
    CROSS JOIN LATERAL (
        SELECT x.project_id, x.subcorpus_id FROM {PAIRS} x WHERE x.id = c.pair_id LIMIT 1
    ) p
    CROSS JOIN LATERAL (SELECT count(*) AS now FROM {SEEDS} s WHERE s.pair_id = c.pair_id) s
    WHERE {condition}
    GROUP BY p.project_id, p.subcorpus_id"""


# pairs whose first seeds these are (all their seeds are this statement's)
SEEDS_INSERTED = seeded_change(
    "SELECT pair_id, count(*) AS k FROM new_seeds GROUP BY pair_id", "", "c.k = s.now"
)
# pairs left with no seed at all
SEEDS_DELETED = seeded_change(
    "SELECT pair_id, count(*) AS k FROM old_seeds GROUP BY pair_id", "-", "s.now = 0"
)

PREVIOUS_INSERTED = f"""INSERT INTO {TALLY} (project_id, subcorpus_id, pairs, trial, seeded)
    SELECT p.project_id, p.subcorpus_id, 0, 0, count(*)
    FROM (SELECT pair_id, count(*) AS k FROM new_seeds GROUP BY pair_id) n
    JOIN {PAIRS} p ON p.id = n.pair_id
    WHERE n.k = (SELECT count(*) FROM {SEEDS} s WHERE s.pair_id = n.pair_id)
    GROUP BY p.project_id, p.subcorpus_id"""
PREVIOUS_DELETED = f"""INSERT INTO {TALLY} (project_id, subcorpus_id, pairs, trial, seeded)
    SELECT p.project_id, p.subcorpus_id, 0, 0, -count(*)
    FROM (SELECT DISTINCT pair_id FROM old_seeds) o
    JOIN {PAIRS} p ON p.id = o.pair_id
    WHERE (SELECT count(*) FROM {SEEDS} s WHERE s.pair_id = o.pair_id) = 0
    GROUP BY p.project_id, p.subcorpus_id"""


def functions(inserted: str, deleted: str) -> str:
    """Both seed triggers' functions, with ``inserted`` and ``deleted`` as their PairTally
    statements (their SeedTally statements are 0010's)."""
    return f"""
CREATE OR REPLACE FUNCTION gridalign_tally_seeds_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {inserted};
    INSERT INTO {SEED_TALLY} (aligner_run_id, seeds)
    SELECT aligner_run_id, count(*) FROM new_seeds GROUP BY aligner_run_id;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION gridalign_tally_seeds_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {deleted};
    INSERT INTO {SEED_TALLY} (aligner_run_id, seeds)
    SELECT aligner_run_id, -count(*) FROM old_seeds GROUP BY aligner_run_id;
    RETURN NULL;
END $$;
"""


def on_postgresql(sql: str):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0013_queue_tally"),
    ]

    operations = [
        migrations.RunPython(
            on_postgresql(functions(SEEDS_INSERTED, SEEDS_DELETED)),
            on_postgresql(functions(PREVIOUS_INSERTED, PREVIOUS_DELETED)),  # 0010's, going back
        ),
    ]
