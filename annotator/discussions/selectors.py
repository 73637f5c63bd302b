"""Reads of pair discussions. A thread is (pair, annotator); the blind rule: an annotator sees
only their own threads on pairs assigned to them, leads every thread of their projects."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotator.common import access
from annotator.models import Assignment, PairMessage, Project, SentencePair


@dataclass
class Thread:
    pair: SentencePair
    annotator: Any
    messages: list[PairMessage] = field(default_factory=list)

    @property
    def answered(self) -> bool:
        """The last word is a lead's (the annotator has an answer to read)."""
        return bool(self.messages) and self.messages[-1].author_id != self.annotator.pk


def may_see_thread(*, project: Project, pair: SentencePair, annotator_id: int, user: Any) -> bool:
    """A thread exists only for an annotator who has (or had: withdrawn assignments count) an
    assignment on the pair; the project's leads see every such thread, the annotator their
    own. Anyone else's id is no thread, for leads too: the URL lists no usernames and takes
    no thread to a non-member."""
    if pair.project_id != project.pk:
        return False
    if not Assignment.objects.filter(pair=pair, annotator_id=annotator_id).exists():
        return False
    return user.pk == annotator_id or access.can_manage_project(project=project, user=user)


def _threads(messages: Any) -> list[Thread]:
    threads: dict[tuple[int, int], Thread] = {}
    for m in messages.select_related("pair", "annotator", "author").order_by("created_at", "id"):
        key = (m.pair_id, m.annotator_id)
        threads.setdefault(key, Thread(pair=m.pair, annotator=m.annotator)).messages.append(m)
    return list(threads.values())


def thread(*, pair: SentencePair, annotator: Any) -> Thread:
    found = _threads(PairMessage.objects.filter(pair=pair, annotator=annotator))
    return found[0] if found else Thread(pair=pair, annotator=annotator)


def pair_threads(*, pair: SentencePair) -> list[Thread]:
    """Every thread on a pair (for its leads)."""
    return _threads(PairMessage.objects.filter(pair=pair))


def project_threads(*, project: Project) -> list[Thread]:
    """Every thread of a project, latest message first (for its leads)."""
    threads = _threads(PairMessage.objects.filter(pair__project=project))
    return sorted(threads, key=lambda t: t.messages[-1].created_at, reverse=True)


def own_thread_states(*, project: Project, user: Any) -> tuple[set[int], set[int]]:
    """The pair ids of the user's own threads in the project, and of those a lead answered."""
    threads = _threads(
        PairMessage.objects.filter(
            pair__project=project, annotator=user, pair__assignments__annotator=user
        ).distinct()
    )
    return {t.pair.pk for t in threads}, {t.pair.pk for t in threads if t.answered}
