"""The path converter of every id in the site's and the API's routes (``<id:project_id>``)."""

from __future__ import annotations

from django.urls import register_converter


class IdConverter:
    """A database id: at most 18 digits, so an absurd number is a 404 at parsing, not a
    database overflow (bigint holds 9.2e18)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
