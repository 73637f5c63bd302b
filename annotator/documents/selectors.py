"""Documents → sentence pairs, the reads: which document pairs a user may review, and a pair's
review state (sentences, beads, counts) as plain data for the API and the review page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.db import connection
from django.db.models import Count, Q, QuerySet, Value
from django.db.models.functions import Coalesce

from annotator.common import access
from annotator.models import Bead, DocumentPair, Project


def reviewable_document_pairs(*, user: Any) -> QuerySet[DocumentPair]:
    """Document pairs of the projects the user leads (staff: all). Annotators see none: the
    pairs become theirs only once sent to annotation."""
    qs = DocumentPair.objects.select_related("project")
    if getattr(user, "is_staff", False):
        return qs
    return qs.filter(project_id__in=access.led_project_ids(user=user))


# A list never needs a pair's documents (up to 20 MB each) nor their sentences.
HEAVY_FIELDS = (
    "source_original", "target_original", "source_sentences", "target_sentences",
    "source_blocks", "target_blocks",
)  # fmt: skip


def document_pairs_of(*, project: Project) -> QuerySet[DocumentPair]:
    """The project's pairs with their bead counts, without their documents or sentences."""
    return (
        DocumentPair.objects.filter(project=project)
        .defer(*HEAVY_FIELDS)
        .annotate(
            bead_count=Count("beads"),
            accepted_count=Count("beads", filter=Q(beads__decision=Bead.Decision.ACCEPTED)),
            rejected_count=Count("beads", filter=Q(beads__decision=Bead.Decision.REJECTED)),
            sent_count=Count("beads", filter=Q(beads__pair__isnull=False)),
        )
        .order_by("name", "id")
    )


def bead_brief(bead: Bead) -> dict[str, Any]:
    """A bead without its sentences' text: what a client that holds the sentences needs."""
    return {
        "id": bead.pk,
        "position": bead.position,
        "source": list(bead.source),
        "target": list(bead.target),
        "confidence": bead.confidence,
        "predicted": bead.predicted,
        "decision": bead.decision,
        "pair": bead.pair_id,
        "null": bead.is_null,
    }


def bead_data(bead: Bead, dp: DocumentPair) -> dict[str, Any]:
    return bead_row(bead, {"source": dp.source_sentences, "target": dp.target_sentences})


def bead_row(bead: Bead, text: dict[str, Any]) -> dict[str, Any]:
    """``bead_brief`` and its sentences' text: ``text[side][index]`` (a side's list, or the
    sentences read for a page)."""
    return {
        **bead_brief(bead),
        "source_text": " ".join(text["source"][i] for i in bead.source),
        "target_text": " ".join(text["target"][j] for j in bead.target),
    }


def bead_counts(*, document_pair: DocumentPair) -> dict[str, int]:
    """The beads per decision, and how many were sent: the review state's ``counts``, counted
    by the database (no bead and no sentence read)."""
    beads = Bead.objects.filter(document_pair=document_pair)
    counts = dict.fromkeys(Bead.Decision.values, 0) | {"sent": 0}
    for row in beads.values("decision").annotate(n=Count("id"), sent=Count("pair")).order_by():
        counts[row["decision"]] = row["n"]
        counts["sent"] += row["sent"]
    return counts


ORDERS = ("document", "likeliest")


def _order(dp: DocumentPair, order: str) -> str:
    """``order`` if it is one, else the pair's default: likeliest first for comparable pairs,
    document order for parallel ones."""
    if order in ORDERS:
        return order
    return "likeliest" if dp.kind == DocumentPair.Kind.COMPARABLE else "document"


def review_state(*, document_pair: DocumentPair, order: str = "") -> dict[str, Any]:
    """Everything the review screen shows: both sides' sentences, the beads, and which
    sentences no non-null bead covers (shown, never silently dropped). ``order``: "document"
    (the beads in document order; parallel pairs' default) or "likeliest" (the pair
    classifier's P(accepted), else the aligner's confidence, highest first; comparable pairs'
    default)."""
    dp = document_pair
    beads = [bead_data(b, dp) for b in dp.beads.order_by("position", "id")]
    order = _order(dp, order)
    if order == "likeliest":
        beads.sort(key=lambda b: -(b["predicted"] if b["predicted"] is not None
                                   else (b["confidence"] or 0.0)))  # fmt: skip
    covered_src = {i for b in beads if not b["null"] for i in b["source"]}
    covered_tgt = {j for b in beads if not b["null"] for j in b["target"]}
    return {
        "id": dp.pk,
        "project": dp.project_id,
        "name": dp.name,
        "kind": dp.kind,
        "source_language": dp.source_language,
        "target_language": dp.target_language,
        "source_filename": dp.source_filename,
        "target_filename": dp.target_filename,
        "source_sentences": list(dp.source_sentences),
        "target_sentences": list(dp.target_sentences),
        "aligned": dp.aligned_at is not None,
        "order": order,
        "beads": beads,
        "unaligned_source": [i for i in range(len(dp.source_sentences)) if i not in covered_src],
        "unaligned_target": [j for j in range(len(dp.target_sentences)) if j not in covered_tgt],
        "counts": {
            decision: sum(1 for b in beads if b["decision"] == decision)
            for decision in Bead.Decision.values
        }
        | {"sent": sum(1 for b in beads if b["pair"])},
    }


# A page of the review: the beads of one page, the sentences they hold, and the counts, read
# by the database. The documents' sentences (up to 160,000 a side) are never read whole: one
# call of each vendor's JSON functions picks the wanted elements out of the stored array,
# read once (a page's 400 sentences of a 160,000-sentence side in 12 ms on PostgreSQL with a
# jsonpath of subscripts, against 220 ms for walking the array's elements).
_SENTENCES_AT = {
    "postgresql": "SELECT jsonb_path_query_array({column}, %s::jsonpath) FROM {table} WHERE id = %s",
    "sqlite": "SELECT {calls} FROM {table} WHERE id = %s",
}
# SQLite's functions take at most 127 arguments: json_extract is called on chunks of paths
# (SQLite keeps the parsed array between the calls of one statement)
SQLITE_PATHS = 90
_SENTENCE_COUNTS = {
    "postgresql": "SELECT jsonb_array_length({s}), jsonb_array_length({t}) FROM {table} "
    "WHERE id = %s",
    "sqlite": "SELECT json_array_length({s}), json_array_length({t}) FROM {table} WHERE id = %s",
}
# how many distinct sentences of one side the non-null beads cover
_COVERED = {
    "postgresql": (
        "SELECT count(DISTINCT e.value) FROM {table} b, jsonb_array_elements(b.{column}) e "
        "WHERE b.document_pair_id = %s AND jsonb_array_length(b.source) > 0 "
        "AND jsonb_array_length(b.target) > 0"
    ),
    "sqlite": (
        "SELECT count(DISTINCT e.value) FROM {table} b, json_each(b.{column}) e "
        "WHERE b.document_pair_id = %s AND json_array_length(b.source) > 0 "
        "AND json_array_length(b.target) > 0"
    ),
}
SIDES = ("source", "target")


def _sentences_at(dp_id: int, side: str, indices: set[int]) -> dict[int, str]:
    """Sentences ``indices`` of one side, each index an existing sentence's."""
    if not indices:
        return {}
    wanted = sorted(indices)
    table, column = DocumentPair._meta.db_table, f"{side}_sentences"
    if connection.vendor == "postgresql":
        sql = _SENTENCES_AT["postgresql"].format(table=table, column=column)
        params = ["$[" + ", ".join(str(int(k)) for k in wanted) + "]", dp_id]
    else:  # json_extract of several paths answers an array; of one, the value: wrapped
        chunks = [wanted[k : k + SQLITE_PATHS] for k in range(0, len(wanted), SQLITE_PATHS)]
        calls = ", ".join(
            f"json_extract({column}, {', '.join(['%s'] * len(chunk))})"
            if len(chunk) > 1 else f"json_array(json_extract({column}, %s))"
            for chunk in chunks
        )  # fmt: skip
        sql = _SENTENCES_AT["sqlite"].format(table=table, calls=calls)
        params = [f"$[{int(k)}]" for k in wanted] + [dp_id]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        answers = cursor.fetchone()
    found = []
    for answer in answers:
        found += json.loads(answer) if isinstance(answer, str) else answer
    return dict(zip(wanted, found, strict=True))


def _sentence_counts(dp_id: int) -> dict[str, int]:
    table = DocumentPair._meta.db_table
    sql = _SENTENCE_COUNTS[connection.vendor].format(
        table=table, s="source_sentences", t="target_sentences"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [dp_id])
        source, target = cursor.fetchone()
    return {"source": source or 0, "target": target or 0}


def _unaligned_counts(dp: DocumentPair, sentences: dict[str, int]) -> dict[str, int]:
    """The pair's kept counts, else counted by the database (a pair aligned before they were
    kept: 0.36 s a side at 160,000 beads on PostgreSQL)."""
    if dp.unaligned_source is not None and dp.unaligned_target is not None:
        return {"source": dp.unaligned_source, "target": dp.unaligned_target}
    dp_id = dp.pk
    table = Bead._meta.db_table
    counts = {}
    with connection.cursor() as cursor:
        for side in SIDES:
            cursor.execute(_COVERED[connection.vendor].format(table=table, column=side), [dp_id])
            counts[side] = sentences[side] - cursor.fetchone()[0]
    return counts


def _ordered_beads(dp: DocumentPair, order: str) -> QuerySet[Bead]:
    beads = Bead.objects.filter(document_pair=dp)
    if order == "likeliest":  # as review_state sorts: highest first, ties in document order
        score = Coalesce("predicted", "confidence", Value(0.0))
        return beads.order_by(score.desc(), "position", "id")
    return beads.order_by("position", "id")


def review_page(
    *, document_pair: DocumentPair, order: str = "", offset: int = 0, limit: int = 200
) -> dict[str, Any]:
    """One page of the review: ``limit`` beads from ``offset`` in ``order`` (as
    ``review_state``), each with its sentences' text, the text of every sentence they hold
    (``sentences``: side → index → text), how many sentences each side has and how many no
    non-null bead covers, the counts, and where the page sits (``page``: an offset past the end
    is moved back to the last page). Its size and cost follow the page, not the documents:
    no request reads a long document pair whole."""
    dp = document_pair
    order = _order(dp, order)
    counts = bead_counts(document_pair=dp)
    total = sum(counts[d] for d in Bead.Decision.values)
    if offset >= total:
        offset = max(0, (total - 1) // limit * limit)
    beads = list(_ordered_beads(dp, order)[offset : offset + limit])
    sentences = {
        side: _sentences_at(dp.pk, side, {k for b in beads for k in getattr(b, side)})
        for side in SIDES
    }
    sentence_counts = _sentence_counts(dp.pk)
    rows = [bead_row(b, sentences) for b in beads]
    return {
        **{f: getattr(dp, f) for f in _PAIR_FIELDS},
        "project": dp.project_id,
        "aligned": dp.aligned_at is not None,
        "order": order,
        "beads": rows,
        "sentences": {side: {str(k): t for k, t in s.items()} for side, s in sentences.items()},
        "sentence_counts": sentence_counts,
        "unaligned_counts": _unaligned_counts(dp, sentence_counts),
        "counts": counts,
        "page": {"offset": offset, "limit": limit, "total": total},
    }


_PAIR_FIELDS = ("id", "name", "kind", "source_language", "target_language", "source_filename",
                "target_filename")  # fmt: skip


# --- the whole state, streamed ---------------------------------------------------------------
# A script's ``GET`` without ``limit`` gets the whole state (67 MB of JSON at 160,000 sentences
# a side). It is written as it is read, a chunk of sentences or beads at a time, so the web
# process holds one chunk, not the pair: the same JSON as ``review_state``.
STREAM_CHUNK = 2000

_SENTENCE_RANGE = {
    "postgresql": _SENTENCES_AT["postgresql"],  # with a range: $[start to last]
    "sqlite": "SELECT json_group_array(value) FROM (SELECT value FROM {table} d, "
    "json_each(d.{column}) WHERE d.id = %s AND CAST(key AS INTEGER) >= %s "
    "AND CAST(key AS INTEGER) < %s ORDER BY CAST(key AS INTEGER))",
}


def _sentence_range(dp_id: int, side: str, start: int, stop: int) -> list[str]:
    """Sentences ``[start, stop)`` of one side (``stop`` within the side's count)."""
    sql = _SENTENCE_RANGE[connection.vendor].format(
        table=DocumentPair._meta.db_table, column=f"{side}_sentences"
    )
    params = ([f"$[{int(start)} to {int(stop) - 1}]", dp_id] if connection.vendor == "postgresql"
              else [dp_id, start, stop])  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        (found,) = cursor.fetchone()
    return json.loads(found) if isinstance(found, str) else list(found)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def stream_review_state(*, document_pair: DocumentPair, order: str = "") -> Iterator[str]:
    """``review_state``'s JSON, piece by piece (``document_pair`` read without its files or
    sentences)."""
    dp = document_pair
    order = _order(dp, order)
    sizes = _sentence_counts(dp.pk)
    head = {"id": dp.pk, "project": dp.project_id} | {f: getattr(dp, f) for f in _PAIR_FIELDS[1:]}
    yield _dumps(head)[:-1]  # the object left open
    for side in SIDES:
        yield f',"{side}_sentences":['
        for start in range(0, sizes[side], STREAM_CHUNK * 5):
            chunk = _sentence_range(dp.pk, side, start, min(sizes[side], start + STREAM_CHUNK * 5))
            yield ("," if start else "") + _dumps(chunk)[1:-1]
        yield "]"
    yield f',"aligned":{_dumps(dp.aligned_at is not None)},"order":{_dumps(order)},"beads":['
    covered: dict[str, set[int]] = {"source": set(), "target": set()}
    counts = dict.fromkeys(Bead.Decision.values, 0) | {"sent": 0}
    first = True
    for beads in _bead_chunks(dp, order):
        rows = _stream_rows(dp.pk, beads, covered, counts)
        yield ("" if first else ",") + ",".join(_dumps(r) for r in rows)
        first = False
    yield "]"
    for side in SIDES:
        missing = [i for i in range(sizes[side]) if i not in covered[side]]
        yield f',"unaligned_{side}":{_dumps(missing)}'
    yield f',"counts":{_dumps(counts)}}}'


def _bead_chunks(dp: DocumentPair, order: str) -> Iterator[list[Bead]]:
    chunk: list[Bead] = []
    for bead in _ordered_beads(dp, order).iterator(chunk_size=STREAM_CHUNK):
        chunk.append(bead)
        if len(chunk) == STREAM_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _stream_rows(dp_id: int, beads: list[Bead], covered, counts) -> list[dict[str, Any]]:
    """The chunk's beads as ``bead_data`` lists them, their sentences read for them; the
    sentences they cover and their decisions counted on the way."""
    text = {s: _sentences_at(dp_id, s, {k for b in beads for k in getattr(b, s)}) for s in SIDES}
    rows = []
    for b in beads:
        counts[b.decision] += 1
        counts["sent"] += b.pair_id is not None
        if not b.is_null:
            covered["source"].update(b.source)
            covered["target"].update(b.target)
        rows.append(bead_row(b, text))
    return rows
