"""Reads of sentence pairs for the API's pair list: one fixed SQL statement for a page of rows
(the ORM's compiling, converting and prefetching cost more than running the query), and the
details a single pair's row shows."""

from __future__ import annotations

import functools
import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from annotator.models import Assignment, GoldAlignment, SentencePair, Subcorpus


@functools.cache
def _sql(template: str) -> str:
    """``template`` with ``{pair}``, ``{subcorpus}``, ``{gold}``, ``{assignment}`` and
    ``{user}`` replaced by the models' quoted table names."""
    models = {
        "pair": SentencePair,
        "subcorpus": Subcorpus,
        "gold": GoldAlignment,
        "assignment": Assignment,
        "user": get_user_model(),
    }
    return template.format(
        **{k: connection.ops.quote_name(m._meta.db_table) for k, m in models.items()}
    )


PAGE_ROWS_SQL = """
SELECT p.id, p.project_id, p.external_id, s.name, p.is_trial, p.position,
       p.source_tokens, p.target_tokens, p.metadata,
       EXISTS (SELECT 1 FROM {gold} g WHERE g.pair_id = p.id),
       a.id, a.annotator_id, u.username, a.status, a.slot, a.flag, %s
FROM {pair} p LEFT JOIN {subcorpus} s ON s.id = p.subcorpus_id
LEFT JOIN {assignment} a ON a.pair_id = p.id AND a.withdrawn_at IS NULL
LEFT JOIN {user} u ON u.id = a.annotator_id
WHERE p.id IN (%s)
ORDER BY p.project_id, p.position, p.id, a.slot, a.id
"""


def _json(value: Any) -> Any:
    # JSON columns arrive as text (Django reads jsonb undecoded; SQLite stores text).
    return json.loads(value) if isinstance(value, str | bytes) else value


def page_rows(page, *, counted=None) -> tuple[list[tuple], int | None]:
    """(id, project, external id, subcorpus name, trial, position, source, target, metadata,
    has gold, current assignments) of the pairs whose ids ``page`` (an unevaluated queryset of
    ``pk``) selects, in the list order; each current (not withdrawn) assignment as (id,
    annotator id, username, status, slot, flag), by slot. One fixed SQL statement around the
    page's own query (a pair's row repeats per assignment): the ORM compiling the queries,
    converting cells and prefetching cost more than running them. With ``counted`` (the
    unsliced queryset), also the number of its rows, when the page has any (else None)."""
    try:
        inner, params = page.query.sql_with_params()
        count, count_params = ("NULL", ())
        if counted is not None:
            count, count_params = counted.order_by().query.sql_with_params()
            count = f"(SELECT COUNT(*) FROM ({count}) counted)"
    except EmptyResultSet:  # a filter that can match nothing (no visible projects)
        return [], None
    with connection.cursor() as cursor:
        cursor.execute(_sql(PAGE_ROWS_SQL) % (count, inner), (*count_params, *params))
        fetched = cursor.fetchall()
    rows: list[tuple] = []
    for row in fetched:
        if not rows or rows[-1][0] != row[0]:
            pk, project, ext, sub, trial, pos, src, tgt, meta, gold = row[:10]
            rows.append(
                (pk, project, ext, sub, bool(trial), pos, _json(src), _json(tgt), _json(meta))
                + (bool(gold), [])
            )
        if row[10] is not None:
            rows[-1][-1].append(row[10:16])
    return rows, (fetched[0][16] if fetched else None)


def pair_details(pairs: QuerySet[SentencePair]) -> QuerySet[SentencePair]:
    """``pairs`` with what a pair's API row shows: subcorpus, gold flag, current assignments."""
    current = Assignment.objects.filter(withdrawn_at__isnull=True).select_related("annotator")
    return (
        pairs.select_related("subcorpus")
        .annotate(has_gold=Exists(GoldAlignment.objects.filter(pair=OuterRef("pk"))))
        .prefetch_related(
            Prefetch(
                "assignments",
                queryset=current.order_by("slot", "id"),
                to_attr="current_assignments",
            )
        )
    )
