"""The parallel aligner on small hand-made documents: every bead type, empty documents, one
side empty, very unequal lengths, HTML anchors, and the bead scores (strict / lax F1)."""

from __future__ import annotations

import pytest

from alignment_core.sentalign import ParallelConfig, align_parallel
from alignment_core.sentalign.score import score_beads
from alignment_core.sentalign.split import html_sentences

# Each German sentence carries numbers and names its French translation keeps.
DE = [
    "Die Expedition von 1953 erreichte den Gipfel des Nanga Parbat am 3. Juli .",  # 1-1
    "Hermann Buhl stieg allein von Lager 5 auf 8125 Meter und kehrte erst nach 41 Stunden "
    "zurück , völlig erschöpft aber lebendig .",  # 1-2
    "Das Wetter war gut .",  # 2-1 (with the next)
    "Der Wind blieb schwach bis 1400 Uhr .",
    "Karl Herrligkoffer leitete die Gruppe von 11 Bergsteigern .",  # 2-2 (with the next)
    "Sie brauchten 62 Träger und 9 Sherpas für den Anmarsch aus Rawalpindi .",
    "Der Chronist Günter Dyhrenfurth lobte in seinem langen Jahresbericht die Leistung der "
    "ganzen Mannschaft ausführlich und mit vielen Einzelheiten über Ausrüstung und Verpflegung "
    "der Träger .",  # 1-0
    "Im Jahr 1962 folgte die Diamir-Flanke mit Toni Kinshofer und Anderl Mannhardt .",  # 1-1
    "Reinhold Messner kam 1970 mit seinem Bruder Günther zum Nanga Parbat .",  # 1-1
]
FR = [
    "L' expédition de 1953 atteignit le sommet du Nanga Parbat le 3 juillet .",
    "Hermann Buhl monta seul du camp 5 jusqu' à 8125 mètres .",
    "Il ne revint qu' après 41 heures , épuisé mais vivant .",
    "Le temps était beau et le vent resta faible jusqu' à 1400 heures .",
    "Pour la marche d' approche depuis Rawalpindi , il fallut 62 porteurs et 9 sherpas",
    "au groupe de 11 alpinistes que dirigeait Karl Herrligkoffer .",  # the order crosses
    "En 1962 suivit la face du Diamir avec Toni Kinshofer et Anderl Mannhardt .",
    "Photo : archives 1957 , collection privée de la Fondation suisse , Genève , Zurich et "
    "Berne , tirage 2004 .",  # 0-1
    "Reinhold Messner vint en 1970 avec son frère Günther au Nanga Parbat .",
]
GOLD = [
    ((0,), (0,)),
    ((1,), (1, 2)),
    ((2, 3), (3,)),
    ((4, 5), (4, 5)),
    ((6,), ()),
    ((7,), (6,)),
    ((), (7,)),
    ((8,), (8,)),
]


def _pairs(beads):
    return [(b.src, b.tgt) for b in beads]


def _covers(beads, n, m):
    assert [i for b in beads for i in b.src] == list(range(n))
    assert [j for b in beads for j in b.tgt] == list(range(m))


def test_every_bead_type_is_found():
    beads = align_parallel(DE, FR)
    assert _pairs(beads) == GOLD
    _covers(beads, len(DE), len(FR))
    assert all(0.0 <= b.confidence <= 1.0 for b in beads)
    # a well-supported 1-1 bead is more confident than the 2-2 bead
    assert beads[0].confidence > beads[3].confidence
    # the two null beads have no partner in sight: more likely right than not
    assert beads[4].confidence > 0.5 and beads[6].confidence > 0.5


def test_null_beads_next_to_their_partner_have_low_confidence():
    # nulls made nearly free: every sentence is left alone, although partners sit beside them
    beads = align_parallel(DE, FR, config=ParallelConfig(null_cost=0.01))
    assert all(not (b.src and b.tgt) for b in beads)
    by_src = {b.src[0]: b.confidence for b in beads if b.src}
    assert by_src[0] < 0.5 and by_src[8] < 0.5
    # the sentence that really has no partner is the likelier to be right
    assert by_src[6] > 0.5 and by_src[6] > max(by_src[0], by_src[8]) + 0.1


def test_same_result_with_the_plain_python_kernels(monkeypatch):
    monkeypatch.setenv("GRIDALIGN_SENTALIGN_PLAIN", "1")
    assert _pairs(align_parallel(DE, FR)) == GOLD


def test_empty_documents_and_one_side_empty():
    assert align_parallel([], []) == []
    only_src = align_parallel(["Eins .", "Zwei ."], [])
    assert _pairs(only_src) == [((0,), ()), ((1,), ())]
    only_tgt = align_parallel([], ["Un ."])
    assert _pairs(only_tgt) == [((), (0,))]


def test_very_unequal_lengths():
    # one source sentence against 30 target sentences, one of which translates it
    tgt = [f"Remarque numéro {k} sur la page {100 + k} ." for k in range(30)]
    tgt[17] = "Le Manaslu , 8163 m , fut gravi par Imanishi en 1956 ."
    beads = align_parallel(["Der Manaslu , 8163 m , wurde 1956 von Imanishi bestiegen ."], tgt)
    _covers(beads, 1, 30)
    full = [b for b in beads if b.src]
    assert len(full) == 1 and 17 in full[0].tgt


def test_long_document_with_insertions_stays_in_the_band():
    src = [f"Der Gipfel {1000 + k} wurde von Gruppe {k} erreicht ." for k in range(300)]
    tgt = [f"Le sommet {1000 + k} fut atteint par le groupe {k} ." for k in range(300)]
    tgt[150:150] = [f"Légende de photo {9000 + k} ." for k in range(40)]
    beads = align_parallel(src, tgt)
    _covers(beads, 300, 340)
    # every source sentence lands with its own translation (a caption at the edge of the
    # inserted run may be glued to a neighbour's bead), and the run stays unaligned
    own = {k if k < 150 else k + 40 for k in range(300)}
    for b in beads:
        for i in b.src:
            assert (i if i < 150 else i + 40) in b.tgt
    nulls = {b.tgt[0] for b in beads if not b.src}
    assert len(nulls & set(range(150, 190))) >= 36
    assert not nulls & own


def test_gale_church_mode_uses_lengths_only():
    src = ["a" * 10, "b" * 40, "c" * 20]
    tgt = ["x" * 11, "y" * 19, "z" * 21, "w" * 20]
    beads = align_parallel(src, tgt, config=ParallelConfig(mode="gale-church"))
    assert _pairs(beads) == [((0,), (0,)), ((1,), (1, 2)), ((2,), (3,))]


def test_html_blocks_are_anchors():
    # Block boundaries keep sentence 2 of the source (in its own paragraph) away from the
    # first paragraph, although lengths alone would pair it differently.
    src_html = (
        "<html><body><div><p>Der Berg ist 8848 m hoch. Er heisst Everest.</p>"
        "<div><p>Hillary kam 1953 an.</p></div></div></body></html>"
    )
    tgt_html = (
        "<html><body><div><p>La montagne mesure 8848 m. Elle s'appelle Everest.</p>"
        "<div><p>Hillary arriva en 1953.</p></div></div></body></html>"
    )
    s, sb, _ = html_sentences(src_html, "de")
    t, tb, _ = html_sentences(tgt_html, "fr")
    assert sb == [0, 0, 1] and tb == [0, 0, 1]
    beads = align_parallel(s, t, src_blocks=sb, tgt_blocks=tb)
    assert _pairs(beads) == [((0,), (0,)), ((1,), (1,)), ((2,), (2,))]


def test_blocks_on_one_side_only_are_ignored():
    beads = align_parallel(DE, FR, src_blocks=[0] * len(DE))
    assert _pairs(beads) == GOLD


def test_strict_and_lax_scores():
    gold = [((0,), (0,)), ((1, 2), (1,)), ((), (2,)), ((3,), (3,))]
    test = [((0,), (0,)), ((1,), (1,)), ((2,), ()), ((), (2,)), ((3,), (3,))]
    s = score_beads([gold], [test])
    # precision over 5 test beads: strict hits (0)(0), ()(2), (3)(3); lax adds (1)(1)
    assert s.precision_strict == pytest.approx(3 / 5)
    assert s.precision_lax == pytest.approx(4 / 5)
    # recall over the 3 non-null gold beads against the 3 non-null test beads
    assert s.recall_strict == pytest.approx(2 / 3)
    assert s.recall_lax == pytest.approx(1.0)
    perfect = score_beads([gold], [gold])
    assert perfect.f1_strict == perfect.f1_lax == 1.0


def test_a_path_far_from_the_length_diagonal_widens_the_band_until_it_fits():
    # 300 long captions only the target has, in the middle: the length diagonal runs ~150
    # sentences off the true path there, beyond the first band (128 cells), which is then
    # recentred on the path and doubled until the path no longer touches its edge
    src = [f"Der Gipfel {1000 + k} wurde von Gruppe {k} erreicht ." for k in range(600)]
    tgt = [f"Le sommet {1000 + k} fut atteint par le groupe {k} ." for k in range(600)]
    caption = "Légende de la photographie {} prise depuis le refuge , archives du club , tirage"
    tgt[300:300] = [caption.format(9000 + k) for k in range(300)]
    beads = align_parallel(src, tgt)
    _covers(beads, 600, 900)
    for b in beads:
        for i in b.src:
            assert (i if i < 300 else i + 300) in b.tgt, b
    assert len({b.tgt[0] for b in beads if not b.src} & set(range(300, 600))) >= 295
