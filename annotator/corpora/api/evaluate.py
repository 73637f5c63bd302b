"""``POST /api/projects/{id}/evaluate/``: score an uploaded system alignment file against the
project's gold (leads). The answer carries the keys of ``python -m alignment_core score
--json`` plus the same figures per subcorpus and every pair that could not be scored.

An upload over ``EVALUATE_INLINE_MAX_BYTES`` is stored, its head checked, and scored by an
``evaluate`` job instead: 202 with the job, whose ``result`` is that same answer."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from alignment_core.formats import FORMATS
from annotator.common.errors import BadInput
from annotator.common.negotiation import FileFormatNegotiation
from annotator.common.permissions import project_for_request
from annotator.common.schema import ERRORS
from annotator.common.upload_fields import ChoiceField, EncodingField, refuse_large
from annotator.corpora.services import evaluation_job
from annotator.corpora.services.evaluation import (
    LEVELS,
    EvaluationRefused,
    SystemFile,
    evaluate_file,
)
from annotator.jobs.api import JOB_EXAMPLE, JobSerializer, job_accepted


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
    normalize = serializers.BooleanField(
        default=False,
        help_text="clean the tokens: remove control characters (e.g. U+0082) from inside them "
        "and put them in Unicode NFC (default: refuse a file with control characters)",
    )


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
            "subcorpus; `unmatched`, `token_mismatch` and `missing` list every pair not scored. "
            "An upload over `EVALUATE_INLINE_MAX_BYTES` (2 MB by default) is scored by an "
            "`evaluate` job: 202 with the job (a head that cannot be read is still a 400 at "
            "once); poll it at `url`, its `result` is the 200 answer's object."
        ),
        request={"multipart/form-data": EvaluateRequest},
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                examples=[OpenApiExample("Scores", value=EXAMPLE, response_only=True)],
            ),
            202: JobSerializer,
            413: ERRORS[400],
            **ERRORS,
        },
        examples=[
            OpenApiExample(
                "Queued (a big file)",
                value={
                    **JOB_EXAMPLE,
                    "kind": "evaluate",
                    "status": "queued",
                    "finished": False,
                    "progress": 0,
                    "message": "Waiting for a worker",
                    "reason": None,
                    "error": None,
                },
                response_only=True,
                status_codes=["202"],
            ),
            OpenApiExample(
                "Pharaoh against the gold's text",
                value={"file": "system.pharaoh", "format": "pharaoh", "level": "both"},
                request_only=True,
                media_type="multipart/form-data",
            ),
        ],
    )
    def post(self, request, project_id: int):
        project = project_for_request(request=request, project_id=project_id, lead=True)
        form = EvaluateRequest(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        files = {role: data.get(role) for role in evaluation_job.FILE_ROLES}
        refuse_large(files)
        if evaluation_job.runs_as_job(files):
            try:  # a FormatError of the head is a 400 too
                job = evaluation_job.accept_evaluation(
                    project=project, user=request.user, files=files, options=data
                )
            except EvaluationRefused as exc:
                raise BadInput(str(exc)) from None
            return job_accepted(request, job)
        upload, src, tgt = data["file"], data.get("source_text"), data.get("target_text")
        system = SystemFile(
            name=upload.name,
            data=upload.read(),
            fmt=data.get("format"),
            encoding=data["encoding"],
            source_text=(src.name, src.read()) if src is not None else None,
            target_text=(tgt.name, tgt.read()) if tgt is not None else None,
            normalize=data["normalize"],
        )
        try:  # a FormatError (file, line, reason) is a 400 too (errors.py)
            result = evaluate_file(
                project=project,
                file=system,
                level=data["level"],
                include_identical=data["include_identical"],
            )
        except EvaluationRefused as exc:
            raise BadInput(str(exc)) from None
        return Response(result)
