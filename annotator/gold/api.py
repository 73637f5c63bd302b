"""A pair's gold alignment: read it with its history, or save it as adjudicated gold.

``GET /api/projects/{project_id}/pairs/{pair_id}/gold/`` → the gold (or null) and its revisions.
``PUT`` the same URL with ``{"version", "links", "note"}`` → the new gold (a new version and a
GoldRevision through ``annotator.gold.services.gold``); 409 with the current gold when
``version`` is not the current one (0: the pair had none); 400 naming the bad link. Leads of the project (and
staff) only: annotators get 403, outsiders 404.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.common import converters  # noqa: F401  (registers <id:...>)
from annotator.common.access import can_manage_project, project_role
from annotator.common.schema import ERRORS, READ_ERRORS
from annotator.gold.services.adjudication import GoldConflict, adjudicate
from annotator.models import GoldAlignment, Project, SentencePair


class GoldRevisionSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    origin = serializers.CharField()
    author = serializers.CharField(allow_null=True)
    note = serializers.CharField(allow_blank=True)
    links = serializers.JSONField()
    created_at = serializers.DateTimeField()


class GoldSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    links = serializers.JSONField()
    origin = serializers.CharField()
    note = serializers.CharField(allow_blank=True)
    adjudicator = serializers.CharField(allow_null=True)
    updated_at = serializers.DateTimeField()


class PairGoldSerializer(serializers.Serializer):
    pair = serializers.IntegerField()
    gold = GoldSerializer(allow_null=True)
    history = GoldRevisionSerializer(many=True)


class GoldWriteSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=0, help_text="gold version edited; 0: none yet")
    links = serializers.JSONField(help_text='[[i, j, "S"|"P"], ...], 0-based')
    note = serializers.CharField(allow_blank=True, required=False, default="", max_length=5000)


def gold_data(gold: GoldAlignment | None) -> dict[str, Any] | None:
    if gold is None:
        return None
    return {
        "version": gold.version,
        "links": gold.links,
        "origin": gold.origin,
        "note": gold.note,
        "adjudicator": gold.adjudicator.get_username() if gold.adjudicator else None,
        "updated_at": gold.updated_at,
    }


# -- (api helper) the schema's examples --------------------------------------------------------
_GOLD = {
    "version": 3,
    "links": [[0, 0, "S"], [1, 2, "P"]],
    "origin": "adjudicated",
    "note": "agreed",
    "adjudicator": "lead",
    "updated_at": "2026-11-23T10:00:00Z",
}
GOLD_EXAMPLE = {
    "pair": 14,
    "gold": _GOLD,
    "history": [
        {
            "version": 3,
            "origin": "adjudicated",
            "author": "lead",
            "note": "agreed",
            "links": _GOLD["links"],
            "created_at": _GOLD["updated_at"],
        }
    ],
}
GOLD_CONFLICT = OpenApiResponse(
    description="stale version: nothing written; the current gold is returned",
    examples=[
        OpenApiExample(
            "Stale",
            value={"error": "the gold changed since version 2", "current": _GOLD},
            response_only=True,
        )
    ],
)


class PairGoldView(APIView):
    """A pair's gold and its history; a lead saves adjudicated gold here."""

    def _pair(self, request: Request, project_id: int, pair_id: int) -> SentencePair:
        if not (0 < project_id < 2**63 and 0 < pair_id < 2**63):  # (api) no bigint overflow
            raise NotFound("No such project, or you are not a member of it.")
        project = get_object_or_404(Project, pk=project_id)
        if project_role(project=project, user=request.user) is None:
            raise NotFound("No such project, or you are not a member of it.")
        if not can_manage_project(project=project, user=request.user):
            raise PermissionDenied("Only the project's leads may read or write gold here.")
        return get_object_or_404(SentencePair, pk=pair_id, project=project)

    @extend_schema(
        summary="A pair's gold alignment and its history (leads; tokens with lead rights too)",
        responses={200: PairGoldSerializer, **READ_ERRORS},
        examples=[OpenApiExample("Gold", value=GOLD_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, project_id: int, pair_id: int) -> Response:
        pair = self._pair(request, project_id, pair_id)
        gold = GoldAlignment.objects.filter(pair=pair).select_related("adjudicator").first()
        history = gold.revisions.select_related("author").order_by("version") if gold else []
        return Response(
            {
                "pair": pair.pk,
                "gold": gold_data(gold),
                "history": [
                    {
                        "version": r.version,
                        "origin": r.origin,
                        "note": r.note,
                        "author": r.author.get_username() if r.author else None,
                        "links": r.links,
                        "created_at": r.created_at,
                    }
                    for r in history
                ],  # fmt: skip
            }
        )

    @extend_schema(
        summary="Save a pair's gold as adjudicated (leads): a new version and a GoldRevision",
        request=GoldWriteSerializer,
        responses={200: GoldSerializer, 409: GOLD_CONFLICT, **ERRORS},
        examples=[
            OpenApiExample(
                "Save",
                value={"version": 2, "links": [[0, 0, "S"], [1, 2, "P"]], "note": "agreed"},
                request_only=True,
            ),
            OpenApiExample("Saved", value=GOLD_EXAMPLE["gold"], response_only=True),
        ],
    )
    def put(self, request: Request, project_id: int, pair_id: int) -> Response:
        pair = self._pair(request, project_id, pair_id)
        body = GoldWriteSerializer(data=request.data)
        if not body.is_valid():
            return Response(
                {"error": "invalid request body", **body.errors}, status=status.HTTP_400_BAD_REQUEST
            )
        data = body.validated_data
        try:
            gold = adjudicate(
                pair=pair,
                links=data["links"],
                adjudicator=request.user,
                note=data["note"],
                version=data["version"],
            )
        except GoldConflict as exc:
            return Response(
                {"error": str(exc), "current": gold_data(exc.current)},
                status=status.HTTP_409_CONFLICT,
            )
        except ValidationError as exc:
            return Response(
                {"error": "these links do not fit the pair's grid", "links": exc.messages},
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(gold_data(gold))


urlpatterns = [
    path(
        "projects/<id:project_id>/pairs/<id:pair_id>/gold/",
        PairGoldView.as_view(),
        name="api-pair-gold",
    ),
]
