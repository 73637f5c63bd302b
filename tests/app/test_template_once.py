"""``{% once %}`` (annotator/templatetags/frame.py): the fixed part of a page rendered once per
process, and refused at compile time when it holds anything that could differ per request; and
``url_with_id`` (annotator/common/urls.py), the id URLs of the grid page made without reverse()."""

from __future__ import annotations

import pytest
from django.template import Context, Engine, Template, TemplateSyntaxError
from django.test import override_settings

from annotator.templatetags.frame import OnceNode

FIXED = "{% load frame static %}{% once %}<link href=\"{% static 'gridalign/site.css' %}\"> <a href=\"{% url 'home' %}\">{# note #}</a>{% endonce %}"


def render(text: str, **context) -> str:
    return Template(text).render(Context(context))


def test_it_renders_what_the_tags_would_then_keeps_it_until_a_setting_changes():
    template = Template(FIXED)
    plain = render(FIXED.replace("{% once %}", "").replace("{% endonce %}", ""))
    assert "/static/gridalign/site.css" in plain and 'href="/"' in plain
    assert template.render(Context()) == plain
    (node,) = template.nodelist.get_nodes_by_type(OnceNode)
    node.nodelist = Template("changed").nodelist
    assert template.render(Context()) == plain  # kept: not rendered again
    with override_settings(STATIC_URL="/elsewhere/"):
        assert template.render(Context()) == "changed"  # a setting it is made of changed


@pytest.mark.parametrize(
    "inside",
    [
        "{{ user.username }}",
        "{% static path %}",
        "{% static 'a.css'|upper %}",
        "{% static 'a.css' as css %}",
        "{% url 'annotate' 1 %}",
        "{% url name %}",
        "{% csrf_token %}",
        "{% if user %}x{% endif %}",
    ],
)
def test_anything_that_could_differ_per_request_is_refused(inside):
    with pytest.raises(TemplateSyntaxError, match="once"):
        Engine.get_default().from_string(
            "{% load frame static %}{% once %}" + inside + "{% endonce %}"
        )


@pytest.mark.parametrize(
    "name",
    [
        "annotate",
        "assignment-detail",
        "assignment-annotation",
        "assignment-submit",
        "assignment-flag",
        "assignment-seed",
        "project-queue",
        "project-guidelines",
    ],
)
def test_url_with_id_is_what_reverse_gives(name):
    from django.urls import reverse, set_script_prefix

    from annotator.common.urls import url_with_id

    for pk in (1, 42, 9_876_543_210):
        assert url_with_id(name, pk) == reverse(name, args=[pk])
    try:  # served under a prefix: a pattern per prefix
        set_script_prefix("/align/")
        assert url_with_id(name, 7) == reverse(name, args=[7])
        assert url_with_id(name, 7).startswith("/align/")
    finally:
        set_script_prefix("/")
    assert not url_with_id(name, 7).startswith("/align/")
