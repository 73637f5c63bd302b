"""A long parallel document pair is realigned around a merge or a split, not whole: the
aligner reads a window of sentences whose size follows the margin, not the documents, and
the beads come out as a whole realignment would give them, decisions carried over."""

from __future__ import annotations

import random

import numpy as np
import pytest

from annotator.documents import realign, services
from annotator.models import Bead, DocumentPair

SENTENCES = 300


def long_pair(project, lead, name: str, extra: str = "") -> DocumentPair:
    """``SENTENCES`` sentences a side, one to one; ``extra``: a target sentence with no
    source, put in the middle."""
    rng = random.Random(7)
    words = ["Haus", "See", "Berg", "Dorf", "Weg", "Wald", "Hof", "Bach"]
    mots = ["maison", "lac", "montagne", "village", "chemin", "forêt", "ferme", "ruisseau"]
    de, fr = [], []
    for k in range(SENTENCES):
        picks = rng.sample(range(len(words)), 3)
        de.append(f"Im Jahr {1700 + k} sah man {' und '.join(words[p] for p in picks)} hier.")
        fr.append(f"En {1700 + k}, on voyait ici {' et '.join(mots[p] for p in picks)}.")
    if extra:
        fr.insert(SENTENCES // 2, extra)
    (dp,) = services.create_document_pairs(
        project=project, user=lead, name=name,
        source=services.Upload("l.de", "\n".join(de).encode(), "de"),
        target=services.Upload("l.fr", "\n".join(fr).encode(), "fr"),
    )  # fmt: skip
    services.align_document_pair(document_pair=dp)
    return dp


def listing(dp: DocumentPair) -> list[tuple]:
    return [
        (tuple(b.source), tuple(b.target), b.decision) for b in dp.beads.order_by("position", "id")
    ]


def decide_some(dp: DocumentPair, lead) -> None:
    beads = list(dp.beads.order_by("position"))
    for k, decision in ((10, "accepted"), (148, "rejected"), (153, "accepted"), (290, "accepted")):
        services.decide(bead=beads[k], decision=decision, user=lead)


@pytest.fixture
def small_window(monkeypatch):
    monkeypatch.setattr(realign, "LOCAL_ABOVE", 100)
    monkeypatch.setattr(realign, "LOCAL_MARGIN", 12)
    seen: list[tuple[int, int]] = []
    aligner = services.propose_parallel

    def counting(src, tgt, src_blocks=None, tgt_blocks=None):
        seen.append((len(src), len(tgt)))
        return aligner(src, tgt, src_blocks, tgt_blocks)

    monkeypatch.setattr(services, "propose_parallel", counting)
    return seen


def test_a_merge_and_a_split_in_a_long_pair_realign_a_window_as_the_whole_would(
    project, lead, small_window, monkeypatch
):
    local, whole = long_pair(project, lead, "local"), long_pair(project, lead, "whole")
    assert listing(local) == listing(whole)
    assert len(listing(local)) == SENTENCES  # one to one throughout: the edits below show
    for dp in (local, whole):
        decide_some(dp, lead)
    before = listing(local)

    small_window.clear()
    local = services.merge_sentences(document_pair=local, side="source", index=150)
    assert len(small_window) == 1 and max(small_window[0]) <= 2 * 12 + 4, small_window
    monkeypatch.setattr(realign, "LOCAL_ABOVE", 10**9)  # the twin: realigned whole
    whole = services.merge_sentences(document_pair=whole, side="source", index=150)
    assert small_window[1] == (SENTENCES - 1, SENTENCES)
    assert listing(local) == listing(whole)
    merged = local.beads.get(source=[150])
    assert merged.target == [150, 151] and merged.decision == "pending"
    # the beads after the window moved their source numbers by one, decisions kept
    assert local.beads.get(position=289).source == [289]
    assert local.beads.get(position=289).decision == "accepted"  # was bead 290
    assert local.beads.get(position=152).decision == "accepted"  # was 153: inside the window
    assert local.beads.get(position=148).decision == "rejected"

    monkeypatch.setattr(realign, "LOCAL_ABOVE", 100)
    small_window.clear()
    text = local.source_sentences[150]
    local = services.split_sentence(
        document_pair=local, side="source", index=150, offset=text.index("Im Jahr", 1)
    )
    assert len(small_window) == 1 and max(small_window[0]) <= 2 * 12 + 4, small_window
    assert listing(local) == before  # as it was before the merge, decisions and all
    positions = list(local.beads.order_by("position").values_list("position", flat=True))
    assert positions == list(range(SENTENCES))


def test_a_bead_paired_by_hand_across_the_document_widens_the_window_and_is_kept(
    project, lead, small_window
):
    """Source 20 paired with target 280 by hand: no cut between them leaves the sentences
    before it apart from those after, so the window spans them. The hand bead is kept
    (renumbered: the merge before target 280 makes it 279), the two proposals sharing its
    sentences are rejected, and no sentence is in two beads that are not rejected."""
    dp = long_pair(project, lead, "crossed")
    services.pair_by_hand(document_pair=dp, source=[20], target=[280], user=lead)
    small_window.clear()
    dp = services.merge_sentences(document_pair=dp, side="target", index=150)
    assert len(small_window) == 1
    src, tgt = small_window[0]
    assert src >= 280 - 20 and tgt >= 280 - 20  # from before 20 to after 280
    hand = dp.beads.get(confidence__isnull=True)
    assert (hand.source, hand.target, hand.decision) == ([20], [279], "accepted")
    assert hand.decided_by == lead
    rows = [r for r in listing(dp) if r[2] != "rejected"]
    assert sorted(i for s, _, _ in rows for i in s) == [i for i in range(SENTENCES) if i != 280]
    assert sorted(j for _, t, _ in rows for j in t) == [j for j in range(SENTENCES - 1) if j != 20]
    rejected = dp.beads.filter(decision="rejected")
    assert {(tuple(b.source), tuple(b.target)) for b in rejected} == {((20,), (20,)),
                                                                      ((280,), (279,))}  # fmt: skip
    positions = [b.position for b in dp.beads.order_by("position")]
    assert positions == sorted(set(positions))


@pytest.mark.parametrize("above", [100, 10**9])  # realigned in a window, and whole
def test_a_bead_paired_by_hand_survives_a_realignment(project, lead, small_window, monkeypatch,
                                                      above):  # fmt: skip
    """The lead's pairing by hand is not undone by a merge elsewhere, nor by realigning the
    pair; one holding the merged sentence goes with its text."""
    monkeypatch.setattr(realign, "LOCAL_ABOVE", above)
    dp = long_pair(project, lead, "kept")
    services.pair_by_hand(document_pair=dp, source=[140, 141], target=[140], user=lead)
    services.pair_by_hand(document_pair=dp, source=[160], target=[160, 161], user=lead)
    small_window.clear()
    dp = services.merge_sentences(document_pair=dp, side="source", index=150)
    assert max(small_window[0]) < SENTENCES if above == 100 else small_window[0][1] == SENTENCES
    hand = dp.beads.filter(confidence__isnull=True).order_by("position")
    assert [(b.source, b.target, b.decision) for b in hand] == [
        ([140, 141], [140], "accepted"), ([159], [160, 161], "accepted")
    ]  # fmt: skip
    services.align_document_pair(document_pair=dp)
    assert [(b.source, b.target) for b in hand.all()] == [([140, 141], [140]), ([159], [160, 161])]
    dp = services.merge_sentences(document_pair=dp, side="target", index=160)
    assert [(b.source, b.target) for b in hand.all()] == [([140, 141], [140])]


def spans(rows, size: int = 10) -> np.ndarray:
    return np.array([
        (i, p, min(s, default=size), max(s, default=-1), min(t, default=size), max(t, default=-1))
        for i, p, s, t in rows
    ])  # fmt: skip


def test_the_window_is_cut_where_no_bead_crosses(project, lead):
    rows = [(k, k, [k], [k]) for k in range(10)]
    rows[4] = (4, 4, [4], [4, 5])
    rows[5] = (5, 5, [5], [])  # source 5 unpaired: target 5 is in bead 4
    sizes = {"source": 10, "target": 10}
    window = realign.find_window(spans(rows), sizes, "source", [5], margin=0)
    assert (window.first, window.stop, window.ids) == (5, 6, [5])
    assert window.start == {"source": 5, "target": 6} and window.end == {"source": 6, "target": 6}
    crossed = [*rows[:2], (2, 2, [2], [8]), *rows[3:]]
    window = realign.find_window(spans(crossed), sizes, "source", [5], margin=0)
    assert (window.first, window.stop) == (2, 9)
    tied = [*rows[:6], (6, 5, [6], [6]), *rows[7:]]  # beads 5 and 6 share a position
    window = realign.find_window(spans(tied), sizes, "source", [5], margin=0)
    assert (window.first, window.stop) == (5, 7)
    assert realign.find_window(spans(rows), sizes, "target", [42]) is None
    widest = realign.find_window(spans(rows), sizes, "source", [0, 1], margin=50)
    assert (widest.first, widest.stop, widest.stop_position) == (0, 10, None)


def test_the_beads_spans_are_read_by_the_database_as_the_beads_hold_them(project, lead):
    dp = long_pair(project, lead, "spans")
    services.pair_by_hand(document_pair=dp, source=[3, 4], target=[7], user=lead)
    Bead.objects.filter(document_pair=dp, position=9).update(target=[])
    sizes = {"source": SENTENCES, "target": SENTENCES}
    rows = [(b.pk, b.position, b.source, b.target) for b in dp.beads.order_by("position", "id")]
    assert realign.bead_spans(dp.pk, sizes).tolist() == spans(rows, SENTENCES).tolist()


@pytest.mark.parametrize("read_whole", [1000, 0])
def test_pairing_by_hand_in_a_long_pair_reads_only_the_beads_near_its_sentences(
    project, lead, monkeypatch, read_whole
):
    """The overlapping proposals are found from the beads' spans: the same rejections as
    reading every bead, for a pair across the whole document too."""
    monkeypatch.setattr(services, "NEAR_READ_WHOLE", read_whole)
    dp = long_pair(project, lead, "near")
    made = services.pair_by_hand(document_pair=dp, source=[150, 151], target=[150], user=lead)
    rejected = dp.beads.filter(decision="rejected")
    assert sorted((b.source, b.target) for b in rejected) == [([150], [150]), ([151], [151])]
    assert made.position == 150
    wide = services.pair_by_hand(
        document_pair=dp, source=list(range(0, 8)), target=[299], user=lead
    )
    assert dp.beads.filter(decision="rejected").count() == 2 + 9 and wide.position == 0


def test_the_unpaired_counts_are_kept_through_every_change_of_the_beads(
    project, lead, small_window, monkeypatch
):
    """Aligning, merging and splitting (in a window and whole), pairing by hand and
    realigning keep the pair's counts of unpaired sentences equal to counting them afresh;
    a pair whose counts are not kept is counted by the database, the same."""
    from annotator.documents.selectors import _unaligned_counts, review_state

    def check(dp):
        dp.refresh_from_db()
        state = review_state(document_pair=dp)
        fresh = {s: len(state[f"unaligned_{s}"]) for s in ("source", "target")}
        assert {"source": dp.unaligned_source, "target": dp.unaligned_target} == fresh
        sizes = {s: len(state[f"{s}_sentences"]) for s in ("source", "target")}
        dp.unaligned_source = None
        assert _unaligned_counts(dp, sizes) == fresh
        return fresh

    dp = long_pair(project, lead, "counted", extra="Le texte français ajoute ici une note.")
    assert check(dp) == {"source": 0, "target": 1}
    services.pair_by_hand(document_pair=dp, source=[30, 31], target=[30], user=lead)
    assert check(dp) == {"source": 0, "target": 1}  # rejected proposals still cover theirs
    services.pair_by_hand(document_pair=dp, source=[150], target=[150], user=lead)
    assert check(dp) == {"source": 0, "target": 0}  # the note, paired by hand
    services.align_document_pair(document_pair=dp)
    assert check(dp) == {"source": 0, "target": 0}
    for above in (100, 10**9):  # in a window, then whole
        monkeypatch.setattr(realign, "LOCAL_ABOVE", above)
        dp = services.merge_sentences(document_pair=dp, side="target", index=100)
        check(dp)
        text = dp.target_sentences[100]
        dp = services.split_sentence(
            document_pair=dp, side="target", index=100, offset=text.index("En ", 1)
        )
        check(dp)
        dp = services.merge_sentences(document_pair=dp, side="target", index=150)
        assert check(dp) == {"source": 0, "target": 0}
        dp = services.split_sentence(
            document_pair=dp, side="target", index=150, offset=dp.target_sentences[150].index("En ")
        )
        check(dp)


def test_the_beads_after_a_window_are_renumbered_whatever_their_sentences(project, lead):
    """The one statement that moves the later beads: empty sides stay empty, one sentence or
    several are each moved by the edit, in order, and the positions by the window's change."""
    dp = DocumentPair.objects.create(
        project=project, name="shift", source_language="de", target_language="fr",
        source_filename="a", target_filename="b", source_format="lines", target_format="lines",
        source_sentences=[f"s{k}" for k in range(20)], target_sentences=[f"t{k}" for k in range(20)],
    )  # fmt: skip
    rows = [([0], [0]), ([1], [1]), ([2, 3, 4], [2]), ([], [3]), ([5], [4, 5]), ([6, 7], [])]
    for k, (src, tgt) in enumerate(rows):
        Bead.objects.create(document_pair=dp, position=k, source=src, target=tgt)
    window = realign.Window(first=0, stop=2, start={"source": 0, "target": 0},
                            end={"source": 2, "target": 2}, first_position=0, stop_position=2,
                            ids=[])  # fmt: skip
    realign.shift_later_beads(dp, window, "source", -1, new_beads=1)
    got = [(b.position, b.source, b.target) for b in dp.beads.order_by("position", "id")]
    assert got == [(0, [0], [0]), (1, [1], [1]), (1, [1, 2, 3], [2]), (2, [], [3]),
                   (3, [4], [4, 5]), (4, [5, 6], [])]  # fmt: skip
