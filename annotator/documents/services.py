"""Documents → sentence pairs (issue 33), the writes: create document pairs from uploads,
align their sentences into beads, record the lead's decisions, merge and split sentences, and
send accepted beads to annotation as sentence pairs that carry their provenance.

Every function here is all or nothing: a bad file, a bead of another document or a decision on
a null bead raises ``DocumentError`` and writes nothing.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from django.db import connection, transaction
from django.db.models import Max, Q
from django.utils import timezone

from annotator.corpora.services.importing_rows import NewPair, insert_pairs
from annotator.documents import realign
from annotator.documents.reading import (
    DocumentError,
    ReadDocument,
    Upload,
    list_archive,
    read_document,
    read_member,
    tokenize,
    unique_names,
)
from annotator.jobs.services import start_job
from annotator.models import Bead, DocumentPair, Project, Subcorpus
from annotator.seeding.services import start_seed_job

ALIGN_JOB = "document-align"
LEARN_JOB = "document-learn"
SEND_JOB = "document-send"


def create_document_pairs(
    *,
    project: Project,
    user: Any,
    kind: str = DocumentPair.Kind.PARALLEL,
    source: Upload | None = None,
    target: Upload | None = None,
    archive: tuple[str, bytes] | None = None,
    name: str = "",
    split: str = "auto",
) -> list[DocumentPair]:
    """Read every document first (any bad file refuses them all), then store them in one
    transaction. Either ``source`` and ``target``, or ``archive`` (file name, zip bytes) of
    many pairs matched by file name. Aligning is a separate step (``align_document_pair``, or
    ``start_align_job``)."""
    if kind not in DocumentPair.Kind.values:
        raise DocumentError(f"unknown kind {kind!r} (parallel or comparable)")
    if archive is not None:
        read = _read_archive(archive, source, target, split)
    elif source is not None and target is not None:
        default = name or f"{source.filename} / {target.filename}"
        read = [(default, read_document(source, split=split), read_document(target, split=split))]
    else:
        raise DocumentError("give a source and a target document, or a zip archive of them")
    with transaction.atomic():
        taken = set(DocumentPair.objects.filter(project=project).values_list("name", flat=True))
        names = unique_names([r[0] for r in read], taken)
        return [
            DocumentPair.objects.create(
                project=project, name=pair_name, kind=kind, created_by=user_or_none(user),
                **side_fields("source", src), **side_fields("target", tgt),
            )
            for pair_name, (_, src, tgt) in zip(names, read, strict=True)
        ]  # fmt: skip


def _read_archive(archive: tuple[str, bytes], source, target, split: str):
    """Every pair of an in-memory zip, read one member at a time (the command's path; the
    web's goes through ``uploads``, which reads members in the align job)."""
    src_lang = source.language if source else ""
    tgt_lang = target.language if target else ""
    zipped = io.BytesIO(archive[1])
    found = list_archive(
        zipped, filename=archive[0], source_language=src_lang, target_language=tgt_lang
    )
    read = []
    for pair in found:
        docs = [
            read_document(read_member(zipped, member, filename=archive[0], language=lang),
                          split=split)
            for member, lang in ((pair.source, src_lang), (pair.target, tgt_lang))
        ]  # fmt: skip
        read.append((pair.name, docs[0], docs[1]))
    return read


def side_fields(side: str, doc: ReadDocument) -> dict[str, Any]:
    return {
        f"{side}_language": doc.language,
        f"{side}_filename": doc.filename[:255],
        f"{side}_format": doc.format,
        f"{side}_original": doc.original,
        f"{side}_sentences": doc.sentences,
        f"{side}_blocks": doc.blocks,
    }


def user_or_none(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None


def start_align_job(*, project: Project, user: Any, document_pairs: Sequence[DocumentPair]) -> Any:
    """Align the document pairs in a worker, with progress (job kind ``document-align``); a
    pair waiting to be read is read there first. Several pairs are aligned by parallel tasks
    (``documents.jobs``)."""
    ids = [dp.pk for dp in document_pairs]
    return start_job(kind=ALIGN_JOB, project=project, user=user, params={"document_pairs": ids})


def start_learn_job(*, project: Project, user: Any) -> Any:
    """Learn from the project's decisions in a worker (job kind ``document-learn``): at
    160,000 beads the features alone take about a minute, too long for a request. One at a
    time per project."""
    return start_job(kind=LEARN_JOB, project=project, user=user, params={})


def propose_beads(document_pair: DocumentPair) -> list[tuple[list[int], list[int], float]]:
    """The aligner's beads for the pair's current sentences (source, target, confidence)."""
    src, tgt = document_pair.source_sentences, document_pair.target_sentences
    if document_pair.kind == DocumentPair.Kind.COMPARABLE:
        from alignment_core.sentalign.comparable import match_comparable  # worker only: numba

        found = match_comparable(src, tgt)
        return [([p.src], [p.tgt], min(1.0, float(p.score))) for p in found]
    return propose_parallel(src, tgt, document_pair.source_blocks, document_pair.target_blocks)


Decisions = dict[tuple[tuple[str, ...], tuple[str, ...]], Bead]


def decisions_by_text(document_pair: DocumentPair) -> Decisions:
    """The decided beads not yet sent, keyed by the texts of their sentences (so a decision
    follows its sentences when indices move after a merge or split)."""
    dp = document_pair
    sentences = {"source": dp.source_sentences, "target": dp.target_sentences}
    return realign.decided_by_text(dp.beads.filter(pair__isnull=True), sentences)


def _texts(dp: DocumentPair, src: Sequence[int], tgt: Sequence[int]):
    return (
        tuple(dp.source_sentences[i] for i in src),
        tuple(dp.target_sentences[j] for j in tgt),
    )


def align_document_pair(
    *, document_pair: DocumentPair, keep: Decisions | None = None,
    hand: Sequence[realign.HandBead] | None = None,
) -> list[Bead]:  # fmt: skip
    """(Re)align the pair. A decision already made on the same sentences (``keep``, by default
    the pair's own decided beads) is carried over; beads paired by hand are kept (``hand``, by
    default the pair's own); beads already sent to annotation are never touched, and the
    aligner's bead with their sentences is not proposed again."""
    write_beads(document_pair=document_pair, keep=keep, hand=hand)
    return list(document_pair.beads.all())


BEAD_BATCH = 2000
NEAR_READ_WHOLE = 1000  # beads: near more than this many, pairing by hand reads them all


def write_beads(
    *, document_pair: DocumentPair, keep: Decisions | None = None,
    hand: Sequence[realign.HandBead] | None = None,
) -> int:  # fmt: skip
    """``align_document_pair``'s work without reading the beads back: returns how many beads
    were written, ``BEAD_BATCH`` rows at a time (a 160,000-sentence pair never holds all its
    Bead objects at once)."""
    keep = decisions_by_text(document_pair) if keep is None else keep
    if hand is None:
        made = document_pair.beads.filter(confidence__isnull=True, pair__isnull=True)
        hand = [(list(b.source), list(b.target), b) for b in made]
    placed = realign.with_hand_beads(propose_beads(document_pair), hand)
    written = 0
    with transaction.atomic():
        locked = DocumentPair.objects.select_for_update().defer(
            "source_original", "target_original"
        )
        dp = locked.get(pk=document_pair.pk)  # the uploaded files: not needed, up to 20 MB each
        sent = {(tuple(b.source), tuple(b.target)) for b in dp.beads.filter(pair__isnull=False)}
        Bead.objects.filter(document_pair=dp, pair__isnull=True).delete()
        rows, now = [], timezone.now()
        for position, item in enumerate(placed):
            if (tuple(item[0]), tuple(item[1])) in sent:
                continue
            earlier = keep.get(_texts(dp, item[0], item[1]))
            rows.append(realign.new_bead(dp, position, item, earlier, now))
            if len(rows) == BEAD_BATCH:
                written += len(Bead.objects.bulk_create(rows))
                rows = []
        written += len(Bead.objects.bulk_create(rows))
        sizes = {"source": len(dp.source_sentences), "target": len(dp.target_sentences)}
        held = [(p[0], p[1]) for p in placed] + list(sent)
        counts = realign.uncovered(held, {"source": 0, "target": 0}, sizes)
        dp.unaligned_source, dp.unaligned_target = counts["source"], counts["target"]
        dp.aligned_at = timezone.now()
        dp.save(update_fields=["aligned_at", "unaligned_source", "unaligned_target"])
    return written


def decide(*, bead: Bead, decision: str, user: Any) -> Bead:
    """Accept, reject or reset one bead. A null bead (one side empty) cannot be accepted, and
    a bead already sent to annotation cannot change."""
    if decision not in Bead.Decision.values:
        raise DocumentError(f"unknown decision {decision!r} (accepted, rejected or pending)")
    if bead.pair_id is not None:
        raise DocumentError("this bead was sent to annotation; its decision cannot change")
    if decision == Bead.Decision.ACCEPTED and bead.is_null:
        raise DocumentError("a bead with an empty side cannot be accepted: there is no pair")
    bead.decision = decision
    bead.decided_by = user_or_none(user)
    bead.decided_at = timezone.now()
    bead.save(update_fields=["decision", "decided_by", "decided_at"])
    return bead


def accept_above(*, document_pair: DocumentPair, threshold: float, user: Any) -> int:
    """Accept every pending non-null bead whose confidence is at least ``threshold``; returns
    how many. Decisions already made are left as they are."""
    if not 0.0 <= threshold <= 1.0:
        raise DocumentError(f"threshold {threshold} is outside [0, 1]")
    # one statement, however many beads (a bulk update of 40,000 beads took 22 s)
    beads = document_pair.beads.filter(
        decision=Bead.Decision.PENDING, pair__isnull=True, confidence__gte=threshold
    ).exclude(Q(source=[]) | Q(target=[]))
    return beads.update(
        decision=Bead.Decision.ACCEPTED, decided_by=user_or_none(user), decided_at=timezone.now()
    )


def _edit_sentences(
    *, document_pair: DocumentPair, side: str, edit, touched: Sequence[int] = (), delta: int = 0
) -> DocumentPair:
    """``edit`` the sentences of ``side`` (it changes sentences ``touched`` and the count by
    ``delta``), then realign: a long parallel pair around the edit only (``realign``)."""
    if side not in ("source", "target"):
        raise DocumentError(f"side must be source or target, not {side!r}")
    with transaction.atomic():
        pairs = DocumentPair.objects.select_for_update().defer("source_original", "target_original")
        dp = pairs.get(pk=document_pair.pk)
        if dp.beads.filter(pair__isnull=False).exists():
            raise DocumentError("sentences of a document with pairs sent to annotation are fixed")
        old = {s: list(getattr(dp, f"{s}_sentences")) for s in realign.SIDES}
        sentences, blocks = edit(list(old[side]), list(getattr(dp, f"{side}_blocks")))
        setattr(dp, f"{side}_sentences", sentences)
        setattr(dp, f"{side}_blocks", blocks)
        dp.save(update_fields=[f"{side}_sentences", f"{side}_blocks"])
        window = _local_window(dp, old, side, touched)
        if window is None:
            keep = realign.decided_by_text(dp.beads.all(), old)
            made = (realign.renumbered(b, side, touched, delta)
                    for b in dp.beads.filter(confidence__isnull=True))  # fmt: skip
            align_document_pair(document_pair=dp, keep=keep, hand=[h for h in made if h])
        else:
            realign.realign_window(dp=dp, window=window, side=side, touched=touched,
                                   delta=delta, old=old, propose=propose_parallel)  # fmt: skip
        return dp


def _local_window(dp: DocumentPair, old: dict[str, list[str]], side: str, touched):
    """The window a long parallel pair is realigned in after an edit (old numbering); None:
    realign the pair whole."""
    if dp.kind != DocumentPair.Kind.PARALLEL or not touched:
        return None
    if dp.beads.count() <= realign.LOCAL_ABOVE:
        return None
    sizes = {s: len(old[s]) for s in realign.SIDES}
    return realign.find_window(realign.bead_spans(dp.pk, sizes), sizes, side, touched)


def propose_parallel(src, tgt, src_blocks=None, tgt_blocks=None) -> list:
    """The parallel aligner's beads for these sentences: (source, target, confidence)."""
    from alignment_core.sentalign.align import align_parallel  # worker only: numba

    both = bool(src_blocks and tgt_blocks)  # block boundaries are anchors only given both
    blocks = {"src_blocks": src_blocks, "tgt_blocks": tgt_blocks} if both else {}
    beads = align_parallel(src, tgt, **blocks)
    return [(list(b.src), list(b.tgt), float(b.confidence)) for b in beads]


def merge_sentences(*, document_pair: DocumentPair, side: str, index: int) -> DocumentPair:
    """Merge sentence ``index`` (0-based) of ``side`` with the next one, then realign."""

    def edit(sentences: list[str], blocks: list[int]):
        if not 0 <= index < len(sentences) - 1:
            raise DocumentError(f"no {side} sentences {index} and {index + 1} to merge")
        sentences[index : index + 2] = [f"{sentences[index]} {sentences[index + 1]}"]
        if blocks:
            del blocks[index + 1]
        return sentences, blocks

    return _edit_sentences(
        document_pair=document_pair, side=side, edit=edit, touched=(index, index + 1), delta=-1
    )


def split_sentence(
    *, document_pair: DocumentPair, side: str, index: int, offset: int
) -> DocumentPair:
    """Split sentence ``index`` of ``side`` before character ``offset`` (0-based), then
    realign. Both parts must keep a word."""

    def edit(sentences: list[str], blocks: list[int]):
        if not 0 <= index < len(sentences):
            raise DocumentError(f"no {side} sentence {index}")
        text = sentences[index]
        left, right = text[:offset].strip(), text[offset:].strip()
        if not (0 < offset < len(text)) or not tokenize(left) or not tokenize(right):
            raise DocumentError(
                f"splitting {side} sentence {index} at {offset} leaves a part empty"
            )
        sentences[index : index + 1] = [left, right]
        if blocks:
            blocks.insert(index, blocks[index])
        return sentences, blocks

    return _edit_sentences(
        document_pair=document_pair, side=side, edit=edit, touched=(index,), delta=1
    )


def subcorpus_name(subcorpus: str) -> str:
    name = subcorpus.strip()
    if not name or len(name) > 100:
        raise DocumentError("give a subcorpus name of 1 to 100 characters")
    return name


def start_send_job(*, document_pair: DocumentPair, subcorpus: str, user: Any) -> Any:
    """Send the pair's accepted beads to annotation in a worker (job kind ``document-send``):
    160,000 beads take about half a minute on PostgreSQL, too long for a request. A bad
    subcorpus name is refused here, before any job."""
    params = {"document_pairs": [document_pair.pk], "subcorpus": subcorpus_name(subcorpus)}
    return start_job(kind=SEND_JOB, project=document_pair.project, user=user, params=params)


def send_to_annotation(
    *, document_pairs: Sequence[DocumentPair], subcorpus: str, user: Any, seed: bool = True,
    progress=None,
) -> dict[str, Any]:  # fmt: skip
    """Make a sentence pair of each accepted bead not sent yet, in subcorpus ``subcorpus``,
    after the project's pairs; each pair's metadata names its document pair, sentences and
    bead, and the bead points at it. Then start the project's seed job so the new pairs come
    seeded and ready to assign. Beads with a sentence longer than the project allows are left
    out and counted. ``progress(done, total)``: called after each batch of beads."""
    if not document_pairs:
        return {"pairs": 0, "too_long": 0, "seed_job": None}
    project = document_pairs[0].project
    if any(dp.project_id != project.pk for dp in document_pairs):
        raise DocumentError("all document pairs must belong to one project")
    name = subcorpus_name(subcorpus)
    todo = Bead.objects.filter(document_pair__in=document_pairs, decision=Bead.Decision.ACCEPTED,
                               pair__isnull=True).count() if progress else 0  # fmt: skip
    made, too_long, names = 0, 0, set()
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        sub, _ = Subcorpus.objects.get_or_create(project=project, name=name)
        position = (project.pairs.aggregate(m=Max("position"))["m"] or -1) + 1
        for dp in document_pairs:
            for beads in _accepted_unsent(dp):
                rows, kept = [], []
                for bead in beads:
                    row = _pair_row(bead, project=project, subcorpus=sub, position=position)
                    if row is None:
                        too_long += 1
                        continue
                    rows.append(row)
                    kept.append(bead)
                    position += 1
                ids = _unique_external_ids(project, [r.external_id for r in rows], names)
                rows = [r._replace(external_id=i) for r, i in zip(rows, ids, strict=True)]
                keys = insert_pairs(project.pk, rows)
                _set_beads("pair_id", [b.pk for b in kept], keys)
                made += len(rows)
                if progress:
                    progress(made + too_long, todo)
        job = start_seed_job(project=project, user=user, use_gold=False) if made and seed else None
    return {"pairs": made, "too_long": too_long, "seed_job": job.pk if job else None}


SEND_BATCH = 2000  # beads: one insert of pairs and one update of beads each


def _accepted_unsent(dp: DocumentPair):
    """The pair's accepted beads not sent yet, in document order, ``SEND_BATCH`` at a time;
    ``dp`` is read again with its sentences (not its files)."""
    dp = DocumentPair.objects.defer("source_original", "target_original").get(pk=dp.pk)
    beads = dp.beads.filter(decision=Bead.Decision.ACCEPTED, pair__isnull=True)
    after: tuple[int, int] | None = None
    while True:
        batch = beads if after is None else beads.filter(
            Q(position__gt=after[0]) | Q(position=after[0], pk__gt=after[1])
        )  # fmt: skip
        batch = list(batch.order_by("position", "pk")[:SEND_BATCH])
        if not batch:
            return
        for bead in batch:
            bead.document_pair = dp  # its sentences, read once
        yield batch
        after = (batch[-1].position, batch[-1].pk)


def _set_predicted(beads: Sequence[int], scores: Sequence[float]) -> None:
    for k in range(0, len(beads), BEAD_BATCH):
        _set_beads("predicted", beads[k : k + BEAD_BATCH], scores[k : k + BEAD_BATCH])


def _set_beads(column: str, beads: Sequence[int], values: Sequence[Any]) -> None:
    """Bead ``beads[k]``'s ``column`` set to ``values[k]``, in one statement (an ORM bulk
    update builds a CASE of every row: most of a 40,000-bead send)."""
    if not beads:
        return
    table = connection.ops.quote_name(Bead._meta.db_table)
    rows = ", ".join(["(%s, %s)"] * len(beads))
    sql = (f"UPDATE {table} SET {column} = v.column2 FROM (VALUES {rows}) AS v "
           f"WHERE {table}.id = v.column1")  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(sql, [x for row in zip(beads, values, strict=True) for x in row])


def _unique_external_ids(project: Project, wanted: list[str], made: set[str]) -> list[str]:
    """``wanted`` made unique in the project (`` (2)``, `` (3)``… as ``unique_names``),
    reading only the project's pairs of these names; ``made``: names this send has given."""
    taken = set(project.pairs.filter(external_id__in=wanted).values_list("external_id",
                                                                          flat=True)) | made  # fmt: skip
    out = []
    for name in wanted:
        candidate, k = name, 2
        while candidate in taken or (
            candidate != name and project.pairs.filter(external_id=candidate).exists()
        ):
            candidate, k = f"{name} ({k})", k + 1
        taken.add(candidate)
        made.add(candidate)
        out.append(candidate)
    return out


def _pair_row(bead: Bead, *, project: Project, subcorpus: Subcorpus,
              position: int) -> NewPair | None:  # fmt: skip
    """The sentence pair made of ``bead`` (of a pair read with its sentences), as it will be
    stored; None when a side is empty or longer than the project allows."""
    dp = bead.document_pair
    src_text, tgt_text = _texts(dp, bead.source, bead.target)
    source, target = tokenize(" ".join(src_text)), tokenize(" ".join(tgt_text))
    limit = project.max_tokens
    if not source or not target or len(source) > limit or len(target) > limit:
        return None
    src_ids = "-".join(str(i) for i in bead.source)
    tgt_ids = "-".join(str(j) for j in bead.target)
    return NewPair(
        external_id=f"{dp.name[:150]}:{src_ids}:{tgt_ids}"[:200],
        position=position, source=source, target=target, is_trial=False,
        subcorpus_id=subcorpus.pk,
        metadata={
            "provenance": {
                "document_pair": dp.pk, "document": dp.name,
                "source_file": dp.source_filename, "target_file": dp.target_filename,
                "source_sentences": list(bead.source), "target_sentences": list(bead.target),
                "bead": bead.pk, "confidence": bead.confidence,
            }
        },
    )  # fmt: skip


# The pair classifier learns from the lead once it has this many decisions of each kind.
MIN_DECISIONS_PER_CLASS = 10


def learn_from_decisions(*, project: Project) -> dict[str, Any]:
    """Train the pair classifier on every accept/reject of the project's leads (the bead's
    sentences as the pair), then write its P(accepted) on each pending bead, so the review list
    can put the likeliest first. Nothing is trained before ``MIN_DECISIONS_PER_CLASS`` of each
    kind; nothing trained on outside data is used."""
    rows, pending = [], []
    # one document pair at a time, its sentences read once (never with its uploaded files:
    # joined to each bead, they were read once per bead)
    for dp in project.document_pairs.defer("source_original", "target_original"):
        beads = dp.beads.values_list("pk", "source", "target", "decision", "pair_id")
        for pk, src, tgt, decision, sent in beads.order_by("position", "pk"):
            if not src or not tgt:
                continue
            texts = [" ".join(t) for t in _texts(dp, src, tgt)]
            if decision == Bead.Decision.PENDING and sent is None:
                pending.append((pk, texts))
            elif decision != Bead.Decision.PENDING:
                rows.append((*texts, int(decision == Bead.Decision.ACCEPTED)))
    positives = sum(r[2] for r in rows)
    if min(positives, len(rows) - positives) < MIN_DECISIONS_PER_CLASS:
        return {"trained": False, "decisions": len(rows), "accepted": positives,
                "needed_per_kind": MIN_DECISIONS_PER_CLASS}  # fmt: skip
    from alignment_core.paraphrase.model import train_and_predict  # scikit-learn: when asked

    scores = train_and_predict(rows, [tuple(texts) for _, texts in pending]) if pending else []
    _set_predicted([pk for pk, _ in pending], [round(p, 4) for p, _ in scores])
    return {"trained": True, "decisions": len(rows), "accepted": positives,
            "predicted": len(pending)}  # fmt: skip


def pair_by_hand(
    *, document_pair: DocumentPair, source: Sequence[int], target: Sequence[int], user: Any
) -> Bead:
    """A bead the lead makes (re-pairing sentences the aligner paired otherwise or left
    unpaired): accepted, with no confidence. Pending beads that share a sentence with it are
    rejected; a sentence already in an accepted or sent bead cannot be paired again."""
    dp = document_pair
    src, tgt = sorted(set(source)), sorted(set(target))
    if not src or not tgt:
        raise DocumentError("a pair needs at least one source and one target sentence")
    if src[0] < 0 or src[-1] >= len(dp.source_sentences):
        raise DocumentError(f"source sentences are numbered 0 to {len(dp.source_sentences) - 1}")
    if tgt[0] < 0 or tgt[-1] >= len(dp.target_sentences):
        raise DocumentError(f"target sentences are numbered 0 to {len(dp.target_sentences) - 1}")
    with transaction.atomic():
        # one change of the pair's beads at a time; only the beads near these sentences read
        locked = DocumentPair.objects.select_for_update().only("unaligned_source",
                                                               "unaligned_target").get(pk=dp.pk)  # fmt: skip
        sizes = {"source": len(dp.source_sentences), "target": len(dp.target_sentences)}
        spans = realign.bead_spans(dp.pk, sizes)
        near = ((spans[:, 2] <= src[-1]) & (spans[:, 3] >= src[0])) | (
            (spans[:, 4] <= tgt[-1]) & (spans[:, 5] >= tgt[0])
        )
        ids = [int(i) for i in spans[near, 0]]
        beads = dp.beads.all() if len(ids) > NEAR_READ_WHOLE else Bead.objects.filter(pk__in=ids)
        overlapping = [b for b in beads if set(b.source) & set(src) or set(b.target) & set(tgt)]
        fixed = [b for b in overlapping if b.pair_id or b.decision == Bead.Decision.ACCEPTED]
        if fixed:
            raise DocumentError(
                f"bead {fixed[0].position + 1} already pairs some of these sentences and is "
                "accepted or sent: reject it first"
            )
        now = timezone.now()
        for b in overlapping:
            b.decision, b.decided_by, b.decided_at = Bead.Decision.REJECTED, user_or_none(user), now
        Bead.objects.bulk_update(overlapping, ["decision", "decided_by", "decided_at"])
        position = min([b.position for b in overlapping] or [len(spans)])
        paired = [(b.source, b.target) for b in overlapping]
        start = {"source": src[0], "target": tgt[0]}
        end = {"source": src[-1] + 1, "target": tgt[-1] + 1}
        before = realign.uncovered(paired, start, end)
        after = realign.uncovered([*paired, (src, tgt)], start, end)
        locked.save(update_fields=realign.keep_unaligned(locked, before, after))
        return Bead.objects.create(
            document_pair=dp, position=position, source=src, target=tgt, confidence=None,
            decision=Bead.Decision.ACCEPTED, decided_by=user_or_none(user), decided_at=now,
        )  # fmt: skip
