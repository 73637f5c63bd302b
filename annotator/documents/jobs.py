"""The documents feature's job kinds, registered at start-up (``AnnotatorConfig.ready``).

``document-send`` sends a pair's accepted beads to annotation as sentence pairs, and
``document-learn`` trains the pair classifier on the project's decisions and scores the
pending beads (``services.learn_from_decisions``), in a worker: too long for a request on a
long document pair.

``document-align`` aligns the document pairs of its params. One pair is aligned in the job's
own task; several are spread over a Celery group, one task per pair
(``annotator.jobs.parts``), so a zip of 1,000 pairs uses every worker process. Each task reads
its pair's stored files first when the pair waits (``uploads.read_stored``: a zip member is
read only then); a pair that cannot be read fails only its own part, and the job's result
names it with the reason. Progress is the share of pairs done.
"""

from __future__ import annotations

from typing import Any

from annotator.documents import services, uploads
from annotator.documents.reading import DocumentError
from annotator.jobs.parts import Parts, register_parts, start_parts
from annotator.jobs.registry import JobKind, register
from annotator.models import DocumentPair, JobPart

# The job's result lists at most this many pairs that failed (with their reasons).
FAILED_LISTED = 50


def align_one(document_pair: DocumentPair) -> int:
    """Read the pair if it waits, then align it; returns how many beads were written. A pair
    that could not be read raises ``DocumentError`` with the reason naming its file."""
    dp = document_pair
    if dp.state == DocumentPair.State.WAITING:
        dp = uploads.read_stored(dp)
        # saved; aligning reads only the sentences, and two 20 MB originals held in this
        # process meanwhile would count towards its peak
        dp.source_original = dp.target_original = ""
    elif dp.state == DocumentPair.State.FAILED:
        raise DocumentError(dp.error or f"{dp.name}: could not be read")
    return services.write_beads(document_pair=dp)


def align_work(job: Any, reporter: Any) -> dict[str, Any] | None:
    """The align job's work: one pair here; several as parallel parts (returns at once)."""
    ids = list(job.params.get("document_pairs") or [])
    pairs = list(
        DocumentPair.objects.filter(project=job.project, pk__in=ids)
        .order_by("pk")
        .values_list("pk", "name")
    )
    if len(pairs) > 1:
        start_parts(job=job, keys=[str(pk) for pk, _ in pairs], reporter=reporter)
        return None
    beads = 0
    for pk, name in pairs:
        reporter.progress(0, f"Aligning {name}")
        beads += align_one(DocumentPair.objects.get(pk=pk))
    reporter.progress(100, "Aligned")
    return {"document_pairs": len(pairs), "aligned": len(pairs), "beads": beads, "failed": []}


def align_part(job: Any, key: str) -> dict[str, Any]:
    """One pair of a spread align job."""
    dp = DocumentPair.objects.get(project=job.project, pk=int(key))
    return {"name": dp.name, "beads": align_one(dp)}


def finish(job: Any, parts: list[JobPart]) -> dict[str, Any]:
    """The job's result: pairs aligned, beads written, and the pairs that failed by name."""
    done = [p for p in parts if p.status == JobPart.Status.SUCCEEDED]
    failed = [p for p in parts if p.status == JobPart.Status.FAILED]
    names = dict(
        DocumentPair.objects.filter(pk__in=[int(p.key) for p in failed]).values_list("pk", "name")
    )
    return {
        "document_pairs": len(parts),
        "aligned": len(done),
        "beads": sum((p.result or {}).get("beads", 0) for p in done),
        "failed": [
            {"document_pair": names.get(int(p.key), p.key), "error": _reason(p.error)}
            for p in failed[:FAILED_LISTED]
        ],
        "failed_count": len(failed),
    }


def _reason(error: str) -> str:
    """The first line of a part's error, without the exception's type."""
    first = (error or "").split("\n", 1)[0]
    return first.split(": ", 1)[1] if first.startswith("DocumentError: ") else first


def _message(done: int, total: int, failed: int) -> str:
    tail = f"; {failed} could not be aligned" if failed else ""
    return f"Aligned {done - failed} of {total} document pairs{tail}"


def _summary(result):
    if not result:
        return None
    text = f"{result.get('beads', 0)} beads in {result.get('document_pairs', 0)} document pairs"
    failed = result.get("failed") or []
    if failed:
        count = result.get("failed_count", len(failed))
        first = failed[0]
        text += f"; {count} failed, e.g. {first['document_pair']}: {first['error']}"
    return text


def learn_work(job: Any, reporter: Any) -> dict[str, Any]:
    """The learn job's work: train on the project's decisions, score its pending beads."""
    reporter.progress(0, "Learning from the decisions")
    result = services.learn_from_decisions(project=job.project)
    reporter.progress(100, _learnt(result))
    return result


def _learnt(result: dict[str, Any] | None) -> str | None:
    if not result:
        return None
    if not result.get("trained"):
        need = result.get("needed_per_kind", services.MIN_DECISIONS_PER_CLASS)
        return (f"Needs {need} accepted and {need} rejected beads; has "
                f"{result['accepted']} and {result['decisions'] - result['accepted']}")  # fmt: skip
    scored = result["predicted"]
    return (f"Learnt from {result['decisions']} decisions; {scored} pending "
            f"bead{'' if scored == 1 else 's'} scored")  # fmt: skip


def send_work(job: Any, reporter: Any) -> dict[str, Any]:
    """The send job's work: the accepted beads of its document pairs become sentence pairs of
    its subcorpus (all or nothing), with progress by the batch."""
    ids = list(job.params.get("document_pairs") or [])
    pairs = list(DocumentPair.objects.filter(project=job.project, pk__in=ids).order_by("pk"))
    reporter.progress(0, "Sending the accepted beads to annotation")

    def sent(done: int, total: int) -> None:
        reporter.progress(min(99, 100 * done // max(total, 1)), f"{done} of {total} beads sent")

    result = services.send_to_annotation(document_pairs=pairs, subcorpus=job.params["subcorpus"],
                                         user=job.created_by, progress=sent)  # fmt: skip
    reporter.progress(100, _sent(result))
    return result


def _sent(result: dict[str, Any] | None) -> str | None:
    if not result:
        return None
    tail = f" ({result['too_long']} too long, left out)" if result.get("too_long") else ""
    pairs = result["pairs"]
    return f"{pairs} pair{'' if pairs == 1 else 's'} sent to annotation{tail}"


def register_job_kinds() -> None:
    register(JobKind(services.ALIGN_JOB, align_work, summary=_summary))
    register(JobKind(services.LEARN_JOB, learn_work, summary=_learnt,
                     one_at_a_time_per_project=True))  # fmt: skip
    register(JobKind(services.SEND_JOB, send_work, summary=_sent, record_success_with_work=True))
    register_parts(services.ALIGN_JOB, Parts(run=align_part, finish=finish, message=_message))
