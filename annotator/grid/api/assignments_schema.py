"""Examples for the grid's ``/api/assignments/`` endpoints in the OpenAPI schema.

The viewset is the grid's (``annotator.grid.api.assignments``); this extension only adds examples
(and the error answers every endpoint may give) to its schema, without touching its code:
drf-spectacular uses the replacement class for the schema alone, never to serve requests.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiViewExtension
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.decorators import action

from annotator.common.schema import READ_ERRORS, ErrorSerializer

STATE = {"version": 3, "links": [[0, 0, "S"], [1, 2, "P"]], "updated_at": "2026-11-23T09:05:00Z"}
PAIR = {"id": 14, "external_id": "news-3", "subcorpus": "news", "is_trial": False}
ROW = {
    "id": 40,
    "project": 1,
    "status": "in_progress",
    "flag": None,
    "pair": PAIR,
    "started_at": "2026-11-23T09:00:00Z",
    "submitted_at": None,
    "last_activity_at": "2026-11-23T09:05:00Z",
    "page": "/annotate/40/",
}
DETAIL = {
    "id": 40,
    "project": 1,
    "status": "in_progress",
    "flag": None,
    "pair": {**PAIR, "source": ["the", "talks", "ended"], "target": ["negotiations", "ended"]},
    "seed": {"links": [[0, 0, "P"], [2, 1, "S"]], "aligner_run": 5},
    "posteriors": {"rows": 3, "cols": 2, "scale": 255, "data": "AAD/AAAA/w=="},
    "annotation": STATE,
    "queue": {"position": 4, "total": 12, "submitted": 3, "next": 41, "previous": 39},
    "feedback": None,
    "urls": {
        "annotation": "/api/assignments/40/annotation/",
        "submit": "/api/assignments/40/submit/",
        "flag": "/api/assignments/40/flag/",
        "page": "/annotate/40/",
        "queue": "/projects/1/queue/",
        "guidelines": "/projects/1/guidelines/",
        "next_page": "/annotate/41/",
        "previous_page": "/annotate/39/",
    },
}
EDIT = {"version": 3, "links": [[0, 0, "S"], [1, 2, "P"], [2, 1, "S"]]}
SAVED = {**STATE, "version": 4, "links": EDIT["links"], "status": "in_progress"}
STALE = dict(
    description="stale: the annotation was saved elsewhere since `version`; nothing written",
    examples=[
        OpenApiExample(
            "Stale",
            value={
                "error": "This pair was saved elsewhere (version 4) since the version 3 your "
                "edit is based on.",
                "current": {**STATE, "version": 4},
            },
            response_only=True,
        )
    ],
)
BAD_LINKS = dict(
    description="a link outside the grid or malformed; nothing written",
    examples=[
        OpenApiExample(
            "Out of range",
            value={
                "error": "The links do not fit this pair: link 0-9: target index 9 out of range "
                "(sentence has 2 tokens)",
                "links": ["link 0-9: target index 9 out of range (sentence has 2 tokens)"],
            },
            response_only=True,
        )
    ],
)
SUBMITTED = OpenApiResponse(
    ErrorSerializer,
    description="already submitted: saves are refused",
    examples=[
        OpenApiExample(
            "Submitted",
            value={"error": "This pair was submitted; a lead can reopen it."},
            response_only=True,
        )
    ],
)
FLAG_ANSWER = {"flag": {"reason": "unsure", "note": "'bank' is ambiguous"}}


def _ok(name: str, value) -> list[OpenApiExample]:
    return [OpenApiExample(name, value=value, response_only=True)]


class AssignmentExamples(OpenApiViewExtension):
    target_class = "annotator.grid.api.assignments.AssignmentViewSet"

    def view_replacement(self):
        from annotator.grid.api.assignments import (
            AnnotationInputSerializer,
            AnnotationStateSerializer,
            AssignmentDetailSerializer,
            AssignmentListSerializer,
            ConflictSerializer,
            FlagResultSerializer,
            FlagSerializer,
            LinksErrorSerializer,
            SaveResultSerializer,
            SubmitResultSerializer,
        )

        stale = OpenApiResponse(ConflictSerializer, **STALE)
        bad_links = OpenApiResponse(LinksErrorSerializer, **BAD_LINKS)
        refusals = {400: bad_links, 403: SUBMITTED, 409: stale}  # a save's, and a submit's

        def answers(ok, more=None):
            return {200: ok, **(more or {}), **READ_ERRORS}

        class Documented(self.target_class):
            @extend_schema(
                summary="My assignments: my queue, in queue order (?project=, ?status=)",
                responses=answers(AssignmentListSerializer(many=True)),
                examples=_ok("My queue", ROW),
            )
            def list(self, request, *args, **kwargs):
                return super().list(request, *args, **kwargs)  # pragma: no cover

            @extend_schema(
                summary="One of my assignments: the pair, its seed and posteriors, my annotation",
                responses=answers(AssignmentDetailSerializer),
                examples=_ok("Assignment", DETAIL),
            )
            def retrieve(self, request, *args, **kwargs):
                return super().retrieve(request, *args, **kwargs)  # pragma: no cover

            @extend_schema(
                methods=["GET"],
                summary="My annotation of the pair and its version",
                request=None,
                responses=answers(AnnotationStateSerializer),
                examples=_ok("Annotation", STATE),
            )
            @extend_schema(
                methods=["PUT"],
                summary="Save my annotation (autosave); 409 when `version` is stale",
                request=AnnotationInputSerializer,
                responses=answers(SaveResultSerializer, refusals),
                examples=[
                    OpenApiExample("Edit", value=EDIT, request_only=True),
                    *_ok("Saved", SAVED),
                ],
            )
            @action(detail=True, methods=["get", "put"])
            def annotation(self, request, pk=None):
                return super().annotation(request, pk)  # pragma: no cover

            @extend_schema(
                summary="Save and submit my annotation; answers with the next pair",
                request=AnnotationInputSerializer,
                responses=answers(SubmitResultSerializer, refusals),
                examples=[
                    OpenApiExample("Submit", value=EDIT, request_only=True),
                    *_ok(
                        "Submitted",
                        {
                            **SAVED,
                            "status": "submitted",
                            "next": 41,
                            "next_page": "/annotate/41/",
                            "feedback": None,
                        },
                    ),
                ],
            )
            @action(detail=True, methods=["post"])
            def submit(self, request, pk=None):
                return super().submit(request, pk)  # pragma: no cover

            @extend_schema(
                summary="Open the pair as the grid page does (records the opening); answers "
                "its grid data",
                request=None,
                responses=answers(AssignmentDetailSerializer),
                examples=_ok("Opened", DETAIL),
            )
            @action(detail=True, methods=["post"])
            def open(self, request, pk=None):
                return super().open(request, pk)  # pragma: no cover

            @extend_schema(
                methods=["POST"],
                summary="Flag the pair for the lead",
                request=FlagSerializer,
                responses=answers(FlagResultSerializer, {400: ErrorSerializer}),
                examples=[
                    OpenApiExample("Flag", value=FLAG_ANSWER["flag"], request_only=True),
                    *_ok("Flagged", FLAG_ANSWER),
                ],
            )
            @extend_schema(
                methods=["DELETE"],
                summary="Clear my flag",
                request=None,
                responses=answers(FlagResultSerializer),
                examples=_ok("Cleared", {"flag": None}),
            )
            @action(detail=True, methods=["post", "delete"])
            def flag(self, request, pk=None):
                return super().flag(request, pk)  # pragma: no cover

        # the same routes as the grid's actions (the schema is built per route and method)
        for name in ("open", "annotation", "submit", "flag"):
            assert set(getattr(Documented, name).mapping) == set(
                getattr(self.target_class, name).mapping
            ), name
        return Documented
