"""The OpenAPI documentation of the grid's ``/api/assignments/`` endpoints: summaries,
examples and the error answers every endpoint may give, applied to the one real viewset
(``annotator.grid.api.assignments``) as ``@documented(...)``. Kept apart because it is long and
read by nobody who changes the endpoints' behaviour."""

from __future__ import annotations

from collections.abc import Callable

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)

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
        "seed": "/api/assignments/40/seed/",
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


# long: declarative schema data, one extend_schema per endpoint and method; no logic to follow
def documented(
    *,
    annotation_input: type,
    annotation_state: type,
    detail: type,
    row: type,
    conflict: type,
    flag: type,
    flag_result: type,
    links_error: type,
    save_result: type,
    submit_result: type,
    seed_data: type,
) -> Callable[[type], type]:
    """``@extend_schema_view`` for the grid's viewset: summaries, examples and every error
    answer of its endpoints, decorating the one real viewset (the serializers come in as
    arguments, so this module imports nothing of the viewset's)."""
    stale = OpenApiResponse(conflict, **STALE)
    bad_links = OpenApiResponse(links_error, **BAD_LINKS)
    refusals = {400: bad_links, 403: SUBMITTED, 409: stale}  # a save's, and a submit's

    def answers(ok, more=None):
        return {200: ok, **(more or {}), **READ_ERRORS}

    submitted = {**SAVED, "status": "submitted", "next": 41, "next_page": "/annotate/41/"}
    return extend_schema_view(
        list=extend_schema(
            summary="My assignments: my queue, in queue order (?project=, ?status=)",
            responses=answers(row(many=True)),
            examples=_ok("My queue", ROW),
        ),
        retrieve=extend_schema(
            summary="One of my assignments: the pair, its seed and posteriors, my annotation",
            responses=answers(detail),
            examples=_ok("Assignment", DETAIL),
        ),
        annotation=[
            extend_schema(
                methods=["GET"],
                summary="My annotation of the pair and its version",
                request=None,
                responses=answers(annotation_state),
                examples=_ok("Annotation", STATE),
            ),
            extend_schema(
                methods=["PUT"],
                summary="Save my annotation (autosave); 409 when `version` is stale",
                request=annotation_input,
                responses=answers(save_result, refusals),
                examples=[
                    OpenApiExample("Edit", value=EDIT, request_only=True),
                    *_ok("Saved", SAVED),
                ],
            ),
        ],
        submit=extend_schema(
            summary="Save and submit my annotation; answers with the next pair",
            request=annotation_input,
            responses=answers(submit_result, refusals),
            examples=[
                OpenApiExample("Submit", value=EDIT, request_only=True),
                *_ok("Submitted", {**submitted, "feedback": None}),
            ],
        ),
        seed=extend_schema(
            summary="The seed my pair starts from and its posteriors, with an ETag: 304 when "
            "If-None-Match still holds (a new aligner run changes it)",
            request=None,
            parameters=[
                OpenApiParameter(
                    "If-None-Match",
                    str,
                    OpenApiParameter.HEADER,
                    description="The ETag of an earlier answer: 304, no body, while it holds",
                ),
                OpenApiParameter(
                    "If-Modified-Since",
                    str,
                    OpenApiParameter.HEADER,
                    description="The Last-Modified of an earlier answer (HTTP date)",
                ),
            ],
            responses=answers(
                OpenApiResponse(seed_data, description="Headers ETag, Last-Modified"),
                {304: OpenApiResponse(description="Not modified: the stored answer holds")},
            ),
            examples=_ok("Seed", {"seed": DETAIL["seed"], "posteriors": DETAIL["posteriors"]}),
        ),
        open=extend_schema(
            summary="Open the pair as the grid page does (records the opening); answers "
            "its grid data",
            request=None,
            responses=answers(detail),
            examples=_ok("Opened", DETAIL),
        ),
        flag=[
            extend_schema(
                methods=["POST"],
                summary="Flag the pair for the lead",
                request=flag,
                responses=answers(flag_result, {400: ErrorSerializer}),
                examples=[
                    OpenApiExample("Flag", value=FLAG_ANSWER["flag"], request_only=True),
                    *_ok("Flagged", FLAG_ANSWER),
                ],
            ),
            extend_schema(
                methods=["DELETE"],
                summary="Clear my flag",
                request=None,
                responses=answers(flag_result),
                examples=_ok("Cleared", {"flag": None}),
            ),
        ],
    )
