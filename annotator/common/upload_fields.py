"""Fields and checks the file endpoints (imports, evaluate, export) share: the ``encoding``
field, choices whose error lists the choices, and the size limit of uploaded files
(``settings.API_UPLOAD_MAX_MB``)."""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework import serializers

from annotator.common.errors import TooLarge


class EncodingField(serializers.CharField):
    """A text encoding Python knows (default UTF-8); an unknown one is named in the 400."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("default", "utf-8")
        kwargs.setdefault("max_length", 40)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        try:
            codecs.lookup(value)
        except LookupError:
            raise serializers.ValidationError(f"unknown encoding {value!r}") from None
        return value


def refuse_large(files: Mapping[str, Any]) -> None:
    """413 naming the first uploaded file (``role → file``, None for absent) over the limit."""
    limit = settings.API_UPLOAD_MAX_MB
    for role, upload in files.items():
        if upload is not None and upload.size > limit * 1024 * 1024:
            raise TooLarge(f"{role}: {upload.name} is larger than {limit} MB")


class ChoiceField(serializers.ChoiceField):
    """A choice whose error lists the choices: ``"xml" is not one of jsonl, pharaoh, ...``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        names = ", ".join(str(choice) for choice in self.choices if choice != "")
        self.error_messages["invalid_choice"] = f'"{{input}}" is not one of {names}.'
