"""Sending a long document pair's accepted beads to annotation: a batch of beads at a time
(one insert of pairs, one update of beads), the pairs in document order after the project's
own, external ids unique in the project, and all or nothing."""

from __future__ import annotations

import pytest

from annotator.documents import services
from annotator.models import Bead, DocumentPair, SentencePair


def aligned(project, lead, name: str, sentences: int) -> DocumentPair:
    de = "".join(f"Im Jahr {1800 + k} stand hier das Haus {k}.\n" for k in range(sentences))
    fr = "".join(f"En {1800 + k}, la maison {k} se trouvait ici.\n" for k in range(sentences))
    (dp,) = services.create_document_pairs(
        project=project, user=lead, name=name,
        source=services.Upload("s.de", de.encode(), "de"),
        target=services.Upload("s.fr", fr.encode(), "fr"),
    )  # fmt: skip
    services.align_document_pair(document_pair=dp)
    return dp


def test_beads_are_sent_in_batches_in_document_order_with_unique_ids(project, lead, monkeypatch):
    monkeypatch.setattr(services, "SEND_BATCH", 4)
    dp = aligned(project, lead, "batches", 11)
    other = aligned(project, lead, "other", 3)
    services.accept_above(document_pair=dp, threshold=0.0, user=lead)
    services.accept_above(document_pair=other, threshold=0.0, user=lead)
    services.decide(bead=dp.beads.get(position=5), decision="rejected", user=lead)
    # a pair of the project already holds the id the bead at position 2 would get
    SentencePair.objects.create(project=project, external_id="batches:2:2", position=0,
                                source_tokens=["a"], target_tokens=["b"])  # fmt: skip
    before = SentencePair.objects.filter(project=project).count()
    result = services.send_to_annotation(
        document_pairs=[dp, other], subcorpus="sent", user=lead, seed=False
    )
    assert result == {"pairs": 13, "too_long": 0, "seed_job": None}
    pairs = list(SentencePair.objects.filter(subcorpus__name="sent").order_by("position"))
    assert len(pairs) == 13 and SentencePair.objects.count() == before + 13
    assert [p.position for p in pairs] == list(range(pairs[0].position, pairs[0].position + 13))
    prov = [(p.metadata["provenance"]["document"], p.metadata["provenance"]["source_sentences"])
            for p in pairs]  # fmt: skip
    assert prov == [("batches", [k]) for k in range(11) if k != 5] + [
        ("other", [k]) for k in range(3)
    ]
    assert pairs[2].external_id == "batches:2:2 (2)"
    assert len({p.external_id for p in pairs}) == 13
    for pair in pairs:
        bead = Bead.objects.get(pair=pair)
        assert bead.pk == pair.metadata["provenance"]["bead"]
        assert pair.source_tokens[:3] == ["Im", "Jahr", str(1800 + bead.source[0])]


def test_a_send_that_fails_in_a_later_batch_writes_nothing(project, lead, monkeypatch):
    monkeypatch.setattr(services, "SEND_BATCH", 3)
    dp = aligned(project, lead, "fails", 8)
    services.accept_above(document_pair=dp, threshold=0.0, user=lead)
    calls = []
    insert = services.insert_pairs

    def failing(project_id, rows, **kw):
        calls.append(len(rows))
        if len(calls) == 2:
            raise RuntimeError("the database went away")
        return insert(project_id, rows, **kw)

    monkeypatch.setattr(services, "insert_pairs", failing)
    with pytest.raises(RuntimeError):
        services.send_to_annotation(document_pairs=[dp], subcorpus="s", user=lead, seed=False)
    assert calls == [3, 3]
    assert not SentencePair.objects.filter(project=project).exists()
    assert not dp.beads.filter(pair__isnull=False).exists()
