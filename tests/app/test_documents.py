"""Documents → sentence pairs (issue 33): reading uploads, aligning, the lead's decisions,
merge and split, and sending accepted beads to annotation with their provenance."""

from __future__ import annotations

import io
import zipfile

import pytest

from annotator.documents import services
from annotator.documents.reading import DocumentError, Upload, list_archive, read_document
from annotator.models import Bead, DocumentPair, Job, SentencePair

DE = (
    "Der Gletscher liegt am Fuss des Berges.\n"
    "Im Jahr 1865 stiegen sechs Bergsteiger auf.\n"
    "Vier von ihnen kamen beim Abstieg ums Leben.\n"
    "Die Hütte steht auf 2850 Metern.\n"
)
FR = (
    "Le glacier se trouve au pied de la montagne.\n"
    "En 1865, six alpinistes sont montés.\n"
    "Quatre d'entre eux sont morts à la descente.\n"
    "La cabane se trouve à 2850 mètres.\n"
)


def up(name: str, text: str | bytes, lang: str) -> Upload:
    return Upload(name, text.encode() if isinstance(text, str) else text, lang)


def make_pair(project, lead, **kw) -> DocumentPair:
    (dp,) = services.create_document_pairs(
        project=project, user=lead, source=up("x.de", DE, "de"), target=up("x.fr", FR, "fr"), **kw
    )
    return dp


def test_one_sentence_per_line_is_taken_as_it_is_and_raw_text_is_split():
    lines = read_document(up("a.de", DE, "de"))
    assert lines.format == "lines" and len(lines.sentences) == 4
    raw = read_document(up("a.txt", "First one. Second one here!\n\nA new paragraph.", "en"))
    assert raw.format == "text"
    assert raw.sentences == ["First one.", "Second one here!", "A new paragraph."]


def test_html_keeps_each_sentences_block():
    html = "<html><body><h1>Title</h1><div><p>One. Two.</p><p>Three.</p></div></body></html>"
    doc = read_document(up("a.html", html, "en"))
    assert doc.format == "html"
    assert doc.sentences == ["Title", "One.", "Two.", "Three."]
    assert doc.blocks == [0, 1, 1, 2]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\x00\x01\x02binary", "binary file"),
        ("caf\xe9 au lait".encode("latin-1"), "not UTF-8 text (byte 0xe9 at offset 3, line 1)"),
        (b"   \n\n  ", "no text found"),
    ],
)
def test_bad_files_are_refused_with_a_reason_and_nothing_is_written(project, lead, data, reason):
    with pytest.raises(
        DocumentError, match=r"bad\.fr: .*" + reason.replace("(", r"\(").replace(")", r"\)")
    ):
        services.create_document_pairs(
            project=project, user=lead, source=up("x.de", DE, "de"), target=up("bad.fr", data, "fr")
        )
    assert DocumentPair.objects.count() == 0


def zipped(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return buf.getvalue()


def test_an_archive_pairs_documents_by_file_name():
    data = zipped(
        {"a.de": DE, "a.fr": FR, "b.src.html": "<p>Hallo.</p>", "b.tgt.html": "<p>Salut.</p>"}
    )
    pairs = list_archive(
        io.BytesIO(data), filename="docs.zip", source_language="de", target_language="fr"
    )
    assert [(p.name, p.source, p.target) for p in pairs] == [
        ("a", "a.de", "a.fr"),
        ("b", "b.src.html", "b.tgt.html"),
    ]


def test_an_archive_with_an_unmatched_file_is_refused_whole(project, lead):
    data = zipped({"a.de": DE, "a.fr": FR, "b.de": DE})
    with pytest.raises(DocumentError, match="docs.zip: unmatched files: b has no target"):
        services.create_document_pairs(
            project=project, user=lead, archive=("docs.zip", data),
            source=up("", b"", "de"), target=up("", b"", "fr"),
        )  # fmt: skip
    assert DocumentPair.objects.count() == 0


def test_aligning_makes_one_to_one_beads_with_confidences(project, lead):
    dp = make_pair(project, lead)
    beads = services.align_document_pair(document_pair=dp)
    assert [(b.source, b.target) for b in beads] == [([0], [0]), ([1], [1]), ([2], [2]), ([3], [3])]
    assert all(0.0 <= b.confidence <= 1.0 for b in beads)


def test_decisions_threshold_and_null_beads(project, lead):
    dp = make_pair(project, lead)
    beads = services.align_document_pair(document_pair=dp)
    services.decide(bead=beads[0], decision="rejected", user=lead)
    nulls = [
        Bead.objects.create(document_pair=dp, position=7, source=[], target=[1], confidence=1),
        Bead.objects.create(document_pair=dp, position=8, source=[2], target=[], confidence=1),
    ]
    accepted = services.accept_above(document_pair=dp, threshold=0.0, user=lead)
    assert accepted == 3  # the rejected one stays rejected, and null beads pending
    assert Bead.objects.get(pk=beads[0].pk).decision == "rejected"
    assert {Bead.objects.get(pk=b.pk).decision for b in nulls} == {"pending"}
    taken = dp.beads.filter(decision="accepted")
    assert {(b.decided_by, b.decided_at is not None) for b in taken} == {(lead, True)}
    null = Bead.objects.create(document_pair=dp, position=9, source=[0], target=[], confidence=1)
    with pytest.raises(DocumentError, match="empty side cannot be accepted"):
        services.decide(bead=null, decision="accepted", user=lead)


def test_merge_then_split_realigns_and_keeps_decisions_on_unchanged_sentences(project, lead):
    dp = make_pair(project, lead)
    beads = services.align_document_pair(document_pair=dp)
    services.decide(bead=beads[3], decision="accepted", user=lead)
    dp = services.merge_sentences(document_pair=dp, side="source", index=0)
    assert len(dp.source_sentences) == 3
    kept = dp.beads.get(decision="accepted")
    assert [dp.source_sentences[i] for i in kept.source] == ["Die Hütte steht auf 2850 Metern."]
    first = dp.source_sentences[0]
    dp = services.split_sentence(
        document_pair=dp, side="source", index=0, offset=first.index("Im Jahr")
    )
    assert dp.source_sentences[:2] == DE.splitlines()[:2]
    assert dp.beads.filter(decision="accepted").count() == 1
    with pytest.raises(DocumentError, match="no source sentences 7 and 8"):
        services.merge_sentences(document_pair=dp, side="source", index=7)


def test_send_to_annotation_makes_pairs_with_provenance_and_starts_seeding(project, lead):
    dp = make_pair(project, lead)
    services.align_document_pair(document_pair=dp)
    services.accept_above(document_pair=dp, threshold=0.0, user=lead)
    result = services.send_to_annotation(document_pairs=[dp], subcorpus="glaciers", user=lead)
    assert result["pairs"] == 4 and result["too_long"] == 0
    pair = SentencePair.objects.get(external_id="x.de / x.fr:3:3")
    assert pair.subcorpus.name == "glaciers"
    assert pair.source_tokens == ["Die", "Hütte", "steht", "auf", "2850", "Metern", "."]
    prov = pair.metadata["provenance"]
    assert (prov["document_pair"], prov["source_sentences"], prov["target_sentences"]) == (
        dp.pk, [3], [3],
    )  # fmt: skip
    assert pair.bead.document_pair == dp
    assert Job.objects.get(pk=result["seed_job"]).kind == "seed"
    again = services.send_to_annotation(document_pairs=[dp], subcorpus="glaciers", user=lead)
    assert again["pairs"] == 0  # nothing is sent twice
    with pytest.raises(DocumentError, match="was sent to annotation"):
        services.decide(bead=pair.bead, decision="rejected", user=lead)


def test_the_command_imports_aligns_accepts_and_sends(project, tmp_path):
    from django.core.management import call_command

    (tmp_path / "a.de").write_text(DE, encoding="utf-8")
    (tmp_path / "a.fr").write_text(FR, encoding="utf-8")
    out = io.StringIO()
    call_command(
        "import_documents", str(tmp_path / "a.de"), str(tmp_path / "a.fr"),
        project=project.name, source_lang="de", target_lang="fr", accept_above=0.0,
        send="alps", stdout=out,
    )  # fmt: skip
    assert "4 + 4 sentences, 4 beads" in out.getvalue()
    assert SentencePair.objects.filter(subcorpus__name="alps").count() == 4


def test_the_command_refuses_a_bad_file_and_writes_nothing(project, tmp_path):
    from django.core.management import CommandError, call_command

    (tmp_path / "a.de").write_text(DE, encoding="utf-8")
    (tmp_path / "a.fr").write_bytes(b"\x00\x00binary")
    with pytest.raises(CommandError, match=r"a\.fr: a binary file"):
        call_command(
            "import_documents", str(tmp_path / "a.de"), str(tmp_path / "a.fr"),
            project=project.name, source_lang="de", target_lang="fr",
        )  # fmt: skip
    assert DocumentPair.objects.count() == 0


def test_comparable_documents_give_mutual_best_pairs_in_any_order(project, lead):
    pc = (
        "The storm reached Boston on Monday night with winds of 90 miles an hour.\n"
        "Officials closed 300 schools across Massachusetts.\n"
        "The weather was mild in the south of the country.\n"
    )
    mobile = (
        "Massachusetts officials shut 300 schools.\n"
        "Winds of 90 mph hit Boston as the storm arrived Monday night.\n"
        "Sports: the Red Sox signed a new pitcher.\n"
    )
    (dp,) = services.create_document_pairs(
        project=project, user=lead, kind="comparable",
        source=up("pc.txt", pc, "en"), target=up("mobile.txt", mobile, "en"),
    )  # fmt: skip
    beads = services.align_document_pair(document_pair=dp)
    found = {(b.source[0], b.target[0]) for b in beads}
    assert {(0, 1), (1, 0)} <= found  # found in either order
    assert not any(t == 2 for _, t in found)  # the distractor stays unpaired


def test_the_pair_classifier_learns_a_planted_rule_from_the_leads_decisions(project, lead):
    """The lead accepts every bead whose sentences share a number and rejects the rest; once
    there are enough decisions, the classifier ranks unseen beads of the same kind first."""
    from annotator.documents.selectors import review_state

    src, tgt = [], []
    for k in range(60):
        if k % 2:
            src.append(f"Im Jahr {1800 + k} kamen {k + 3} Leute.")
            tgt.append(f"En {1800 + k}, {k + 3} personnes sont venues.")
        else:
            src.append(f"Der Hund Nummer {k} schläft.")
            tgt.append("Le chat mange une souris grise.")
    (dp,) = services.create_document_pairs(
        project=project, user=lead, source=up("p.de", "\n".join(src), "de"),
        target=up("p.fr", "\n".join(tgt), "fr"),
    )  # fmt: skip
    beads = sorted(services.align_document_pair(document_pair=dp), key=lambda b: b.position)
    one_to_one = [b for b in beads if len(b.source) == 1 and len(b.target) == 1]
    assert len(one_to_one) >= 50
    assert not services.learn_from_decisions(project=project)["trained"]  # no decisions yet
    for bead in one_to_one[:40]:
        decision = "accepted" if bead.source[0] % 2 else "rejected"
        services.decide(bead=bead, decision=decision, user=lead)
    result = services.learn_from_decisions(project=project)
    assert result["trained"] and result["decisions"] == 40
    state = review_state(document_pair=dp, order="likeliest")
    pending = [b for b in state["beads"] if b["decision"] == "pending" and not b["null"]]
    ranked = [b["source"][0] % 2 for b in pending if b["predicted"] is not None]
    assert ranked and sorted(ranked, reverse=True) == ranked  # every odd (planted) one first


def test_pairing_by_hand_rejects_the_overlapping_proposals_and_keeps_accepted_ones(project, lead):
    dp = make_pair(project, lead)
    beads = sorted(services.align_document_pair(document_pair=dp), key=lambda b: b.position)
    services.decide(bead=beads[0], decision="accepted", user=lead)
    made = services.pair_by_hand(document_pair=dp, source=[1, 2], target=[1], user=lead)
    assert (made.decision, made.confidence, made.source, made.target) == (
        "accepted",
        None,
        [1, 2],
        [1],
    )
    decisions = {b.pk: b.decision for b in Bead.objects.filter(document_pair=dp)}
    assert decisions[beads[1].pk] == decisions[beads[2].pk] == "rejected"
    assert decisions[beads[3].pk] == "pending"
    with pytest.raises(DocumentError, match="already pairs some of these sentences"):
        services.pair_by_hand(document_pair=dp, source=[0], target=[3], user=lead)
    with pytest.raises(DocumentError, match="numbered 0 to 3"):
        services.pair_by_hand(document_pair=dp, source=[9], target=[3], user=lead)
    services.send_to_annotation(document_pairs=[dp], subcorpus="hand", user=lead, seed=False)
    hand = SentencePair.objects.get(metadata__provenance__bead=made.pk)
    assert hand.metadata["provenance"]["confidence"] is None
