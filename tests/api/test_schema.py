"""The OpenAPI schema: every operation documented with an example (request and answer), and
every JSON example valid against the schema it illustrates; the schema and Swagger UI are
served without a CDN."""

from __future__ import annotations

import json

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer

METHODS = ("get", "put", "post", "patch", "delete")


@pytest.fixture(scope="module")
def schema():
    raw = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(raw))


def operations(schema):
    for path, item in schema["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield f"{method.upper()} {path}", op


def as_json_schema(node):
    """OpenAPI 3.0 ``nullable`` to JSON Schema's null type (the rest is the same)."""
    if isinstance(node, list):
        return [as_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: as_json_schema(v) for k, v in node.items()}
    if node.pop("nullable", False):
        if "type" in node:
            node["type"] = [node["type"], "null"]
            if "enum" in node:
                node["enum"] = [*node["enum"], None]
        else:
            node = {"anyOf": [node, {"type": "null"}]}
    return node


def test_every_operation_has_examples_for_its_request_and_answer(schema):
    missing = []
    for name, op in operations(schema):
        body = op.get("requestBody")
        if body and not any(c.get("examples") for c in body["content"].values()):
            missing.append(f"{name}: request")
        answers = {code: r for code, r in op["responses"].items() if code.startswith("2")}
        if list(answers) == ["204"]:
            continue  # no content to show
        if not any(c.get("examples") for r in answers.values() for c in r["content"].values()):
            missing.append(f"{name}: answer")
    assert not missing
    assert len(list(operations(schema))) > 30


def test_every_json_example_fits_its_schema(schema):
    components = as_json_schema({"components": schema["components"]})
    checked = 0
    problems = []
    for name, op in operations(schema):
        for code, answer in op["responses"].items():
            content = answer.get("content", {}).get("application/json")
            if not content or "schema" not in content:
                continue
            shape = {**as_json_schema(content["schema"]), **components}
            for label, example in content.get("examples", {}).items():
                checked += 1
                try:
                    jsonschema.validate(example["value"], shape)
                except jsonschema.ValidationError as exc:
                    problems.append(f"{name} {code} {label}: {exc.message} at {list(exc.path)}")
    assert not problems, "\n".join(problems)
    assert checked > 40


@pytest.mark.django_db
def test_schema_and_docs_are_served_from_this_server(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200 and b"openapi: 3" in response.content
    page = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in page
    assert "cdn" not in page.lower() and "//unpkg" not in page and "jsdelivr" not in page
    assert "/static/drf_spectacular_sidecar/" in page
