"""PairTally and SeedTally: a project's pair counts (all, trial, seeded, per subcorpus) and each
aligner run's seed count, kept by PostgreSQL triggers, so the project page and the API read
sums of a few rows instead of counting a million pairs or seeds (docs/benchmarks.md, "Scale: pages at 1 M pairs").

Each trigger runs once per statement (transition tables) and appends one row of changes per
(project, subcorpus) that the statement touched: writers never update a shared row, so an
import and a seeding never wait on each other here. SQLite gets the table only (the pages count
there, on projects of laptop size)."""

from django.db import migrations, models

TALLY = "annotator_pairtally"
SEED_TALLY = "annotator_seedtally"
PAIRS = "annotator_sentencepair"
SEEDS = "annotator_seedalignment"

# a pair counts as seeded when at least one seed row names it
HAS_SEED = f"EXISTS (SELECT 1 FROM {SEEDS} s WHERE s.pair_id = {{p}}.id)"

FUNCTIONS = f"""
CREATE FUNCTION gridalign_tally_pairs_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO {TALLY} (project_id, subcorpus_id, pairs, trial, seeded)
    SELECT project_id, subcorpus_id, count(*), count(*) FILTER (WHERE is_trial), 0
    FROM new_pairs GROUP BY project_id, subcorpus_id;
    RETURN NULL;
END $$;

CREATE FUNCTION gridalign_tally_pairs_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- a pair's seeds go before it (its foreign key): nothing seeded is left to take off
    INSERT INTO {TALLY} (project_id, subcorpus_id, pairs, trial, seeded)
    SELECT project_id, subcorpus_id, -count(*), -count(*) FILTER (WHERE is_trial), 0
    FROM old_pairs GROUP BY project_id, subcorpus_id;
    RETURN NULL;
END $$;

CREATE FUNCTION gridalign_tally_pairs_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- only pairs that moved (project, subcorpus) or changed their trial flag
    INSERT INTO {TALLY} (project_id, subcorpus_id, pairs, trial, seeded)
    SELECT project_id, subcorpus_id, sum(sign), coalesce(sum(sign) FILTER (WHERE is_trial), 0),
           coalesce(sum(sign) FILTER (WHERE seeded), 0)
    FROM (
        SELECT o.project_id, o.subcorpus_id, o.is_trial, -1 AS sign,
               {HAS_SEED.format(p="o")} AS seeded
        FROM old_pairs o JOIN new_pairs n ON n.id = o.id
        WHERE (o.project_id, o.subcorpus_id, o.is_trial)
              IS DISTINCT FROM (n.project_id, n.subcorpus_id, n.is_trial)
        UNION ALL
        SELECT n.project_id, n.subcorpus_id, n.is_trial, 1, {HAS_SEED.format(p="n")}
        FROM old_pairs o JOIN new_pairs n ON n.id = o.id
        WHERE (o.project_id, o.subcorpus_id, o.is_trial)
              IS DISTINCT FROM (n.project_id, n.subcorpus_id, n.is_trial)
    ) moved
    GROUP BY project_id, subcorpus_id;
    RETURN NULL;
END $$;

CREATE FUNCTION gridalign_tally_seeds_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- pairs whose first seeds these are: all their seeds are this statement's. One probe of
    -- the seeds' pair index per pair (a scalar subquery): an anti-join may hash the whole
    -- seeds table, once per statement, for a batch of a few rows.
    INSERT INTO {TALLY} (project_id, subcorpus_id, pairs, trial, seeded)
    SELECT p.project_id, p.subcorpus_id, 0, 0, count(*)
    FROM (SELECT pair_id, count(*) AS k FROM new_seeds GROUP BY pair_id) n
    JOIN {PAIRS} p ON p.id = n.pair_id
    WHERE n.k = (SELECT count(*) FROM {SEEDS} s WHERE s.pair_id = n.pair_id)
    GROUP BY p.project_id, p.subcorpus_id;
    INSERT INTO {SEED_TALLY} (aligner_run_id, seeds)
    SELECT aligner_run_id, count(*) FROM new_seeds GROUP BY aligner_run_id;
    RETURN NULL;
END $$;

CREATE FUNCTION gridalign_tally_seeds_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- pairs left with no seed at all
    INSERT INTO {TALLY} (project_id, subcorpus_id, pairs, trial, seeded)
    SELECT p.project_id, p.subcorpus_id, 0, 0, -count(*)
    FROM (SELECT DISTINCT pair_id FROM old_seeds) o
    JOIN {PAIRS} p ON p.id = o.pair_id
    WHERE (SELECT count(*) FROM {SEEDS} s WHERE s.pair_id = o.pair_id) = 0
    GROUP BY p.project_id, p.subcorpus_id;
    INSERT INTO {SEED_TALLY} (aligner_run_id, seeds)
    SELECT aligner_run_id, -count(*) FROM old_seeds GROUP BY aligner_run_id;
    RETURN NULL;
END $$;

CREATE TRIGGER gridalign_tally_pairs_inserted AFTER INSERT ON {PAIRS}
    REFERENCING NEW TABLE AS new_pairs
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_tally_pairs_inserted();
CREATE TRIGGER gridalign_tally_pairs_deleted AFTER DELETE ON {PAIRS}
    REFERENCING OLD TABLE AS old_pairs
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_tally_pairs_deleted();
CREATE TRIGGER gridalign_tally_pairs_updated AFTER UPDATE ON {PAIRS}
    REFERENCING OLD TABLE AS old_pairs NEW TABLE AS new_pairs
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_tally_pairs_updated();
CREATE TRIGGER gridalign_tally_seeds_inserted AFTER INSERT ON {SEEDS}
    REFERENCING NEW TABLE AS new_seeds
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_tally_seeds_inserted();
CREATE TRIGGER gridalign_tally_seeds_deleted AFTER DELETE ON {SEEDS}
    REFERENCING OLD TABLE AS old_seeds
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_tally_seeds_deleted();

-- the counts of what is already there
INSERT INTO {TALLY} (project_id, subcorpus_id, pairs, trial, seeded)
SELECT p.project_id, p.subcorpus_id, count(*), count(*) FILTER (WHERE p.is_trial),
       count(*) FILTER (WHERE {HAS_SEED.format(p="p")})
FROM {PAIRS} p GROUP BY p.project_id, p.subcorpus_id;
INSERT INTO {SEED_TALLY} (aligner_run_id, seeds)
SELECT aligner_run_id, count(*) FROM {SEEDS} GROUP BY aligner_run_id;
"""

DROP = f"""
DROP TRIGGER IF EXISTS gridalign_tally_pairs_inserted ON {PAIRS};
DROP TRIGGER IF EXISTS gridalign_tally_pairs_deleted ON {PAIRS};
DROP TRIGGER IF EXISTS gridalign_tally_pairs_updated ON {PAIRS};
DROP TRIGGER IF EXISTS gridalign_tally_seeds_inserted ON {SEEDS};
DROP TRIGGER IF EXISTS gridalign_tally_seeds_deleted ON {SEEDS};
DROP FUNCTION IF EXISTS gridalign_tally_pairs_inserted();
DROP FUNCTION IF EXISTS gridalign_tally_pairs_deleted();
DROP FUNCTION IF EXISTS gridalign_tally_pairs_updated();
DROP FUNCTION IF EXISTS gridalign_tally_seeds_inserted();
DROP FUNCTION IF EXISTS gridalign_tally_seeds_deleted();
"""


def on_postgresql(sql: str):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0009_aligner_run_published"),
    ]

    operations = [
        migrations.CreateModel(
            name="PairTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("project_id", models.BigIntegerField()),
                ("subcorpus_id", models.BigIntegerField(null=True)),
                ("pairs", models.BigIntegerField(default=0)),
                ("trial", models.BigIntegerField(default=0)),
                ("seeded", models.BigIntegerField(default=0)),
            ],
            options={
                "indexes": [models.Index(fields=["project_id"], name="pairtally_project")],
            },
        ),
        migrations.CreateModel(
            name="SeedTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("aligner_run_id", models.BigIntegerField()),
                ("seeds", models.BigIntegerField(default=0)),
            ],
            options={
                "indexes": [models.Index(fields=["aligner_run_id"], name="seedtally_run")],
            },
        ),
        migrations.RunPython(on_postgresql(FUNCTIONS), on_postgresql(DROP)),
    ]
