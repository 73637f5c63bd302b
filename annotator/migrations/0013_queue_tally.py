"""QueueTally: each annotator's queue counts per project (not withdrawn, per status), kept by
PostgreSQL triggers on the assignments, so the queue page and the grid read one row instead of
counting the annotator's whole queue (docs/benchmarks.md, "Not solved: the work's own size").

Each trigger runs once per statement (transition tables) and adds, per (annotator, project) the
statement touched, the changes of its rows: an assignment counts under its status while it is
not withdrawn. The row is updated in place (``INSERT ... ON CONFLICT DO UPDATE``, keys in
order): its writers are that annotator's own saves and the lead's plans. SQLite gets the table
only (the queue is counted there)."""

from django.db import migrations, models

TALLY = "annotator_queuetally"
ASSIGNMENTS = "annotator_assignment"
PAIRS = "annotator_sentencepair"


def add_changes(changes: str) -> str:
    """The statement adding ``changes`` (rows of annotator_id, pair_id, status, sign)."""
    per_status = ", ".join(
        f"coalesce(sum(c.sign) FILTER (WHERE c.status = '{s}'), 0)"
        for s in ("assigned", "in_progress", "submitted")
    )
    return f"""
    INSERT INTO {TALLY} (annotator_id, project_id, assigned, in_progress, submitted)
    SELECT c.annotator_id, p.project_id, {per_status}
    FROM ({changes}) c JOIN {PAIRS} p ON p.id = c.pair_id
    GROUP BY c.annotator_id, p.project_id
    ORDER BY c.annotator_id, p.project_id
    ON CONFLICT (annotator_id, project_id) DO UPDATE SET
        assigned = {TALLY}.assigned + EXCLUDED.assigned,
        in_progress = {TALLY}.in_progress + EXCLUDED.in_progress,
        submitted = {TALLY}.submitted + EXCLUDED.submitted;"""


ROW = "annotator_id, pair_id, status"
# what decides a row's place in the tally (a save that changes neither adds nothing)
KEY = "{t}.annotator_id, {t}.pair_id, {t}.status, {t}.withdrawn_at IS NULL"
MOVED = f"({KEY.format(t='o')}) IS DISTINCT FROM ({KEY.format(t='n')})"
UPDATED = (
    f"SELECT o.annotator_id, o.pair_id, o.status, -1 AS sign FROM old_rows o"
    f" JOIN new_rows n ON n.id = o.id WHERE o.withdrawn_at IS NULL AND {MOVED}"
    f" UNION ALL SELECT n.annotator_id, n.pair_id, n.status, 1 FROM old_rows o"
    f" JOIN new_rows n ON n.id = o.id WHERE n.withdrawn_at IS NULL AND {MOVED}"
)

FUNCTIONS = f"""
CREATE FUNCTION gridalign_queue_tally_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {add_changes(f"SELECT {ROW}, 1 AS sign FROM new_rows WHERE withdrawn_at IS NULL")}
    RETURN NULL;
END $$;

CREATE FUNCTION gridalign_queue_tally_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {add_changes(f"SELECT {ROW}, -1 AS sign FROM old_rows WHERE withdrawn_at IS NULL")}
    RETURN NULL;
END $$;

CREATE FUNCTION gridalign_queue_tally_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE {MOVED}) THEN
        {add_changes(UPDATED)}
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER gridalign_queue_tally_inserted AFTER INSERT ON {ASSIGNMENTS}
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_queue_tally_inserted();
CREATE TRIGGER gridalign_queue_tally_deleted AFTER DELETE ON {ASSIGNMENTS}
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_queue_tally_deleted();
CREATE TRIGGER gridalign_queue_tally_updated AFTER UPDATE ON {ASSIGNMENTS}
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_queue_tally_updated();

-- the counts of what is already there
{add_changes(f"SELECT {ROW}, 1 AS sign FROM {ASSIGNMENTS} WHERE withdrawn_at IS NULL")}
"""

DROP = f"""
DROP TRIGGER IF EXISTS gridalign_queue_tally_inserted ON {ASSIGNMENTS};
DROP TRIGGER IF EXISTS gridalign_queue_tally_deleted ON {ASSIGNMENTS};
DROP TRIGGER IF EXISTS gridalign_queue_tally_updated ON {ASSIGNMENTS};
DROP FUNCTION IF EXISTS gridalign_queue_tally_inserted();
DROP FUNCTION IF EXISTS gridalign_queue_tally_deleted();
DROP FUNCTION IF EXISTS gridalign_queue_tally_updated();
"""


def on_postgresql(sql: str):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0012_queue_trial_pairs_index"),
    ]

    operations = [
        migrations.CreateModel(
            name="QueueTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("annotator_id", models.BigIntegerField()),
                ("project_id", models.BigIntegerField()),
                ("assigned", models.BigIntegerField(default=0)),
                ("in_progress", models.BigIntegerField(default=0)),
                ("submitted", models.BigIntegerField(default=0)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("annotator_id", "project_id"), name="queuetally_key"
                    )
                ],
            },
        ),
        migrations.RunPython(on_postgresql(FUNCTIONS), on_postgresql(DROP)),
    ]
