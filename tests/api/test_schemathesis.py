"""Property-based requests over the whole API from its own OpenAPI schema (schemathesis):
whatever schemathesis sends, authenticated as a lead by token, the answer is never a 5xx.

Path ids are half random, half real (a project, pair, job, ... of the fixture data), so the
requests reach the views' bodies rather than stopping at 404. Bounded by MAX_EXAMPLES per
operation so the run stays within a few minutes on a loaded machine."""

from __future__ import annotations

import json

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from annotator.accounts.services.tokens import create_token, token_for_key
from annotator.models import AgreementReport, AlignerRun, Job

MAX_EXAMPLES = 20


@pytest.fixture
def fuzz_data(corpus, project, lead, annotator):
    job = Job.objects.create(
        kind="import",
        project=project,
        created_by=lead,
        status=Job.Status.FAILED,
        message="Failed",
        error="CorpusImportError: x.jsonl:1: bad\n\nTraceback ...",
    )
    run = AlignerRun.objects.create(project=project, job=job, config={}, note="fuzz")
    report = AgreementReport.objects.create(project=project, job=job, params={}, result={})
    token, key = create_token(user=lead, name="fuzz-revocable")
    return {
        "project": project.pk,
        "pair": corpus["p1"].pk,
        "assignment": corpus["a1"].pk,
        "job": job.pk,
        "run": run.pk,
        "report": report.pk,
        "token": token.pk,
        "subcorpus": corpus["p1"].subcorpus_id,
        "annotation": corpus["a1"].annotation.pk,
    }


# Which real object an ``{id}`` stands for, by the path's first segment after /api/.
ID_OF = {
    "projects": "project",
    "pairs": "pair",
    "assignments": "assignment",
    "jobs": "job",
    "aligner-runs": "run",
    "reports": "report",
    "subcorpora": "subcorpus",
    "annotations": "annotation",
    "auth": "token",
}


@pytest.fixture
def api_schema(fuzz_data, settings):
    settings.ALLOWED_HOSTS = ["*"]
    raw = SchemaGenerator().get_schema(request=None, public=True)
    schema = schemathesis.openapi.from_dict(json.loads(OpenApiJsonRenderer().render(raw)))
    schema.app = WSGIHandler()
    # As Django's test client does: the requests run inside the test's transaction, so the
    # end of a request must not close the connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield schema
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def real_ids(case, data: dict) -> None:
    """Replace even generated ids with the fixture's real ones (deterministic per example)."""
    params = case.path_parameters or {}
    head = case.path.removeprefix("/api/").split("/")[0]
    for name, value in list(params.items()):
        if not isinstance(value, int) or value % 2:
            continue
        if name == "project_id":
            params[name] = data["project"]
        elif name == "pair_id":
            params[name] = data["pair"]
        elif name == "id" and head in ID_OF:
            params[name] = data[ID_OF[head]]


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_request_gets_a_server_error(api_schema, fuzz_data, lead, mode):
    failures: list[str] = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 30  # the whole API, not a part of it
    keys = [create_token(user=lead, name="fuzz")[1]]

    for operation in operations:

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def call(case):
            real_ids(case, fuzz_data)
            if token_for_key(keys[-1]) is None:  # revoked by a DELETE of /api/auth/tokens/
                keys.append(create_token(user=lead, name="fuzz")[1])
            response = case.call(headers={"Authorization": f"Token {keys[-1]}"})
            assert response.status_code < 500, (
                f"{case.method} {case.formatted_path} -> {response.status_code}\n"
                f"{response.text[:1500]}\n{case.as_curl_command()}"
            )

        try:
            call()
        except AssertionError as exc:
            failures.append(str(exc))
        except Unsatisfiable:
            assert mode is GenerationMode.NEGATIVE  # nothing of this operation can be made invalid
    assert not failures, "\n\n".join(failures)
