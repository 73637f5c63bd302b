"""URLs of one id, made without ``reverse()`` on every request: the grid page names sixteen
(its own, the API's for the assignment, the queue's…), and ``reverse()`` walks the URL
patterns each time (issue 32). The URL is reversed once per name with a stand-in id, then the
real id is put in its place; the same name, script prefix and URLconf give the same URL
``reverse()`` would (tests/app/test_template_once.py compares them)."""

from __future__ import annotations

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import get_script_prefix, get_urlconf, reverse

_STAND_IN = "732999999999001"
_PATTERNS: dict[tuple[str, str, str | None], tuple[str, str]] = {}


def url_with_id(name: str, pk: int) -> str:
    """``reverse(name, args=[pk])`` for a URL whose one argument is an id."""
    key = (name, get_script_prefix(), get_urlconf())
    if key not in _PATTERNS:
        head, tail = reverse(name, args=[int(_STAND_IN)]).split(_STAND_IN)
        _PATTERNS[key] = (head, tail)
    head, tail = _PATTERNS[key]
    return f"{head}{int(pk)}{tail}"


@receiver(setting_changed)
def _forget(*, setting: str, **_: object) -> None:
    if setting in {"ROOT_URLCONF", "FORCE_SCRIPT_NAME"}:
        _PATTERNS.clear()
