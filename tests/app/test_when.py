"""One way to write a moment: ``{% when %}`` writes it in UTC inside a ``<time>`` the browser
rewrites in the reader's zone (tests/e2e/test_when.py); no template formats a date its own way."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from django.template import Context, Template, TemplateSyntaxError

from tests.conftest import REPO_ROOT

TOKYO = timezone(timedelta(hours=9))


def render(text: str, **context) -> str:
    return Template("{% load when %}" + text).render(Context(context))


def test_a_moment_is_written_in_utc_inside_a_time_element_the_browser_rewrites():
    moment = datetime(2026, 11, 29, 13, 42, 7, tzinfo=TOKYO)  # 04:42:07 UTC
    assert render("{% when m %}", m=moment) == (
        '<time datetime="2026-11-29T04:42:07Z" data-when="minutes">2026-11-29 04:42 UTC</time>'
    )
    assert ">2026-11-29 04:42:07 UTC<" in render('{% when m "seconds" %}', m=moment)
    assert ">2026-11-29<" in render('{% when m "date" %}', m=moment)
    assert render('{% when m empty="never" %}', m=None) == "never"
    with pytest.raises(TemplateSyntaxError, match="precision"):
        render('{% when m "fortnights" %}', m=moment)


def test_no_template_formats_a_date_its_own_way():
    templates = (REPO_ROOT / "annotator" / "templates").rglob("*.html")
    own = [p.name for p in templates if "|date" in p.read_text(encoding="utf-8")]
    assert own == []
