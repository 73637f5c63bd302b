"""``SeedResources``: the outside knowledge a supervised seed model may read — English WordNet,
GloVe's word vectors, the Moby thesaurus and a Penn Treebank tag lexicon — as one value, each
part optional. The core's training takes it as an argument and reads no file or environment to
find it; an edge (the worker, the CLI, a benchmark) builds it, once, with ``SeedResources.load``
from the folder ``resources.resources_dir()`` names (or reuses ``installed.installed_resources``,
the process's one copy)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from alignment_core.aligner import tags as tags_module
from alignment_core.aligner import thesaurus as thesaurus_module
from alignment_core.aligner import vectors as vectors_module
from alignment_core.aligner.tags import TagLexicon
from alignment_core.aligner.thesaurus import Thesaurus
from alignment_core.aligner.vectors import WordVectors
from alignment_core.aligner.wordnet import WordNet

# The ``info`` keys that say which outside evidence a supervised model read: its name, "off",
# or that it was not installed.
EVIDENCE_KEYS = ("wordnet", "vectors", "thesaurus", "tags")


@dataclass(frozen=True)
class SeedResources:
    """The outside resources a seed model may read; None where there is none. The readers keep
    caches of their own (WordNet's lookups), so one value is best shared by every model a
    process trains."""

    wordnet: WordNet | None = None
    vectors: WordVectors | None = None
    thesaurus: Thesaurus | None = None
    tags: TagLexicon | None = None

    @classmethod
    def load(
        cls,
        root: str | Path,
        *,
        wordnet: bool = True,
        vectors: bool = True,
        thesaurus: bool = True,
        tags: bool = True,
    ) -> SeedResources:
        """Read the resources installed under ``root`` (each package in its own folder there;
        WordNet from its pinned distribution's package). A part not asked for, or not
        installed, is None."""
        return cls(
            wordnet=WordNet.load() if wordnet else None,
            vectors=WordVectors.load(vectors_module.PACKAGE.folder(root)) if vectors else None,
            thesaurus=Thesaurus.load(thesaurus_module.PACKAGE.folder(root)) if thesaurus else None,
            tags=TagLexicon.load(tags_module.PACKAGE.folder(root)) if tags else None,
        )

    def used_by(self, wordnet: bool, vectors: bool, thesaurus: bool, tags: bool) -> SeedResources:
        """Only the parts a model's settings use (the others None)."""
        return replace(
            self,
            wordnet=self.wordnet if wordnet else None,
            vectors=self.vectors if vectors else None,
            thesaurus=self.thesaurus if thesaurus else None,
            tags=self.tags if tags else None,
        )


def note(wanted: bool, resource: Any) -> str:
    """What the model says of an outside resource: its name, "off", or that it is missing."""
    if not wanted:
        return "off"
    return resource.name if resource is not None else "not installed: the model went without"
