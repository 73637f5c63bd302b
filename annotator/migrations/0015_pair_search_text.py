"""The pair browser's search reads a column of its own, ``SentencePair.search_text``: each
side's tokens joined by spaces (from their JSON text, escapes kept: the model's
``tokens_text``), the two sides joined by a space, case-folded (``UPPER``), kept by the
database.

Before, every pair the search read had its two JSON columns rendered as text and case-folded
(``UPPER(col::text) LIKE ...``), and PostgreSQL kept a trigram index on each side's
expression. Now a search compares plain text, and one trigram index on the column replaces
the two (``pair_external_id_trgm``, on the external id, stays). A word is still found as a
substring of a token, case-folded; what changes is that the JSON between the tokens is no
longer searched: a "," or a '"' finds the pairs with such a token, not every pair.

* PostgreSQL: a stored generated column. Adding it rewrites the table once: 80 s for a
  million pairs on the 2-core machine, column and index together.
* SQLite: a virtual generated column, computed when read (SQLite cannot add a stored one to
  an existing table without rebuilding it, which would drop the table's triggers, migrations
  0010 and 0011). SQLite has no trigram index: its search reads the pairs in order, as before.
"""

from django.db import migrations, models
from django.db.models.functions import Cast, Concat, Length, Replace, Substr, Upper

PAIRS = "annotator_sentencepair"


def sqlite_tokens_text(column: str) -> str:
    text = f"CAST({column} AS text)"
    return f"REPLACE(SUBSTR({text}, 3, LENGTH({text}) - 4), '\", \"', ' ')"


SQLITE_ADD = (
    f"ALTER TABLE {PAIRS} ADD COLUMN search_text text GENERATED ALWAYS AS (UPPER("
    f"{sqlite_tokens_text('source_tokens')} || ' ' || {sqlite_tokens_text('target_tokens')}"
    ")) VIRTUAL"
)


def tokens_text(column: str):
    """``SentencePair``'s ``tokens_text`` as it stands in this migration."""
    text = Cast(column, models.TextField())
    inner = Substr(text, 3, Length(text) - 4, output_field=models.TextField())
    return Replace(inner, models.Value('", "'), models.Value(" "), output_field=models.TextField())


SIDES = ("source_tokens", "target_tokens")
NEW_INDEX = f"CREATE INDEX IF NOT EXISTS pair_search_text_trgm ON {PAIRS} USING gin (search_text gin_trgm_ops);"
SIDE_INDEXES = "".join(
    f"CREATE INDEX IF NOT EXISTS pair_{side}_trgm ON {PAIRS} "
    f"USING gin ((UPPER({side}::text)) gin_trgm_ops);\n"
    for side in SIDES
)
DROP_SIDE_INDEXES = "".join(f"DROP INDEX IF EXISTS pair_{side}_trgm;\n" for side in SIDES)


class AddSearchText(migrations.AddField):
    """``AddField`` on PostgreSQL (plus the index swap); on SQLite the column is added in
    place, as a virtual column, instead of Django's rebuild of the table."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute(SQLITE_ADD)
            return
        postgresql = schema_editor.connection.vendor == "postgresql"
        if postgresql:  # first, or adding the column would rebuild them with the table
            schema_editor.execute(DROP_SIDE_INDEXES)
        super().database_forwards(app_label, schema_editor, from_state, to_state)
        if postgresql:
            schema_editor.execute(NEW_INDEX)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute(f"ALTER TABLE {PAIRS} DROP COLUMN search_text")
            return
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute("DROP INDEX IF EXISTS pair_search_text_trgm;\n" + SIDE_INDEXES)
        super().database_backwards(app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0014_seed_tally_probes"),
    ]

    operations = [
        AddSearchText(
            model_name="sentencepair",
            name="search_text",
            field=models.GeneratedField(
                db_persist=True,
                expression=Upper(
                    Concat(
                        tokens_text("source_tokens"),
                        models.Value(" "),
                        tokens_text("target_tokens"),
                        output_field=models.TextField(),
                    )
                ),
                output_field=models.TextField(),
            ),
        ),
    ]
