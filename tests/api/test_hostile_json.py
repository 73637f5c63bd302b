"""Audit findings 1 and 2 (issue 30): a JSON body nested too deep, or holding a lone
surrogate, is a 400 with ``{"error": ...}`` on every JSON endpoint, before any view runs; an
error never fails while echoing input that cannot be encoded."""

from __future__ import annotations

import json

import pytest

DEEP = 5000  # levels: far past the decoder's recursion limit (~1,000)


def endpoints(corpus, project):
    """(method, path, who) of the JSON endpoints the audit hit."""
    a1, p1 = corpus["a1"], corpus["p1"]
    return [
        ("post", "/api/auth/token/", None),
        ("put", f"/api/assignments/{a1.pk}/annotation/", "annotator"),
        ("put", f"/api/projects/{project.pk}/pairs/{p1.pk}/gold/", "lead"),
        ("post", f"/api/assignments/{a1.pk}/flag/", "annotator"),
        ("post", "/api/reports/", "lead"),
        ("post", "/api/aligner-runs/", "lead"),
    ]


def send(client, method, path, body: str):
    return getattr(client, method)(path, data=body, content_type="application/json")


@pytest.fixture
def callers(api, lead, annotator):
    return {None: api(None), "lead": api(lead), "annotator": api(annotator)}


@pytest.mark.parametrize("shape", ["list", "object"])
def test_deep_nesting_is_a_400_everywhere(callers, corpus, project, shape):
    body = "[" * DEEP + "]" * DEEP if shape == "list" else '{"a":' * DEEP + "1" + "}" * DEEP
    for method, path, who in endpoints(corpus, project):
        response = send(callers[who], method, path, body)
        assert response.status_code == 400, (path, response.status_code)
        assert "nested deeper than" in response.json()["error"], path


def test_nesting_just_past_the_limit_is_refused_and_below_it_reaches_the_view(callers, corpus):
    path = f"/api/assignments/{corpus['a1'].pk}/flag/"
    too_deep = {"reason": json.loads("[" * 64 + "]" * 64)}  # 65 levels with the object
    response = send(callers["annotator"], "post", path, json.dumps(too_deep))
    assert response.status_code == 400
    assert "nested deeper than 64" in response.json()["error"]
    # 20 levels parse: the view itself answers (reason must be a string)
    response = send(callers["annotator"], "post", path, json.dumps({"reason": [[[[[[]]]]]]}))
    assert response.status_code == 400
    assert "nested" not in response.json()["error"]
    assert "reason" in response.json()["error"]


@pytest.mark.parametrize(
    "body",
    [
        '{"reason": "\\ud800"}',
        '{"reason": "ok \\udfff tail"}',
        '{"\\ud83d": "key"}',
        '{"reason": ["x", {"y": "\\udc00"}]}',
    ],
)
def test_lone_surrogates_are_refused_at_parsing(callers, corpus, project, body):
    for method, path, who in endpoints(corpus, project):
        response = send(callers[who], method, path, body)
        assert response.status_code == 400, (path, response.status_code, response.content[:200])
        assert "lone surrogate" in response.json()["error"], path


def test_a_surrogate_pair_is_a_character_not_an_error(callers, corpus):
    """An escaped pair (😀 as \\ud83d\\ude00) is valid JSON for one character: it reaches
    the view, whose 400 (a reason is one of a list) echoes it as the character."""
    path = f"/api/assignments/{corpus['a1'].pk}/flag/"
    response = send(callers["annotator"], "post", path, '{"reason": "odd \\ud83d\\ude00"}')
    assert response.status_code == 400
    assert "surrogate" not in response.json()["error"]
    assert "odd 😀" in json.dumps(response.json(), ensure_ascii=False)


def test_an_error_that_echoes_unencodable_input_still_renders(callers, corpus):
    """Should a value that UTF-8 cannot carry reach an error message (here a username in a
    form body, which the JSON parser never sees), the 400 shows its escape, not a 500."""
    from rest_framework.exceptions import ValidationError

    from annotator.common.errors import exception_handler
    from annotator.common.json_input import SafeJSONRenderer

    response = exception_handler(ValidationError({"reason": ["bad value 'a\ud800b'"]}), {})
    assert response.status_code == 400
    assert "\\ud800" in response.data["error"]
    rendered = SafeJSONRenderer().render({"error": "x\udfffy"})
    assert json.loads(rendered) == {"error": "x\\udfffy"}
