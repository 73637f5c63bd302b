"""``GET /api/projects/{id}/export/``: the gold corpus as a streamed download (leads)."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from annotator.common.errors import BadInput
from annotator.common.negotiation import FileFormatNegotiation
from annotator.common.permissions import project_for_request
from annotator.common.schema import ERRORS
from annotator.common.upload_fields import ChoiceField
from annotator.corpora.services.export import (
    EXPORT_FORMATS,
    TEXT_CHOICES,
    ExportOptions,
    export_chunks,
    file_name,
    media_type,
    prepare_export,
)


class ExportQuery(serializers.Serializer):
    format = ChoiceField(choices=EXPORT_FORMATS, default="jsonl")
    subcorpus = serializers.CharField(required=False, allow_blank=True, max_length=100)
    include_trial = serializers.BooleanField(default=False)
    text = ChoiceField(choices=TEXT_CHOICES, required=False)


class ExportView(APIView):
    renderer_classes = [JSONRenderer]  # for errors; the download itself is streamed bytes
    content_negotiation_class = FileFormatNegotiation

    @extend_schema(
        operation_id="projects_export",
        summary="Download the gold corpus (leads)",
        description=(
            "Streams the project's gold alignments. `jsonl` and `giza-a3` carry their text; "
            "`pharaoh` and `naacl` come as a zip of the links file, a TSV of the pairs (ids, "
            "subcorpus, metadata) and the two sides one sentence per line — or, with "
            "`text=source|target|pairs`, just that text file. Trial pairs are left out unless "
            "`include_trial=true`. The file name carries the project and the date."
        ),
        parameters=[
            OpenApiParameter("format", enum=EXPORT_FORMATS, default="jsonl"),
            OpenApiParameter(
                "subcorpus", str, description="only this subcorpus ('' = pairs without one)"
            ),
            OpenApiParameter("include_trial", bool, default=False),
            OpenApiParameter(
                "text", enum=TEXT_CHOICES, description="pharaoh/naacl: one text file, no zip"
            ),
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="the file (JSONL shown; zip or text for other formats)",
                examples=[
                    OpenApiExample(
                        "JSONL",
                        value='{"id": "news-3", "subcorpus": "news", "source": ["the", "talks"],'
                        ' "target": ["negotiations"], "sure": [[1, 0]], "possible": [[0, 0]]}\n',
                    )
                ],
            ),
            **ERRORS,
        },
    )
    def get(self, request, project_id: int):
        project = project_for_request(request=request, project_id=project_id, lead=True)
        query = ExportQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        options = ExportOptions(
            fmt=data["format"],
            subcorpus=data.get("subcorpus"),
            include_trial=data["include_trial"],
            text=data.get("text"),
        )
        try:
            prepare_export(project=project, options=options)
        except ValueError as exc:  # a bad option, or a pair the format cannot carry
            raise BadInput(str(exc)) from None
        response = StreamingHttpResponse(
            export_chunks(project=project, options=options), content_type=media_type(options)
        )
        name = file_name(project=project, options=options)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        response["Cache-Control"] = "no-store"
        return response
