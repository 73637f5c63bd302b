"""Random JSON at every JSON endpoint of the OpenAPI schema (issue 30, findings 1 and 2):
random nested values (deep too: past the decoder's recursion limit), random Unicode including
lone surrogates and NUL, as real bodies of the endpoints with fields swapped for junk. Whatever
arrives, the answer is never a 5xx, and every 4xx is JSON with an ``error`` string.

Bounded for CI: MAX_EXAMPLES per endpoint, no deadline, derandomized; well under a minute."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.accounts.services.tokens import create_token
from tests.api.test_schemathesis import fuzz_data  # noqa: F401  (the fixture)

MAX_EXAMPLES = 25

# Text with what hostile clients send: any code point, lone surrogates, NUL, huge ones.
surrogate = st.integers(0xD800, 0xDFFF).map(chr)
hostile_text = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(st.characters(), surrogate, st.just("\x00")), max_size=20).map("".join),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    hostile_text,
)
nested = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(hostile_text, inner, max_size=4)
    ),
    max_leaves=20,
)


def deep(depth: int, kind: str) -> str:
    return "[" * depth + "]" * depth if kind == "list" else '{"a":' * depth + "0" + "}" * depth


@st.composite
def bodies(draw, fields: list[str]) -> str:
    """A JSON text: random nested values, an object with the endpoint's own fields set to
    junk, or nesting up to 3,000 levels; ``json.dumps`` writes surrogates as escapes."""
    choice = draw(st.sampled_from(["nested", "fields", "deep", "deep-field"]))
    if choice == "nested":
        return json.dumps(draw(nested))
    if choice == "fields" and fields:
        keys = draw(st.lists(st.sampled_from(fields), min_size=1, unique=True))
        return json.dumps({key: draw(nested) for key in keys})
    depth = draw(st.integers(min_value=1, max_value=3000))
    kind = draw(st.sampled_from(["list", "object"]))
    if choice == "deep-field" and fields:
        return '{"%s": %s}' % (draw(st.sampled_from(fields)), deep(depth, kind))  # noqa: UP031
    return deep(depth, kind)


def json_operations() -> list[tuple[str, str, list[str]]]:
    """(method, path, field names) of every operation whose request body may be JSON."""
    schema = json.loads(
        OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True))
    )
    components = schema["components"]["schemas"]
    out = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            ref = content["application/json"].get("schema", {}).get("$ref", "")
            fields = list(components.get(ref.rsplit("/", 1)[-1], {}).get("properties", {}))
            out.append((method, path, fields))
    return out


def real_path(path: str, data: dict) -> str:
    head = path.removeprefix("/api/").split("/")[0]
    ids = {"projects": "project", "assignments": "assignment", "aligner-runs": "run"}
    return (
        path.replace("{project_id}", str(data["project"]))
        .replace("{pair_id}", str(data["pair"]))
        .replace("{id}", str(data[ids.get(head, "assignment")]))
    )


def fuzz_one(client, method: str, url: str, fields: list[str]) -> None:
    """Post MAX_EXAMPLES random bodies to one endpoint; AssertionError on the first 5xx."""

    @given(body=bodies(fields))
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def call(body: str) -> None:
        cache.clear()  # throttle counts: the token endpoint allows 10 a minute
        response = getattr(client, method)(url, data=body, content_type="application/json")
        assert response.status_code < 500, f"{method} {url} {body[:300]!r} -> {response}"
        if response.status_code >= 400 and response.status_code != 429:
            assert isinstance(response.json().get("error"), str), response.content[:300]

    call()


@pytest.mark.django_db
def test_random_json_never_gets_a_server_error(api, lead, fuzz_data):  # noqa: F811
    operations = json_operations()
    assert len(operations) >= 7  # token, annotation, gold, flag, submit, reports, aligner runs
    _, key = create_token(user=lead, name="fuzz-json")
    client = api(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    failures: list[str] = []
    for method, path, fields in operations:
        try:
            fuzz_one(client, method, real_path(path, fuzz_data), fields)
        except AssertionError as exc:
            failures.append(str(exc)[:2000])
    assert not failures, "\n\n".join(failures)
