"""Shared pieces of the OpenAPI description: the error body every endpoint may answer with."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from alignment_core.formats import FORMATS

# Every file format of SPEC §2, one enum in the schema (import, evaluate).
FILE_FORMAT_CHOICES = [(name, name) for name in FORMATS]

ErrorSerializer = inline_serializer(
    "ApiError",
    fields={
        "error": serializers.CharField(help_text="What went wrong and where (one line or more)."),
    },
)


def error(description: str, message: str) -> OpenApiResponse:
    return OpenApiResponse(
        ErrorSerializer,
        description=description,
        examples=[OpenApiExample(description, value={"error": message}, response_only=True)],
    )


ERRORS = {
    400: error("Bad input", "format: unknown format 'xml'; choose one of pharaoh, naacl, ..."),
    401: error("Not logged in", "Authentication credentials were not provided."),
    403: error("Not allowed", "Only the project's leads may do this."),
    404: error("Not found", "No such project, or you are not a member of it."),
}
READ_ERRORS = {k: v for k, v in ERRORS.items() if k != 400}

# Ids in routes: at most 18 digits, so a path id never overflows a bigint.
ID_LOOKUP = "[0-9]{1,18}"


def read_schema(
    serializer: Any, *, many: tuple[str, str], one: tuple[str, str], example: dict[str, Any]
) -> dict[str, Any]:
    """``extend_schema_view`` arguments of a read-only viewset: ``many`` and ``one`` are
    (summary, example name) of the list and of one object; ``example`` is one object (the
    list's example is built from it, paginated)."""
    return {
        "list": extend_schema(
            summary=many[0],
            responses={200: serializer(many=True), **READ_ERRORS},
            examples=[OpenApiExample(many[1], value=example, response_only=True)],
        ),
        "retrieve": extend_schema(
            summary=one[0],
            responses={200: serializer, **READ_ERRORS},
            examples=[OpenApiExample(one[1], value=example, response_only=True)],
        ),
    }
