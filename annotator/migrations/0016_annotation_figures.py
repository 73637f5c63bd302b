"""``AnnotationFigures``: what progress reads of an annotation's revisions, one row per
annotation, kept by a trigger on the revisions.

Progress showed each annotator's time (every revision's ``elapsed_seconds``) and edit rate
(the final revision's ``edits_from_seed`` over the pair's cells) by finding each submitted
assignment's final revision among all of them: 3.6 s of a 6.7 s page at 400,000 assignments
(docs/benchmarks.md). Revisions are only ever inserted (history is append-only: the
annotation PROTECTs them), so one trigger after each insert keeps the figures:

* ``seconds``: the inserted revisions' time is added;
* ``final_version`` / ``final_edits``: a revision that is not a reopen, and is later than the
  one recorded, becomes the final one, its edit count with it (None when it stored none).

PostgreSQL: once per statement, from the statement's new rows (a save's one statement, an
import's batch). SQLite: once per row. The migration fills the table from the revisions
already written.
"""

import django.db.models.deletion
from django.db import migrations, models

FIGURES = "annotator_annotationfigures"
REVISIONS = "annotator_annotationrevision"

# a revision that is not a reopen, later than the recorded one, becomes the final one
# (in ON CONFLICT's DO UPDATE the plain names are the row as it was, ``excluded`` the new one)
LATER = (
    "excluded.final_version IS NOT NULL AND "
    "({figures}final_version IS NULL OR excluded.final_version > {figures}final_version)"
)


def upsert(figures_prefix: str) -> str:
    later = LATER.format(figures=figures_prefix)
    return f"""ON CONFLICT (annotation_id) DO UPDATE SET
        seconds = {figures_prefix}seconds + excluded.seconds,
        final_edits = CASE WHEN {later} THEN excluded.final_edits
                      ELSE {figures_prefix}final_edits END,
        final_version = CASE WHEN {later} THEN excluded.final_version
                        ELSE {figures_prefix}final_version END"""


PG_TRIGGER = f"""
CREATE FUNCTION gridalign_figures_revisions_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO {FIGURES} AS f (annotation_id, seconds, final_version, final_edits)
    SELECT r.annotation_id, SUM(r.elapsed_seconds),
           MAX(r.version) FILTER (WHERE r.kind <> 'reopen'),
           (ARRAY_AGG(r.edits_from_seed ORDER BY r.version DESC)
                FILTER (WHERE r.kind <> 'reopen'))[1]
    FROM new_revisions r GROUP BY r.annotation_id
    {upsert("f.")};
    RETURN NULL;
END $$;
CREATE TRIGGER gridalign_figures_revisions_written AFTER INSERT ON {REVISIONS}
    REFERENCING NEW TABLE AS new_revisions
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_figures_revisions_written();
"""
PG_DROP = """
DROP TRIGGER IF EXISTS gridalign_figures_revisions_written ON annotator_annotationrevision;
DROP FUNCTION IF EXISTS gridalign_figures_revisions_written();
"""

SQLITE_TRIGGER = f"""
CREATE TRIGGER gridalign_figures_revision_written AFTER INSERT ON {REVISIONS}
BEGIN
    INSERT INTO {FIGURES} (annotation_id, seconds, final_version, final_edits)
    VALUES (NEW.annotation_id, NEW.elapsed_seconds,
            CASE WHEN NEW.kind <> 'reopen' THEN NEW.version END,
            CASE WHEN NEW.kind <> 'reopen' THEN NEW.edits_from_seed END)
    {upsert("")};
END;
"""
SQLITE_DROP = "DROP TRIGGER IF EXISTS gridalign_figures_revision_written;"

# the revisions already written: each annotation's time, and its final revision's edit count
FILL = f"""
INSERT INTO {FIGURES} (annotation_id, seconds, final_version, final_edits)
SELECT r.annotation_id, SUM(r.elapsed_seconds),
       MAX(CASE WHEN r.kind <> 'reopen' THEN r.version END),
       (SELECT l.edits_from_seed FROM {REVISIONS} l
        WHERE l.annotation_id = r.annotation_id AND l.kind <> 'reopen'
        ORDER BY l.version DESC LIMIT 1)
FROM {REVISIONS} r GROUP BY r.annotation_id
"""


def forwards(apps, schema_editor) -> None:
    postgresql = schema_editor.connection.vendor == "postgresql"
    schema_editor.execute(FILL)
    schema_editor.execute(PG_TRIGGER if postgresql else SQLITE_TRIGGER)


def backwards(apps, schema_editor) -> None:
    postgresql = schema_editor.connection.vendor == "postgresql"
    schema_editor.execute(PG_DROP if postgresql else SQLITE_DROP)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0015_pair_search_text_and_cells"),
    ]

    operations = [
        migrations.CreateModel(
            name="AnnotationFigures",
            fields=[
                (
                    "annotation",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="figures",
                        serialize=False,
                        to="annotator.annotation",
                    ),
                ),
                (
                    "seconds",
                    models.FloatField(
                        default=0.0, help_text="Every revision's elapsed_seconds, summed."
                    ),
                ),
                (
                    "final_version",
                    models.PositiveIntegerField(
                        help_text="The latest revision that is not a reopen (None: no such revision).",
                        null=True,
                    ),
                ),
                (
                    "final_edits",
                    models.PositiveIntegerField(
                        help_text="That revision's edits_from_seed (None: it stored none).",
                        null=True,
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "annotation figures",
            },
        ),
        migrations.RunPython(forwards, backwards),
    ]
