"""Restoring an earlier gold version (issue 31, "gold that is never lost"): the restored links
become the pair's gold as a NEW revision, so the history keeps both the version that was
replaced and the restore itself."""

from __future__ import annotations

from typing import Any

from annotator.gold.services.gold import GoldError, set_gold
from annotator.models import GoldAlignment, GoldRevision, SentencePair


def restore_gold(*, pair: SentencePair, version: int, author: Any) -> GoldAlignment:
    """Make gold version ``version`` of ``pair`` its gold again (a new version). Restoring the
    current version is refused: it would only add a copy."""
    gold = GoldAlignment.objects.filter(pair=pair).first()
    if gold is None:
        raise GoldError("this pair has no gold to restore")
    revision = GoldRevision.objects.filter(gold=gold, version=version).first()
    if revision is None:
        raise GoldError(f"gold version {version} does not exist for this pair")
    if version == gold.version:
        raise GoldError(f"version {version} is the current gold already")
    return set_gold(
        pair=pair,
        links=revision.links,
        origin=revision.origin,
        author=author,
        note=f"restored version {version}",
    )
