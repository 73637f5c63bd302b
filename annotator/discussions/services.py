"""Writing to a pair's discussion (issue 31): the annotator (a flag opens their thread) and the
project's leads post; nothing is edited or deleted."""

from __future__ import annotations

from typing import Any

from annotator.models import PairMessage, SentencePair

MESSAGE_MAX = 4000


class DiscussionError(ValueError):
    """A message that cannot be posted (the message says why)."""


def post_message(*, pair: SentencePair, annotator: Any, author: Any, body: str) -> PairMessage:
    """Append ``body`` to the thread of ``pair`` and ``annotator`` (who may see it is checked
    by the caller, with ``selectors.may_see_thread``)."""
    body = (body or "").strip()
    if not body:
        raise DiscussionError("the message is empty")
    if len(body) > MESSAGE_MAX:
        raise DiscussionError(f"the message is {len(body)} characters long; at most {MESSAGE_MAX}")
    return PairMessage.objects.create(pair=pair, annotator=annotator, author=author, body=body)
