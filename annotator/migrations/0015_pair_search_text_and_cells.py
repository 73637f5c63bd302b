"""Two columns of the pairs that the database keeps, so that a read of many pairs needs
neither their token lists nor JSON work on each row:

* ``search_text``, what the pair browser's search reads: each side's tokens joined by spaces
  (from their JSON text, escapes kept: the model's ``tokens_text``), the two sides joined by a
  space, case-folded (``UPPER``). Before, every pair the search read had its two JSON columns
  rendered as text and case-folded (``UPPER(col::text) LIKE ...``), and PostgreSQL kept a
  trigram index on each side's expression; now one trigram index on the column replaces the
  two (``pair_external_id_trgm``, on the external id, stays). A word is still found as a
  substring of a token, case-folded; what changes is that the JSON between the tokens is no
  longer searched: a "," or a '"' finds the pairs with such a token, not every pair.
* ``cells``, the grid's size (source tokens × target tokens): the denominator of an edit rate,
  which progress reads for every submitted assignment (migration 0016).

PostgreSQL: stored generated columns, both added by one ``ALTER TABLE`` (one rewrite of the
table: 80 s for a million pairs on the 2-core machine with the index, for the search text
alone). SQLite: virtual generated columns, computed when read (SQLite cannot add a stored one
to an existing table without rebuilding it, which would drop the table's triggers, migrations
0010 and 0011); SQLite has no trigram index: its search reads the pairs in order, as before.
"""

from django.db import migrations, models
from django.db.models.functions import Cast, Concat, Length, Replace, Substr, Upper

from annotator.models.projects import JSONLength  # the model's own (compared by path)

PAIRS = "annotator_sentencepair"


def tokens_text_sql(column: str) -> str:
    text = f"CAST({column} AS text)"
    return f"REPLACE(SUBSTR({text}, 3, LENGTH({text}) - 4), '\", \"', ' ')"


SEARCH_TEXT = (
    f"UPPER({tokens_text_sql('source_tokens')} || ' ' || {tokens_text_sql('target_tokens')})"
)


def cells_sql(length: str) -> str:
    return f"{length}(source_tokens) * {length}(target_tokens)"


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


def add_columns(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        # the side indexes first, or adding the columns would rebuild them with the table
        schema_editor.execute(DROP_SIDE_INDEXES)
        schema_editor.execute(
            f"ALTER TABLE {PAIRS} "
            f"ADD COLUMN search_text text GENERATED ALWAYS AS ({SEARCH_TEXT}) STORED, "
            f"ADD COLUMN cells integer GENERATED ALWAYS AS "
            f"({cells_sql('jsonb_array_length')}) STORED"
        )
        schema_editor.execute(NEW_INDEX)
    else:
        schema_editor.execute(
            f"ALTER TABLE {PAIRS} ADD COLUMN search_text text "
            f"GENERATED ALWAYS AS ({SEARCH_TEXT}) VIRTUAL"
        )
        schema_editor.execute(
            f"ALTER TABLE {PAIRS} ADD COLUMN cells integer "
            f"GENERATED ALWAYS AS ({cells_sql('json_array_length')}) VIRTUAL"
        )


def drop_columns(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS pair_search_text_trgm;")
        schema_editor.execute(f"ALTER TABLE {PAIRS} DROP COLUMN search_text, DROP COLUMN cells")
        schema_editor.execute(SIDE_INDEXES)
    else:
        schema_editor.execute(f"ALTER TABLE {PAIRS} DROP COLUMN search_text")
        schema_editor.execute(f"ALTER TABLE {PAIRS} DROP COLUMN cells")


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0014_seed_tally_probes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(add_columns, drop_columns)],
            state_operations=[
                migrations.AddField(
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
                migrations.AddField(
                    model_name="sentencepair",
                    name="cells",
                    field=models.GeneratedField(
                        db_persist=True,
                        expression=JSONLength("source_tokens") * JSONLength("target_tokens"),
                        output_field=models.IntegerField(),
                    ),
                ),
            ],
        ),
    ]
