"""The documents API (leads only): upload document pairs, read a pair's review state, decide
beads, merge and split sentences, realign, and send accepted beads to annotation.

    POST /api/projects/{id}/documents/         upload (multipart) → 202 with the align job
    GET  /api/projects/{id}/documents/         the project's document pairs with counts
    GET  /api/document-pairs/{id}/             sentences, beads, unaligned sentences
    POST /api/document-pairs/{id}/decide/      {"bead": 7, "decision": "accepted"}
    POST /api/document-pairs/{id}/accept-above/ {"threshold": 0.8}
    POST /api/document-pairs/{id}/merge/       {"side": "source", "index": 3}
    POST /api/document-pairs/{id}/split/       {"side": "source", "index": 3, "offset": 17}
    POST /api/document-pairs/{id}/align/       realign (a job)
    POST /api/document-pairs/{id}/learn/       learn from the decisions (a job)
    POST /api/document-pairs/{id}/send/        {"subcorpus": "news"} (a job)
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponseBase, StreamingHttpResponse
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
    inline_serializer,
)
from rest_framework import generics, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.common import access
from annotator.common.errors import BadInput
from annotator.common.permissions import IsProjectLead, project_for_request
from annotator.common.schema import ERRORS, ID_LOOKUP
from annotator.common.upload_fields import ChoiceField, refuse_large
from annotator.documents import selectors, services, uploads
from annotator.documents.reading import SPLIT_MODES, DocumentError
from annotator.jobs.api import JOB_EXAMPLE, JobSerializer, job_accepted
from annotator.models import Bead, DocumentPair

SIDES = ("source", "target")


def _queued(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """An example of a job of ``kind`` just started."""
    return {**JOB_EXAMPLE, "kind": kind, "status": "queued", "finished": False, "progress": 0,
            "message": "Waiting for a worker", "reason": None, "error": None, "params": params}  # fmt: skip


ALIGN_JOB_EXAMPLE = _queued("document-align", {"document_pairs": [4]})
STATE_EXAMPLE = {
    "id": 4, "project": 1, "name": "hut", "kind": "parallel",
    "source_language": "de", "target_language": "fr",
    "source_filename": "hut.de.html", "target_filename": "hut.fr.html",
    "source_sentences": ["Die Hütte", "Sie liegt auf 2850 Metern."],
    "target_sentences": ["La cabane", "Elle se trouve à 2850 mètres."],
    "aligned": True,
    "beads": [
        {"id": 11, "position": 0, "source": [0], "target": [0], "source_text": "Die Hütte",
         "target_text": "La cabane", "confidence": 0.97, "decision": "accepted", "pair": None,
         "null": False},
        {"id": 12, "position": 1, "source": [1], "target": [1],
         "source_text": "Sie liegt auf 2850 Metern.", "target_text": "Elle se trouve à 2850 mètres.",
         "confidence": 0.91, "decision": "pending", "pair": None, "null": False},
    ],
    "unaligned_source": [], "unaligned_target": [],
    "counts": {"pending": 1, "accepted": 1, "rejected": 0, "sent": 0},
}  # fmt: skip


def _request(value: dict[str, Any]) -> list[OpenApiExample]:
    return [OpenApiExample("Request", value=value, request_only=True)]


STATE_ANSWER = OpenApiExample("Review state", value=STATE_EXAMPLE, response_only=True)
BEAD_ANSWER = OpenApiExample("The bead and the counts (?answer=bead)", response_only=True, value={
    "bead": {"id": 12, "position": 1, "source": [1], "target": [1], "confidence": 0.91,
             "predicted": None, "decision": "accepted", "pair": None, "null": False},
    "counts": {"pending": 0, "accepted": 2, "rejected": 0, "sent": 0},
})  # fmt: skip


class UploadRequest(serializers.Serializer):
    source = serializers.FileField(required=False, help_text="the source document (text/HTML)")
    target = serializers.FileField(required=False, help_text="the target document")
    archive = serializers.FileField(
        required=False, help_text="a zip of many pairs: x.de / x.fr, or x.src.html / x.tgt.html"
    )
    source_language = serializers.RegexField(r"^[a-z]{2,3}$", help_text="ISO 639-1, e.g. de")
    target_language = serializers.RegexField(r"^[a-z]{2,3}$", help_text="ISO 639-1, e.g. fr")
    kind = ChoiceField(choices=DocumentPair.Kind.values, default=DocumentPair.Kind.PARALLEL)
    split = ChoiceField(choices=SPLIT_MODES, default="auto")
    name = serializers.CharField(required=False, max_length=150, allow_blank=True)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if not data.get("archive") and not (data.get("source") and data.get("target")):
            raise serializers.ValidationError("give source and target files, or an archive")
        return data


def _job_data(request: Any, job: Any) -> dict[str, Any]:
    context = {"request": request, "roles": access.roles_by_project(user=request.user)}
    return JobSerializer(job, context=context).data


class ProjectDocumentsView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        operation_id="projects_documents_list",
        summary="The project's document pairs (leads)",
        responses={200: inline_serializer("DocumentPairSummary", fields={
            "id": serializers.IntegerField(), "name": serializers.CharField(),
            "kind": serializers.CharField(),
            "state": serializers.ChoiceField(choices=DocumentPair.State.values,
                help_text="waiting: a big upload not read yet; failed: see error"),
            "error": serializers.CharField(help_text="why the pair could not be read"),
            "beads": serializers.IntegerField(),
            "accepted": serializers.IntegerField(), "sent": serializers.IntegerField(),
        }, many=True), **ERRORS},
        examples=[OpenApiExample("Document pairs", response_only=True, value=
            {"id": 4, "name": "hut", "kind": "parallel", "state": "ready", "error": "",
             "beads": 5, "accepted": 4, "sent": 4})],
    )  # fmt: skip
    def get(self, request, project_id: int):
        project = project_for_request(request=request, project_id=project_id, lead=True)
        rows = [
            {"id": dp.pk, "name": dp.name, "kind": dp.kind, "state": dp.state,
             "error": dp.error, "beads": dp.bead_count, "accepted": dp.accepted_count,
             "sent": dp.sent_count}
            for dp in selectors.document_pairs_of(project=project)
        ]  # fmt: skip
        return Response(rows)

    @extend_schema(
        operation_id="projects_documents_create",
        summary="Upload a document pair, or a zip of them, and align them as a job (leads)",
        description="All or nothing: a file that cannot be read is a 400 naming it and the "
        "reason, and nothing is stored. Answers 202 with the pairs made and the align job.",
        request={"multipart/form-data": UploadRequest},
        responses={202: inline_serializer("DocumentUpload", fields={
            "document_pairs": serializers.ListField(child=serializers.IntegerField()),
            "job": JobSerializer(),
        }), 413: ERRORS[400], **ERRORS},
        examples=[
            OpenApiExample("Upload", request_only=True, media_type="multipart/form-data",
                           value={"source": "hut.de.html", "target": "hut.fr.html",
                                  "source_language": "de", "target_language": "fr"}),
            OpenApiExample("Queued", response_only=True, status_codes=["202"],
                           value={"document_pairs": [4], "job": ALIGN_JOB_EXAMPLE}),
        ],
    )  # fmt: skip
    def post(self, request, project_id: int):
        project = project_for_request(request=request, project_id=project_id, lead=True)
        form = UploadRequest(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        refuse_large({k: data[k] for k in ("source", "target", "archive") if data.get(k)})
        try:  # big files and zips are stored here and read by the align job (uploads)
            pairs = uploads.accept_upload(
                project=project, user=request.user, kind=data["kind"], split=data["split"],
                name=data.get("name") or "", source_language=data["source_language"],
                target_language=data["target_language"], source=data.get("source"),
                target=data.get("target"), archive=data.get("archive"),
            )  # fmt: skip
        except DocumentError as exc:
            raise BadInput(str(exc)) from None
        job = services.start_align_job(project=project, user=request.user, document_pairs=pairs)
        return Response(
            {"document_pairs": [dp.pk for dp in pairs], "job": _job_data(request, job)},
            status=status.HTTP_202_ACCEPTED,
        )  # fmt: skip


class DecideRequest(serializers.Serializer):
    bead = serializers.IntegerField(min_value=1, max_value=2**62)
    decision = ChoiceField(choices=Bead.Decision.values)


class ThresholdRequest(serializers.Serializer):
    threshold = serializers.FloatField(min_value=0.0, max_value=1.0)


class MergeRequest(serializers.Serializer):
    side = ChoiceField(choices=SIDES)
    index = serializers.IntegerField(min_value=0, max_value=10**7)


class SplitRequest(MergeRequest):
    offset = serializers.IntegerField(min_value=1, max_value=10**7)


class PairRequest(serializers.Serializer):
    source = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=10**7), min_length=1, max_length=8
    )
    target = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=10**7), min_length=1, max_length=8
    )


class SendRequest(serializers.Serializer):
    subcorpus = serializers.CharField(max_length=100)


BeadAnswer = inline_serializer("DocumentDecision", fields={
    "bead": serializers.DictField(help_text="the bead as the review state lists it, without "
                                  "source_text and target_text"),
    "counts": serializers.DictField(child=serializers.IntegerField()),
})  # fmt: skip
DECISION_ANSWER = OpenApiParameter(
    "answer", str, enum=["state", "bead"], required=False,
    description="state (the default): the whole review state; bead: only the bead decided and "
    "the counts, for a client that keeps the state (a long document pair's review)",
)  # fmt: skip

ReviewState = inline_serializer("DocumentReview", fields={
    "id": serializers.IntegerField(), "name": serializers.CharField(),
    "kind": serializers.CharField(),
    "source_sentences": serializers.ListField(child=serializers.CharField()),
    "target_sentences": serializers.ListField(child=serializers.CharField()),
    "beads": serializers.ListField(child=serializers.DictField()),
    "unaligned_source": serializers.ListField(child=serializers.IntegerField()),
    "unaligned_target": serializers.ListField(child=serializers.IntegerField()),
    "counts": serializers.DictField(child=serializers.IntegerField()),
})  # fmt: skip


def _whole_number(params: Any, name: str, low: int, high: int) -> int | None:
    raw = params.get(name)
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise BadInput(f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return value


MAX_PAGE = 1000

ReviewPage = inline_serializer("DocumentReviewPage", fields={
    "id": serializers.IntegerField(), "name": serializers.CharField(),
    "kind": serializers.CharField(), "order": serializers.CharField(),
    "beads": serializers.ListField(child=serializers.DictField(),
                                   help_text="the page's beads, as the whole state lists them"),
    "sentences": serializers.DictField(help_text="side → sentence index → text, for every "
                                       "sentence the page's beads hold"),
    "sentence_counts": serializers.DictField(child=serializers.IntegerField()),
    "unaligned_counts": serializers.DictField(child=serializers.IntegerField(),
                                              help_text="sentences no non-null bead covers"),
    "counts": serializers.DictField(child=serializers.IntegerField()),
    "page": serializers.DictField(child=serializers.IntegerField(),
                                  help_text="offset, limit, total (beads)"),
})  # fmt: skip
STATE_OR_PAGE = PolymorphicProxySerializer(
    component_name="DocumentReviewAnswer", serializers=[ReviewState, ReviewPage],
    resource_type_field_name=None,
)  # fmt: skip
PAGE_PARAMETERS = [
    OpenApiParameter("limit", int, required=False, description="answer one page of this many "
                     f"beads (1 to {MAX_PAGE}) instead of the whole state: its size follows "
                     "the page, not the documents"),
    OpenApiParameter("offset", int, required=False, description="the page's first bead "
                     "(0-based; past the end: the last page)"),
]  # fmt: skip
PAGE_ANSWER = OpenApiExample("One page (?offset=0&limit=1)", response_only=True, value={
    "id": 4, "project": 1, "name": "hut", "kind": "parallel", "source_language": "de",
    "target_language": "fr", "source_filename": "hut.de.html", "target_filename": "hut.fr.html",
    "aligned": True, "order": "document", "beads": STATE_EXAMPLE["beads"][:1],
    "sentences": {"source": {"0": "Die Hütte"}, "target": {"0": "La cabane"}},
    "sentence_counts": {"source": 2, "target": 2}, "unaligned_counts": {"source": 0, "target": 0},
    "counts": STATE_EXAMPLE["counts"], "page": {"offset": 0, "limit": 1, "total": 2},
})  # fmt: skip


def _page_params(request: Any) -> tuple[int, int] | None:
    """``(offset, limit)`` when the request asks for one page of the state, else None; a bad
    value is a 400 (checked before an action does anything)."""
    params = request.query_params
    limit = _whole_number(params, "limit", 1, MAX_PAGE)
    offset = _whole_number(params, "offset", 0, 2**31 - 1)
    if limit is None:
        if offset is not None:
            raise BadInput("offset needs limit: give both, or neither for the whole state")
        return None
    return offset or 0, limit


# A whole state of more beads than this is written as it is read (``stream_review_state``):
# 67 MB of JSON at 160,000 sentences a side took the web process to 737 MB built whole.
STREAM_ABOVE = 5000


def _state(dp: DocumentPair, request: Any, page: tuple[int, int] | None) -> HttpResponseBase:
    """The review state, whole; or one page of it (``page``: offset, limit). ``dp`` is read
    without its documents and sentences (``get_object_light``)."""
    order = request.query_params.get("order", "")
    if page is None:
        if dp.beads.count() > STREAM_ABOVE:
            pieces = selectors.stream_review_state(document_pair=dp, order=order)
            return StreamingHttpResponse(pieces, content_type="application/json")
        return Response(selectors.review_state(document_pair=dp, order=order))
    offset, limit = page
    return Response(
        selectors.review_page(document_pair=dp, order=order, offset=offset, limit=limit)
    )


def _apply(dp: DocumentPair, request: Any, form_class, work) -> Any:
    """``work(dp, the request's validated data)``; a refused request or a ``DocumentError`` is
    a 400 naming it."""
    form = form_class(data=request.data)
    form.is_valid(raise_exception=True)
    try:
        return work(dp, form.validated_data)
    except DocumentError as exc:
        raise BadInput(str(exc)) from None


class DocumentPairViewSet(viewsets.GenericViewSet):
    """A document pair's review (leads of its project; annotators and outsiders get 404)."""

    permission_classes = [IsAuthenticated & IsProjectLead]
    lookup_value_regex = ID_LOOKUP
    serializer_class = DecideRequest  # each action names its own request in the schema

    def get_queryset(self):
        # the uploaded files (up to 20 MB each) are read only by what needs them
        pairs = selectors.reviewable_document_pairs(user=self.request.user)
        return pairs.defer("source_original", "target_original")

    def _run(self, request, form_class, work, light: bool = False):
        """``work`` done on the pair (``light``: it needs nothing of the documents), answered
        with the new state, whole or the page asked for."""
        page = _page_params(request)
        dp = self.get_object_light() if light else self.get_object()
        _apply(dp, request, form_class, work)
        return _state(self.get_object_light(), request, page)

    @extend_schema(
        summary="A document pair's sentences and beads",
        parameters=[
            OpenApiParameter(
                "order",
                str,
                enum=list(selectors.ORDERS),
                required=False,
                description="document order, or likeliest first",
            ),
            *PAGE_PARAMETERS,
        ],
        responses={200: STATE_OR_PAGE, **ERRORS},
        examples=[STATE_ANSWER, PAGE_ANSWER],
    )
    def retrieve(self, request, pk=None):
        return _state(self.get_object_light(), request, _page_params(request))

    @extend_schema(summary="Accept, reject or reset one bead", request=DecideRequest,
                   parameters=[DECISION_ANSWER],
                   responses={200: PolymorphicProxySerializer(
                       component_name="DocumentDecideAnswer", serializers=[ReviewState, BeadAnswer],
                       resource_type_field_name=None), **ERRORS},
                   examples=[*_request({"bead": 12, "decision": "accepted"}), STATE_ANSWER,
                             BEAD_ANSWER])  # fmt: skip
    @action(detail=True, methods=["post"])
    def decide(self, request, pk=None):
        answer = request.query_params.get("answer", "state")
        if answer not in ("state", "bead"):
            raise BadInput(f"answer must be state or bead, not {answer!r}")

        def work(dp, data):
            bead = dp.beads.filter(pk=data["bead"]).first()
            if bead is None:
                raise DocumentError(f"bead {data['bead']} is not a bead of this document pair")
            return services.decide(bead=bead, decision=data["decision"], user=request.user)

        if answer == "state":
            return self._run(request, DecideRequest, work)
        # the bead and the counts only: one key press of a long document's review reads no
        # sentence and answers a few hundred bytes, however long the documents
        dp = self.get_object_light()
        bead = _apply(dp, request, DecideRequest, work)
        counts = selectors.bead_counts(document_pair=dp)
        return Response({"bead": selectors.bead_brief(bead), "counts": counts})

    def get_object_light(self) -> DocumentPair:
        """The pair as ``get_object`` finds it (and refuses it), without its documents or
        sentences."""
        dp = generics.get_object_or_404(
            self.get_queryset().defer(*selectors.HEAVY_FIELDS), pk=self.kwargs["pk"]
        )
        self.check_object_permissions(self.request, dp)
        return dp

    @extend_schema(summary="Accept every pending bead at or above a confidence",
                   request=ThresholdRequest, parameters=PAGE_PARAMETERS,
                   responses={200: STATE_OR_PAGE, **ERRORS},
                   examples=[*_request({"threshold": 0.8}), STATE_ANSWER])  # fmt: skip
    @action(detail=True, methods=["post"], url_path="accept-above")
    def accept_above(self, request, pk=None):
        return self._run(request, ThresholdRequest, lambda dp, d: services.accept_above(
            document_pair=dp, threshold=d["threshold"], user=request.user), light=True)  # fmt: skip

    @extend_schema(summary="Merge a sentence with the next one, then realign",
                   request=MergeRequest, parameters=PAGE_PARAMETERS,
                   responses={200: STATE_OR_PAGE, **ERRORS},
                   examples=[*_request({"side": "source", "index": 0}), STATE_ANSWER])  # fmt: skip
    @action(detail=True, methods=["post"])
    def merge(self, request, pk=None):
        return self._run(request, MergeRequest, lambda dp, d: services.merge_sentences(
            document_pair=dp, side=d["side"], index=d["index"]), light=True)  # fmt: skip

    @extend_schema(summary="Split a sentence at a character offset, then realign",
                   request=SplitRequest, parameters=PAGE_PARAMETERS,
                   responses={200: STATE_OR_PAGE, **ERRORS},
                   examples=[*_request({"side": "source", "index": 1, "offset": 4}), STATE_ANSWER])  # fmt: skip
    @action(detail=True, methods=["post"])
    def split(self, request, pk=None):
        return self._run(request, SplitRequest, lambda dp, d: services.split_sentence(
            document_pair=dp, side=d["side"], index=d["index"], offset=d["offset"]), light=True)  # fmt: skip

    @extend_schema(summary="Pair sentences by hand (an accepted bead; overlapping pending beads "
                   "are rejected)", request=PairRequest,
                   parameters=PAGE_PARAMETERS, responses={200: STATE_OR_PAGE, **ERRORS},
                   examples=[*_request({"source": [1], "target": [1]}), STATE_ANSWER])  # fmt: skip
    @action(detail=True, methods=["post"])
    def pair(self, request, pk=None):
        return self._run(request, PairRequest, lambda dp, d: services.pair_by_hand(
            document_pair=dp, source=d["source"], target=d["target"], user=request.user))  # fmt: skip

    @extend_schema(summary="Realign the document pair (a job; decisions are kept)", request=None,
                   responses={202: JobSerializer, **ERRORS},
                   examples=[OpenApiExample("Queued", value=ALIGN_JOB_EXAMPLE, response_only=True,
                                            status_codes=["202"])])  # fmt: skip
    @action(detail=True, methods=["post"])
    def align(self, request, pk=None):
        dp = self.get_object_light()  # the job reads the documents, not this request
        job = services.start_align_job(project=dp.project, user=request.user, document_pairs=[dp])
        return job_accepted(request, job)

    @extend_schema(
        summary="Learn from the leads' decisions and score the pending beads (a job)",
        description="Starts a job that trains the pair classifier on every accept/reject in the "
        "project (at least 10 of each), then stores its P(accepted) on each pending bead; "
        "`?order=likeliest` lists them highest first. The job's `result`: `trained`, "
        "`decisions`, `accepted`, and `predicted` (or `needed_per_kind` when it could not "
        "train). One at a time per project: starting it again while it runs answers that job.",
        request=None,
        responses={202: JobSerializer, **ERRORS},
        examples=[OpenApiExample("Queued", response_only=True, status_codes=["202"],
                                 value=_queued("document-learn", {}))],
    )  # fmt: skip
    @action(detail=True, methods=["post"])
    def learn(self, request, pk=None):
        dp = self.get_object_light()
        job = services.start_learn_job(project=dp.project, user=request.user)
        return job_accepted(request, job)

    @extend_schema(
        summary="Send the accepted beads to annotation as pairs of a subcorpus (a job)",
        description="Starts a job that makes a sentence pair of each accepted bead not sent "
        "yet (all or nothing), then the project's seed job. Its `result`: `pairs`, `too_long` "
        "(beads left out, a sentence longer than the project allows) and `seed_job`. A bad "
        "subcorpus name is a 400 and starts nothing.",
        request=SendRequest, responses={202: JobSerializer, **ERRORS},
        examples=[*_request({"subcorpus": "huts"}), OpenApiExample(
            "Queued", response_only=True, status_codes=["202"],
            value=_queued("document-send", {"document_pairs": [4], "subcorpus": "huts"}))],
    )  # fmt: skip
    @action(detail=True, methods=["post"])
    def send(self, request, pk=None):
        dp = self.get_object_light()
        form = SendRequest(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            job = services.start_send_job(
                document_pair=dp, subcorpus=form.validated_data["subcorpus"], user=request.user
            )
        except DocumentError as exc:
            raise BadInput(str(exc)) from None
        return job_accepted(request, job)
