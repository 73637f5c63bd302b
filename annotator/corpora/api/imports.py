"""``POST /api/projects/{id}/imports/``: upload a corpus in any SPEC §2 format, with the
options of ``manage.py import_corpus``; answers 202 with the import job (leads).

The upload is streamed to disk and its head checked here (a small file is read whole), so a
malformed file is a 400 naming its line at once (annotator/services/upload_head.py); the job
then reads it all and imports it all or nothing, and the upload is deleted when it ends.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.views import APIView

from alignment_core.formats import FORMATS
from annotator.common.errors import BadInput
from annotator.common.permissions import project_for_request
from annotator.common.schema import ERRORS
from annotator.common.upload_fields import ChoiceField, EncodingField, refuse_large
from annotator.corpora.services import uploads
from annotator.corpora.services.importing import LOAD_MODES, TOKEN_MISMATCH_POLICIES
from annotator.corpora.services.importing_checks import subcorpus_problem, username_problem
from annotator.jobs.api import JOB_EXAMPLE, JobSerializer, job_accepted


class ImportRequest(serializers.Serializer):
    file = serializers.FileField(help_text="the corpus, or an export zip (pharaoh/naacl)")
    format = ChoiceField(
        choices=list(FORMATS), required=False, help_text="default: guessed from the file name"
    )
    encoding = EncodingField()
    source_text = serializers.FileField(
        required=False,
        help_text="pharaoh/naacl: source sentences one per line (with target_text), or a "
        "tsv/bitext/jsonl file of the pairs alone",
    )
    target_text = serializers.FileField(
        required=False, help_text="pharaoh/naacl: target sentences; parallel: the target side"
    )
    text_format = ChoiceField(choices=list(FORMATS), required=False)
    sure_file = serializers.FileField(required=False, help_text="edinburgh: the sure-only file")
    load_as = ChoiceField(
        choices=LOAD_MODES,
        required=False,
        allow_null=True,
        help_text="load the alignments as gold, seeds or an annotator's (default: text only)",
    )
    annotator = serializers.CharField(
        required=False,
        max_length=150,
        help_text="load_as annotator: whose work this is; someone the lead may add (a member "
        "of a project they lead, or an account in no project yet), else a 400",
    )
    subcorpus = serializers.CharField(required=False, max_length=100)
    max_length_ratio = serializers.FloatField(required=False, min_value=1.0)
    token_mismatch = ChoiceField(choices=TOKEN_MISMATCH_POLICIES, default="error")
    replace_gold = serializers.BooleanField(default=False)
    dry_run = serializers.BooleanField(default=False)
    normalize = serializers.BooleanField(
        default=False,
        help_text="clean the tokens: remove control characters (e.g. U+0082) from inside them "
        "and put them in Unicode NFC; the report counts the tokens changed (default: refuse a "
        "file with control characters)",
    )

    def validate_subcorpus(self, value: str) -> str:
        if problem := subcorpus_problem(value):
            raise serializers.ValidationError(problem)
        return value

    def validate_annotator(self, value: str) -> str:
        if problem := username_problem(value):
            raise serializers.ValidationError(problem)
        return value

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("annotator"):
            if data.get("load_as") not in (None, "annotator"):
                raise serializers.ValidationError(
                    {"annotator": f"loads annotations; it cannot go with load_as={data['load_as']}"}
                )
            data["load_as"] = "annotator"
        return data


class ImportView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        operation_id="projects_imports_create",
        summary="Import a corpus file as a job (leads)",
        description=(
            "Multipart upload. All or nothing, as `manage.py import_corpus`. A file that cannot "
            "be read is refused at once (400, naming file, line and reason); problems found "
            "against the project (a gold that differs, tokens that differ) fail the job with "
            "the same kind of message. Poll the job at `url`; its `result` is the import report."
        ),
        request={"multipart/form-data": ImportRequest},
        responses={202: JobSerializer, 413: ERRORS[400], **ERRORS},
        examples=[
            OpenApiExample(
                "Gold in JSONL",
                value={"file": "corpus.jsonl", "load_as": "gold", "subcorpus": "news"},
                request_only=True,
                media_type="multipart/form-data",
            ),
            OpenApiExample(
                "Queued",
                value={**JOB_EXAMPLE, "status": "queued", "finished": False, "progress": 0,
                       "message": "Waiting for a worker", "reason": None, "error": None},
                response_only=True,
                status_codes=["202"],
            ),
        ],
    )  # fmt: skip
    def post(self, request, project_id: int):
        project = project_for_request(request=request, project_id=project_id, lead=True)
        form = ImportRequest(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        files = {role: data[role] for role in uploads.FILE_ROLES if data.get(role) is not None}
        refuse_large(files)
        try:
            job = uploads.accept_upload(
                project=project, user=request.user, files=files, options=data
            )
        except uploads.ImportRefused as exc:
            raise BadInput(str(exc)) from None
        return job_accepted(request, job)
