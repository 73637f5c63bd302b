"""Realigning a long parallel document pair around one edit (a merge or a split), not whole.

A merge or split changes one sentence; the beads far from it do not change. A pair of more
than ``LOCAL_ABOVE`` beads therefore realigns only a window: the beads from ``LOCAL_MARGIN``
before the edit to ``LOCAL_MARGIN`` after it, widened to *clean cuts* (places in the bead
list where every bead before covers only sentences before every bead after, on both sides,
so the window is a sub-document of its own). The beads after the window keep their rows;
their sentence numbers on the edited side move by one, and their positions by the window's
change in length, in one statement. What a request costs then follows the window, not the
documents: a 160,000-sentence pair used to be realigned whole in the web request (about
50 s). A bead paired by hand across the document widens the window to take it in.

Shorter pairs and comparable pairs are realigned whole, as before. Either way the beads a
lead paired by hand are kept (``with_hand_beads``), and the pair's counts of unpaired
sentences follow (``uncovered``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.utils import timezone

from annotator.models import Bead, DocumentPair

LOCAL_ABOVE = 2000  # beads: a longer pair realigns around an edit
LOCAL_MARGIN = 250  # beads on each side of the edit (benchmarks/sentalign.py --only window)

SIDES = ("source", "target")


@dataclass(frozen=True)
class Window:
    """Beads ``[first, stop)`` of the pair's beads in order (old numbering; ``ids``), the
    sentences ``[start, end)`` of each side they and the sentences between them cover, and
    the positions that bound them (``stop_position``: the first bead after the window, or
    None)."""

    first: int
    stop: int
    start: dict[str, int]
    end: dict[str, int]
    first_position: int
    stop_position: int | None
    ids: list[int]  # the window's beads


# each bead's id, position and the first and last sentence of each side (sentence lists are
# kept in ascending order): read by the database, no bead's JSON decoded here. An empty side
# reads as (size, -1), which constrains no cut.
_BEAD_SPANS = {
    "postgresql": (
        "SELECT id, position, COALESCE((source->>0)::integer, %(ns)s), "
        "COALESCE((source->>-1)::integer, -1), COALESCE((target->>0)::integer, %(nt)s), "
        "COALESCE((target->>-1)::integer, -1) FROM {table} "
        "WHERE document_pair_id = %(dp)s ORDER BY position, id"
    ),
    "sqlite": (
        "SELECT id, position, COALESCE(json_extract(source, '$[0]'), %(ns)s), "
        "COALESCE(json_extract(source, '$[#-1]'), -1), "
        "COALESCE(json_extract(target, '$[0]'), %(nt)s), "
        "COALESCE(json_extract(target, '$[#-1]'), -1) FROM {table} "
        "WHERE document_pair_id = %(dp)s ORDER BY position, id"
    ),
}


def bead_spans(dp_id: int, sizes: dict[str, int]) -> np.ndarray:
    """The pair's beads in order, one row each: id, position, source first and last, target
    first and last (``find_window``'s input)."""
    sql = _BEAD_SPANS[connection.vendor].format(table=Bead._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(sql, {"dp": dp_id, "ns": sizes["source"], "nt": sizes["target"]})
        rows = cursor.fetchall()
    return np.array(rows, dtype=np.int64).reshape(-1, 6)


_COLUMNS = {"source": (2, 3), "target": (4, 5)}


def find_window(
    spans: np.ndarray, sizes: dict[str, int], side: str, touched: Sequence[int],
    margin: int | None = None,
) -> Window | None:  # fmt: skip
    """The window around the beads holding sentences ``touched`` of ``side`` (old numbers),
    or None when no bead holds them. ``spans``: ``bead_spans``; ``sizes``: each side's
    sentences."""
    margin = LOCAL_MARGIN if margin is None else margin
    n = len(spans)
    lo, hi = (spans[:, c] for c in _COLUMNS[side])
    hits = np.flatnonzero(np.any([(lo <= t) & (t <= hi) for t in touched], axis=0))
    if not len(hits):
        return None
    before, after = {}, {}
    for s, (first_col, last_col) in _COLUMNS.items():
        # the highest sentence of beads[:k], and the lowest of beads[k:]
        before[s] = np.concatenate([[-1], np.maximum.accumulate(spans[:, last_col])])
        lowest = np.minimum.accumulate(spans[::-1, first_col])[::-1]
        after[s] = np.concatenate([lowest, [sizes[s]]])
    clean = (before["source"] < after["source"]) & (before["target"] < after["target"])
    # a tie in position across a cut is not a cut of the order
    clean[1:n] &= spans[:-1, 1] < spans[1:, 1]
    first = int(np.flatnonzero(clean[: max(0, hits[0] - margin) + 1])[-1])
    stop_from = min(n, int(hits[-1]) + 1 + margin)
    stop = stop_from + int(np.flatnonzero(clean[stop_from:])[0])
    return Window(
        first=first, stop=stop,
        start={s: int(before[s][first]) + 1 for s in SIDES},
        end={s: int(after[s][stop]) for s in SIDES},
        first_position=int(spans[first, 1]),
        stop_position=int(spans[stop, 1]) if stop < n else None,
        ids=[int(i) for i in spans[first:stop, 0]],
    )  # fmt: skip


# the beads after a window: sentence numbers of one side and positions moved, in one statement
# (each row is rewritten once: at 160,000 beads on PostgreSQL, 1.9 s against 3.4 s for two)
_SHIFT = {
    "postgresql": (
        "UPDATE {table} SET position = position + %s, {side} = CASE "
        "WHEN jsonb_array_length({side}) = 0 THEN {side} "
        "WHEN jsonb_array_length({side}) = 1 "
        "THEN jsonb_build_array(({side}->>0)::integer + %s) "
        "ELSE (SELECT jsonb_agg(to_jsonb(e.value::integer + %s) ORDER BY e.n) "
        "FROM jsonb_array_elements_text({table}.{side}) WITH ORDINALITY AS e(value, n)) END "
        "WHERE document_pair_id = %s AND position >= %s"
    ),
    "sqlite": (
        "UPDATE {table} SET position = position + %s, {side} = CASE "
        "WHEN json_array_length({side}) = 0 THEN {side} "
        "WHEN json_array_length({side}) = 1 "
        "THEN json_array(json_extract({side}, '$[0]') + %s) "
        "ELSE (SELECT json_group_array(CAST(e.value AS INTEGER) + %s) FROM (SELECT value "
        "FROM json_each({table}.{side}) ORDER BY CAST(key AS INTEGER)) e) END "
        "WHERE document_pair_id = %s AND position >= %s"
    ),
}


def shift_later_beads(
    dp: DocumentPair, window: Window, side: str, delta: int, new_beads: int
) -> None:
    """The beads after the window: their sentence numbers on ``side`` by ``delta`` and their
    positions by the window's change in length, in one statement."""
    if window.stop_position is None:
        return
    moved = window.first_position + new_beads - window.stop_position
    sql = _SHIFT[connection.vendor].format(table=Bead._meta.db_table, side=side)
    with connection.cursor() as cursor:
        cursor.execute(sql, [moved, delta, delta, dp.pk, window.stop_position])


def realign_window(
    *, dp: DocumentPair, window: Window, side: str, touched: Sequence[int], delta: int,
    old: dict[str, list[str]], propose,
) -> int:  # fmt: skip
    """Replace the window's beads by the aligner's beads for its sentences (``dp``'s, already
    edited; ``old``: each side's sentences before the edit, for carrying decisions over by
    text), the beads after it shifted, the beads paired by hand kept (``with_hand_beads``)
    unless they hold an edited sentence. ``propose(src, tgt, src_blocks, tgt_blocks)`` is the
    aligner. Returns how many beads the window now holds. Inside the caller's transaction."""
    start, end = dict(window.start), dict(window.end)
    end[side] += delta
    texts = {s: getattr(dp, f"{s}_sentences")[start[s] : end[s]] for s in SIDES}
    blocks = {s: getattr(dp, f"{s}_blocks") for s in SIDES}
    both = bool(blocks["source"] and blocks["target"])
    proposed = propose(
        texts["source"], texts["target"],
        blocks["source"][start["source"] : end["source"]] if both else None,
        blocks["target"][start["target"] : end["target"]] if both else None,
    )  # fmt: skip
    ids = window.ids
    held_before = list(Bead.objects.filter(pk__in=ids).values_list("source", "target"))
    keep, hand = decided_by_text(Bead.objects.filter(pk__in=ids), old), []
    for b in Bead.objects.filter(pk__in=ids, confidence__isnull=True):
        moved = renumbered(b, side, touched, delta)
        if moved is not None:
            hand.append(moved)
    Bead.objects.filter(pk__in=ids).delete()
    placed = with_hand_beads(
        [([start["source"] + i for i in src], [start["target"] + j for j in tgt], confidence)
         for src, tgt, confidence in proposed],
        hand,
    )  # fmt: skip
    shift_later_beads(dp, window, side, delta, len(placed))
    now = timezone.now()
    rows = []
    for k, item in enumerate(placed):
        src, tgt = item[0], item[1]
        key = (
            tuple(dp.source_sentences[i] for i in src),
            tuple(dp.target_sentences[j] for j in tgt),
        )
        rows.append(new_bead(dp, window.first_position + k, item, keep.get(key), now))
    Bead.objects.bulk_create(rows)
    # the window's sentences are covered by its beads alone (its edges are clean cuts)
    counted = keep_unaligned(
        dp, uncovered(held_before, window.start, window.end),
        uncovered([(r.source, r.target) for r in rows], start, end),
    )  # fmt: skip
    dp.aligned_at = timezone.now()
    dp.save(update_fields=["aligned_at", *counted])
    return len(rows)


def decided_by_text(beads, sentences: dict[str, Sequence[str]]) -> dict[tuple, Bead]:
    """The decided ones of ``beads``, keyed by the texts of their sentences in ``sentences``
    (each side's list): so a decision follows its sentences when their numbers move."""
    return {
        (tuple(sentences["source"][i] for i in b.source),
         tuple(sentences["target"][j] for j in b.target)): b
        for b in beads.exclude(decision=Bead.Decision.PENDING)
    }  # fmt: skip


# --- how many sentences no bead pairs, kept as the beads change -------------------------


def uncovered(beads, start: dict[str, int], end: dict[str, int]) -> dict[str, int]:
    """How many sentences in ``[start, end)`` of each side no non-null bead of ``beads``
    (``(source, target)`` pairs) holds."""
    covered: dict[str, set[int]] = {"source": set(), "target": set()}
    for src, tgt in beads:
        if src and tgt:
            for s, held in (("source", src), ("target", tgt)):
                covered[s].update(i for i in held if start[s] <= i < end[s])
    return {s: end[s] - start[s] - len(covered[s]) for s in SIDES}


def keep_unaligned(dp: DocumentPair, before: dict[str, int], after: dict[str, int]) -> list[str]:
    """``dp``'s kept counts moved from ``before`` to ``after`` (a part of the pair's sentences
    that only the changed beads cover); returns the fields to save (none when not kept)."""
    if dp.unaligned_source is None or dp.unaligned_target is None:
        return []
    dp.unaligned_source += after["source"] - before["source"]
    dp.unaligned_target += after["target"] - before["target"]
    return ["unaligned_source", "unaligned_target"]


# --- beads paired by hand survive a realignment -----------------------------------------

Proposal = tuple[list[int], list[int], float]
HandBead = tuple[list[int], list[int], Bead]  # its sentences in the new numbering, the bead
Placed = tuple[list[int], list[int], float | None, Bead | None, Bead | None]


def renumbered(bead: Bead, side: str, touched: Sequence[int], delta: int) -> HandBead | None:
    """``bead``'s sentences after an edit of sentences ``touched`` of ``side`` that changed
    their count by ``delta``; None when it holds an edited sentence (its text is gone)."""
    held = {"source": list(bead.source), "target": list(bead.target)}
    if touched and set(held[side]) & set(touched):
        return None
    if touched:
        held[side] = [i + delta if i > max(touched) else i for i in held[side]]
    return held["source"], held["target"], bead


def with_hand_beads(proposed: Sequence[Proposal], hand: Sequence[HandBead]) -> list[Placed]:
    """The aligner's proposals with the beads a lead paired by hand put back, each just before
    the first proposal that shares a sentence with it (at the end if none does). Each item:
    ``(source, target, confidence, the hand bead or None, the accepted hand bead the proposal
    shares a sentence with or None)``: such a proposal is rejected, as pairing by hand does."""
    by_side: dict[str, dict[int, list[int]]] = {"source": {}, "target": {}}
    for h, (src, tgt, _) in enumerate(hand):
        for s, held in (("source", src), ("target", tgt)):
            for i in held:
                by_side[s].setdefault(i, []).append(h)
    placed: set[int] = set()
    out: list[Placed] = []
    for src, tgt, confidence in proposed:
        hits = sorted(
            {h for i in src for h in by_side["source"].get(i, ())}
            | {h for j in tgt for h in by_side["target"].get(j, ())}
        )
        for h in hits:
            if h not in placed:
                placed.add(h)
                out.append((hand[h][0], hand[h][1], None, hand[h][2], None))
        blocking = next((hand[h][2] for h in hits if hand[h][2].decision == "accepted"), None)
        out.append((list(src), list(tgt), confidence, None, blocking))
    out += [(s, t, None, b, None) for h, (s, t, b) in enumerate(hand) if h not in placed]
    return out


def new_bead(dp: DocumentPair, position: int, item: Placed, earlier: Bead | None, now) -> Bead:
    """The row of one placed item: a hand bead as it was; a proposal with the decision made
    earlier on the same sentences, else rejected when it shares a sentence with an accepted
    hand bead, else pending."""
    src, tgt, confidence, hand, blocking = item
    decided = hand or earlier
    if decided is not None:
        decision, by, at = decided.decision, decided.decided_by_id, decided.decided_at
    elif blocking is not None:
        decision, by, at = Bead.Decision.REJECTED, blocking.decided_by_id, now
    else:
        decision, by, at = Bead.Decision.PENDING, None, None
    return Bead(
        document_pair=dp, position=position, source=src, target=tgt,
        confidence=None if hand is not None else round(confidence, 4),
        decision=decision, decided_by_id=by, decided_at=at,
    )  # fmt: skip
