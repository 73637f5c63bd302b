"""``POST /api/projects/{id}/evaluate/``: score an uploaded system alignment file against the
project's gold (leads). The answer carries the keys of ``python -m alignment_core score
--json`` plus the same figures per subcorpus and every pair that could not be scored."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from alignment_core.formats import FORMATS, guess_format, parse_pairs
from annotator.api.errors import BadInput
from annotator.api.negotiation import FileFormatNegotiation
from annotator.api.permissions import project_for_request
from annotator.api.schema import ERRORS
from annotator.api.upload_fields import ChoiceField, EncodingField, refuse_large
from annotator.services.evaluation import LEVELS, evaluate_alignments, gold_for_evaluation


class EvaluateRequest(serializers.Serializer):
    file = serializers.FileField(help_text="the system's alignments")
    format = ChoiceField(
        choices=[f for f, info in FORMATS.items() if info.carries_alignment],
        required=False,
        help_text="default: guessed from the file name",
    )
    level = ChoiceField(choices=LEVELS, default="both")
    include_identical = serializers.BooleanField(
        default=False, help_text="also count links between identical words"
    )
    encoding = EncodingField()
    source_text = serializers.FileField(
        required=False,
        help_text="pharaoh/naacl: the sentences (one per line, with target_text, or a "
        "tsv/bitext/jsonl file alone). Default: the project's gold pairs in export order",
    )
    target_text = serializers.FileField(required=False)


FIGURES = {"precision_sure": 0.91, "recall_sure": 0.84, "f1": 0.874}
FIGURES_P = {"precision_possible": 0.88, "recall_possible": 0.8}
EXAMPLE = {
    "pairs": 30,
    "word": {**FIGURES, **FIGURES_P, "aer": 0.12},
    "phrase": {**FIGURES, **FIGURES_P},
    "subcorpora": {"news": {"pairs": 10, "word": {"f1": 0.9}, "phrase": {"f1": 0.8}}},
    "level": "both",
    "include_identical": False,
    "gold_pairs": 31,
    "unmatched": [{"id": "t1", "reason": "a trial pair (never gold)"}],
    "token_mismatch": [{"id": "n7", "reason": "source token 2 is 'colour' in the file, ..."}],
    "missing": [],
}


class EvaluateView(APIView):
    parser_classes = [MultiPartParser, FormParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = FileFormatNegotiation

    @extend_schema(
        operation_id="projects_evaluate",
        summary="Score a system's alignments against the gold (leads)",
        description=(
            "Multipart upload of an alignment file in any format of SPEC §2. Pairs are matched "
            "to the gold by id; trial pairs are never gold. `word` and `phrase` have the keys "
            "of `python -m alignment_core score --json`; `subcorpora` repeats them per "
            "subcorpus; `unmatched`, `token_mismatch` and `missing` list every pair not scored."
        ),
        request={"multipart/form-data": EvaluateRequest},
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                examples=[OpenApiExample("Scores", value=EXAMPLE, response_only=True)],
            ),
            413: ERRORS[400],
            **ERRORS,
        },
        examples=[
            OpenApiExample(
                "Pharaoh against the gold's text",
                value={"file": "system.pharaoh", "format": "pharaoh", "level": "both"},
                request_only=True,
                media_type="multipart/form-data",
            )
        ],
    )
    def post(self, request, project_id: int):
        project = project_for_request(request=request, project_id=project_id, lead=True)
        form = EvaluateRequest(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        refuse_large({role: data.get(role) for role in ("file", "source_text", "target_text")})
        upload = data["file"]
        fmt = data.get("format") or guess_format(upload.name)
        if fmt is None:
            raise BadInput(
                f"format: cannot tell the format of {upload.name!r} from its name; give format"
            )
        info = FORMATS[fmt]
        if not info.carries_alignment:
            raise BadInput(f"format: {fmt} files hold no alignments")
        gold = gold_for_evaluation(project=project)
        kwargs: dict = {"name": upload.name, "encoding": data["encoding"]}
        src, tgt = data.get("source_text"), data.get("target_text")
        if info.needs_text:
            if src is not None and tgt is not None:
                kwargs.update(source_lines=src.read(), target_lines=tgt.read())
                kwargs.update(source_name=src.name, target_name=tgt.name)
            elif src is not None:
                text_fmt = guess_format(src.name) or "tsv"
                kwargs["text_pairs"] = parse_pairs(
                    src.read(), text_fmt, name=src.name, encoding=data["encoding"]
                )
                kwargs["text_name"] = src.name
            elif tgt is not None:
                raise BadInput("source_text: give it with target_text, or alone as a pair file")
            else:
                kwargs.update(text_pairs=gold, text_name=f"the gold of {project.name!r}")
        elif src is not None or tgt is not None:
            raise BadInput(f"source_text/target_text: {fmt} files carry their own sentences")
        system = parse_pairs(upload.read(), fmt, **kwargs)  # FormatError → 400 (errors.py)
        try:
            result = evaluate_alignments(
                project=project,
                system=system,
                level=data["level"],
                include_identical=data["include_identical"],
                gold=gold,
            )
        except ValueError as exc:
            raise BadInput(f"{upload.name}: {exc}") from None
        return Response(result)
