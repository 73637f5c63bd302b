"""Two reads of the lead's pages that no longer grow with the project (docs/benchmarks.md,
"Scale: pages at 1 M pairs"):

* **The pair browser's search for a word** by trigram indexes (PostgreSQL's ``pg_trgm``). The
  search (``projects/selectors/pair_browser.py``) asks for a substring, case-folded, of the
  external id and of the tokens' JSON text: ``UPPER(col::text) LIKE UPPER('%word%')``. Each
  index is on exactly that expression, so the planner can use it and the matches stay the same,
  character for character (a token table or a full-text vector would match whole words, not
  substrings). SQLite has no such index: its search reads pairs as before.
* **Stored agreement scores** (``PairAgreement``) for the disagreement browser and the pair
  browser's agreement filter. Triggers append the pair to ``AgreementStale`` whenever a
  submitted assignment or its annotation is inserted, changed or deleted (on PostgreSQL once per
  statement, from its transition tables; on SQLite per row); the next read rescores only those
  pairs (``reports/services/agreement_scores.py``). Every pair with two final annotations is
  marked stale here, so the first read after the migration scores the existing work once.
"""

from django.conf import settings
from django.db import migrations, models

PAIRS = "annotator_sentencepair"
ASSIGNMENTS = "annotator_assignment"
ANNOTATIONS = "annotator_annotation"
STALE = "annotator_agreementstale"
TRGM_COLUMNS = ("external_id", "source_tokens", "target_tokens")

TRIGRAMS = "CREATE EXTENSION IF NOT EXISTS pg_trgm;\n" + "".join(
    f"CREATE INDEX IF NOT EXISTS pair_{column}_trgm ON {PAIRS} "
    f"USING gin ((UPPER({column}::text)) gin_trgm_ops);\n"
    for column in TRGM_COLUMNS
)
DROP_TRIGRAMS = "".join(f"DROP INDEX IF EXISTS pair_{c}_trgm;\n" for c in TRGM_COLUMNS)

# what makes an assignment's final annotation appear, change or go: its status, withdrawal,
# slot (the A/B order), annotator or pair
MOVED = (
    "(o.status, o.withdrawn_at, o.slot, o.annotator_id, o.pair_id) IS DISTINCT FROM "
    "(n.status, n.withdrawn_at, n.slot, n.annotator_id, n.pair_id)"
)
MARK = f"INSERT INTO {STALE} (project_id, pair_id) SELECT p.project_id, p.id FROM {PAIRS} p "

PG_TRIGGERS = f"""
CREATE FUNCTION gridalign_stale_assignments_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        {MARK} WHERE p.id IN (SELECT pair_id FROM new_rows WHERE status = 'submitted');
    ELSIF TG_OP = 'DELETE' THEN
        {MARK} WHERE p.id IN (SELECT pair_id FROM old_rows WHERE status = 'submitted');
    ELSE
        {MARK} WHERE p.id IN (
            SELECT unnest(ARRAY[o.pair_id, n.pair_id])
            FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE (o.status = 'submitted' OR n.status = 'submitted') AND {MOVED});
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION gridalign_stale_annotations_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        {MARK} JOIN {ASSIGNMENTS} a ON a.pair_id = p.id AND a.status = 'submitted'
        WHERE a.id IN (SELECT assignment_id FROM new_rows);
    ELSIF TG_OP = 'DELETE' THEN
        {MARK} JOIN {ASSIGNMENTS} a ON a.pair_id = p.id AND a.status = 'submitted'
        WHERE a.id IN (SELECT assignment_id FROM old_rows);
    ELSE
        {MARK} JOIN {ASSIGNMENTS} a ON a.pair_id = p.id AND a.status = 'submitted'
        WHERE a.id IN (
            SELECT unnest(ARRAY[o.assignment_id, n.assignment_id])
            FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE (o.links, o.version, o.assignment_id)
                  IS DISTINCT FROM (n.links, n.version, n.assignment_id));
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION gridalign_stale_pairs_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- a pair whose subcorpus or trial flag changed: its stored rows carry both
    INSERT INTO {STALE} (project_id, pair_id)
    SELECT n.project_id, n.id FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.subcorpus_id, o.is_trial) IS DISTINCT FROM (n.subcorpus_id, n.is_trial);
    RETURN NULL;
END $$;
CREATE TRIGGER gridalign_stale_pairs_moved AFTER UPDATE ON {PAIRS}
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION gridalign_stale_pairs_moved();
""" + "".join(
    f"""
CREATE TRIGGER gridalign_stale_{table}_{op.lower()} AFTER {op} ON annotator_{table}
    REFERENCING {refs} FOR EACH STATEMENT EXECUTE FUNCTION gridalign_stale_{table}s_written();
"""
    for table in ("assignment", "annotation")
    for op, refs in (
        ("INSERT", "NEW TABLE AS new_rows"),
        ("DELETE", "OLD TABLE AS old_rows"),
        ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    )
)

PG_DROP = "".join(
    f"DROP TRIGGER IF EXISTS gridalign_stale_{t}_{op} ON annotator_{t};\n"
    for t in ("assignment", "annotation")
    for op in ("insert", "delete", "update")
) + (
    f"DROP TRIGGER IF EXISTS gridalign_stale_pairs_moved ON {PAIRS};\n"
    "DROP FUNCTION IF EXISTS gridalign_stale_pairs_moved();\n"
    "DROP FUNCTION IF EXISTS gridalign_stale_assignments_written();\n"
    "DROP FUNCTION IF EXISTS gridalign_stale_annotations_written();\n"
)

SQLITE_MOVED = " OR ".join(
    f"OLD.{c} IS NOT NEW.{c}" for c in ("status", "withdrawn_at", "slot", "annotator_id", "pair_id")
)
SQLITE_VIA = (
    f"JOIN {ASSIGNMENTS} a ON a.pair_id = p.id AND a.status = 'submitted' WHERE a.id IN ({{}})"
)
SQLITE_TRIGGERS = [
    f"""CREATE TRIGGER gridalign_stale_assignment_insert AFTER INSERT ON {ASSIGNMENTS}
    WHEN NEW.status = 'submitted' BEGIN {MARK} WHERE p.id = NEW.pair_id; END""",
    f"""CREATE TRIGGER gridalign_stale_assignment_delete AFTER DELETE ON {ASSIGNMENTS}
    WHEN OLD.status = 'submitted' BEGIN {MARK} WHERE p.id = OLD.pair_id; END""",
    f"""CREATE TRIGGER gridalign_stale_assignment_update AFTER UPDATE ON {ASSIGNMENTS}
    WHEN (OLD.status = 'submitted' OR NEW.status = 'submitted') AND ({SQLITE_MOVED})
    BEGIN {MARK} WHERE p.id IN (OLD.pair_id, NEW.pair_id); END""",
    f"""CREATE TRIGGER gridalign_stale_annotation_insert AFTER INSERT ON {ANNOTATIONS}
    BEGIN {MARK} {SQLITE_VIA.format("NEW.assignment_id")}; END""",
    f"""CREATE TRIGGER gridalign_stale_annotation_delete AFTER DELETE ON {ANNOTATIONS}
    BEGIN {MARK} {SQLITE_VIA.format("OLD.assignment_id")}; END""",
    f"""CREATE TRIGGER gridalign_stale_annotation_update AFTER UPDATE ON {ANNOTATIONS}
    WHEN OLD.links IS NOT NEW.links OR OLD.version IS NOT NEW.version
         OR OLD.assignment_id IS NOT NEW.assignment_id
    BEGIN {MARK} {SQLITE_VIA.format("OLD.assignment_id, NEW.assignment_id")}; END""",
]
SQLITE_TRIGGERS.append(
    f"""CREATE TRIGGER gridalign_stale_pairs_moved AFTER UPDATE ON {PAIRS}
    WHEN OLD.subcorpus_id IS NOT NEW.subcorpus_id OR OLD.is_trial IS NOT NEW.is_trial
    BEGIN INSERT INTO {STALE} (project_id, pair_id) VALUES (NEW.project_id, NEW.id); END"""
)
SQLITE_DROP = ["DROP TRIGGER IF EXISTS gridalign_stale_pairs_moved"] + [
    f"DROP TRIGGER IF EXISTS gridalign_stale_{t}_{op}"
    for t in ("assignment", "annotation")
    for op in ("insert", "delete", "update")
]

# every pair that has two final annotations now: scored by the first read
MARK_EXISTING = f"""
INSERT INTO {STALE} (project_id, pair_id)
SELECT p.project_id, p.id FROM {PAIRS} p
WHERE p.id IN (
    SELECT a.pair_id FROM {ASSIGNMENTS} a JOIN {ANNOTATIONS} n ON n.assignment_id = a.id
    WHERE a.status = 'submitted' AND a.withdrawn_at IS NULL
    GROUP BY a.pair_id HAVING COUNT(*) >= 2)
"""


def forwards(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGRAMS)
        schema_editor.execute(PG_TRIGGERS)
    else:
        for sql in SQLITE_TRIGGERS:
            schema_editor.execute(sql)
    schema_editor.execute(MARK_EXISTING)


def backwards(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PG_DROP)
        schema_editor.execute(DROP_TRIGRAMS)
    else:
        for sql in SQLITE_DROP:
            schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("annotator", "0010_pages_pair_tally"),
    ]

    operations = [
        migrations.CreateModel(
            name="AgreementStale",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("project_id", models.BigIntegerField()),
                ("pair_id", models.BigIntegerField()),
            ],
            options={
                "indexes": [models.Index(fields=["project_id"], name="agreementstale_project")],
            },
        ),  # fmt: skip
        migrations.CreateModel(
            name="PairAgreement",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("rank", models.PositiveSmallIntegerField(default=0)),
                ("subcorpus_id", models.BigIntegerField(null=True)),
                ("is_trial", models.BooleanField(default=False)),
                ("word_f1", models.FloatField(null=True)),
                ("word_precision", models.FloatField(null=True)),
                ("word_recall", models.FloatField(null=True)),
                ("phrase_f1", models.FloatField(null=True)),
                ("link_f1", models.FloatField(null=True)),
                (
                    "first",
                    models.ForeignKey(
                        on_delete=models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "second",
                    models.ForeignKey(
                        on_delete=models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "pair",
                    models.ForeignKey(
                        on_delete=models.deletion.CASCADE,
                        related_name="+",
                        to="annotator.sentencepair",
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=models.deletion.CASCADE, related_name="+", to="annotator.project"
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        "project", "is_trial", "word_f1", "pair", "rank", name="pairagreement_order"
                    ),
                    models.Index("project", "rank", "link_f1", name="pairagreement_link_f1"),
                ],
                "constraints": [
                    models.UniqueConstraint(fields=("pair", "rank"), name="pairagreement_pair_rank")
                ],
            },
        ),  # fmt: skip
        migrations.RunPython(forwards, backwards),
    ]
