"""A part-of-speech lexicon as evidence for the supervised link model: which Penn Treebank
tags each English word is seen with, the most frequent first ("left": VBN, JJ, NN, RB, VBD).

WordNet (``aligner.wordclass``) knows the parts of speech of content words only, by their
senses; this lexicon also knows function words ("that": IN, DT, WDT ...) and inflections
("released": VBN, VBD), and orders a word's tags by how often it carries them.

The data is the lexicon of the pinned npm package ``en-lexicon@1.0.11`` (MIT, Alex Corvi:
about 110,000 words, each with its tags, most frequent first), installed by
``aligner.resources`` (``python -m alignment_core resources install``, which ``make setup``
runs) as a two-column text file of its 73,696 lower-case words in
``<resources>/en-lexicon-1.0.11``. Nothing is fetched at
run time: without it the link model goes without these features and records so
(``info["tags"]``).

    lexicon = TagLexicon.load()               # None when not installed
    lexicon.tags("released")                  # ("VBN", "VBD")
    tag_features(grid, pairs, lexicon)        # TAG_NAMES per cell of a CellGrid

With the tags grouped into ``COARSE`` classes (noun, verb, adjective, adverb, determiner,
preposition, pronoun, conjunction, number, punctuation, other), per word (casefolded) on
each side of cell (i, j):

* ``source_tag_first``, ``target_tag_first``: the class of its most frequent tag (an index
  into ``COARSE``; -1 for a word the lexicon does not know);

and of the two words together:

* ``tag_same_first``: 1 when their most frequent tags are of one class, 0 when not, -1 when
  either word is unknown;
* ``tag_overlap``: the share of classes the two words have in common (Jaccard; -1 when
  either is unknown).
"""

from __future__ import annotations

import json
import tarfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from alignment_core.aligner import resources
from alignment_core.aligner.features import CellGrid, per_word
from alignment_core.aligner.resources import NpmPackage, ResourceError

NAME = "Penn Treebank tag lexicon"
MEMBER = "package/dist/lexicon.js"
TAGS_FILE = "tags.tsv"
COARSE = (
    "noun",
    "verb",
    "adj",
    "adv",
    "det",
    "prep",
    "pron",
    "conj",
    "num",
    "punct",
    "other",
)
TAG_NAMES = ("source_tag_first", "target_tag_first", "tag_same_first", "tag_overlap")


def coarse(tag: str) -> int:
    """The ``COARSE`` class of a Penn Treebank tag."""
    if tag.startswith("NN"):
        return 0
    if tag.startswith("VB") or tag == "MD":
        return 1
    if tag.startswith("JJ"):
        return 2
    if tag.startswith("RB") or tag == "RP":
        return 3
    if tag in ("DT", "PDT", "WDT"):
        return 4
    if tag in ("IN", "TO"):
        return 5
    if tag in ("PRP", "PRP$", "WP", "WP$", "EX"):
        return 6
    if tag == "CC":
        return 7
    if tag == "CD":
        return 8
    if not any(c.isalpha() for c in tag):
        return 9
    return 10


class TagLexicon:
    """Casefolded words and their tags, the most frequent first."""

    def __init__(self, entries: Mapping[str, Sequence[str]], name: str = NAME) -> None:
        self.entries = {w.casefold(): tuple(t) for w, t in entries.items() if t}
        self.name = name

    @classmethod
    def load(cls, folder: str | Path | None = None) -> TagLexicon | None:
        """The lexicon installed in ``folder`` (default: under ``resources_dir()``); None when
        absent."""
        found = resources.locate(PACKAGE, folder)
        if found is None:
            return None
        where, source = found
        entries = {}
        for line in (where / TAGS_FILE).read_text(encoding="utf-8").split("\n"):
            word, _, tags = line.partition("\t")
            if word and tags:
                entries[word] = tags.split("|")
        return cls(entries, resources.describe(source))

    def tags(self, word: str) -> tuple[str, ...]:
        """The tags of a word (casefolded), the most frequent first; () when unknown."""
        return self.entries.get(word.casefold(), ())

    def profile(self, word: str) -> np.ndarray:
        """A word's first tag's class (-1: unknown), then 1 for each ``COARSE`` class any of
        its tags is of."""
        out = np.zeros(1 + len(COARSE), dtype=np.float32)
        tags = self.tags(word)
        if not tags:
            out[0] = -1.0
            return out
        out[0] = coarse(tags[0])
        for tag in tags:
            out[1 + coarse(tag)] = 1.0
        return out


def tag_features(
    grid: CellGrid,
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    lexicon: TagLexicon,
) -> np.ndarray:
    """``TAG_NAMES`` for every cell of ``grid`` (the cells of ``pairs``), float32."""
    a, b = per_word(grid, pairs, lexicon.profile, 1 + len(COARSE))
    known = (a[:, 0] >= 0) & (b[:, 0] >= 0)
    same = np.where(known, (a[:, 0] == b[:, 0]).astype(np.float32), -1.0)
    shared = (a[:, 1:] * b[:, 1:]).sum(axis=1)
    either = np.maximum(a[:, 1:], b[:, 1:]).sum(axis=1)
    overlap = np.full(len(grid), -1.0, dtype=np.float32)
    np.divide(shared, either, out=overlap, where=known & (either > 0))
    return np.stack([a[:, 0], b[:, 0], same, overlap], axis=1).astype(np.float32, copy=False)


# -- installing ---------------------------------------------------------------------------


def read_package(archive: tarfile.TarFile, tarball: Path) -> dict[str, list[str]]:
    """Words and their tags from the package's ``dist/lexicon.js``: a JavaScript module whose
    one object literal, ``{"word": "TAG|TAG", ...}``, is JSON."""
    try:
        text = resources.member(archive, tarball, MEMBER).read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResourceError(f"{tarball}: {MEMBER} is not UTF-8 ({exc})") from exc
    start, end = text.find("{"), text.rfind("}")
    try:
        found = json.loads(text[start : end + 1]) if 0 <= start < end else None
    except ValueError as exc:
        raise ResourceError(f"{tarball}: {MEMBER}: its object is not JSON ({exc})") from exc
    if not isinstance(found, dict) or not found:
        raise ResourceError(f"{tarball}: {MEMBER} holds no lexicon object")
    for word, tags in found.items():
        if not isinstance(tags, str) or not tags or any(c in word for c in "\t\n"):
            raise ResourceError(f"{tarball}: {MEMBER}: the entry {word!r} is not word → tags")
    # the words as written in lower case: the tokens are looked up casefolded, and a word the
    # lexicon only has capitalised ("US", "Paris": NNP) stays unknown, as names are to WordNet
    # (capitalisation is a feature of its own; counting names as nouns did no better)
    return {w: tags.split("|") for w, tags in found.items() if w == w.casefold()}


def _write(archive: tarfile.TarFile, tarball: Path, folder: Path) -> dict[str, Any]:
    entries = read_package(archive, tarball)
    lines = (f"{word}\t{'|'.join(tags)}" for word, tags in entries.items())
    (folder / TAGS_FILE).write_text("\n".join(lines), encoding="utf-8")
    return {"words": len(entries)}


PACKAGE = NpmPackage(
    key="tags",
    package="en-lexicon",
    version="1.0.11",
    integrity=(
        "sha512-eanOw9551H6jMRpRK023+Nlss5qnuAi99drXcSUzQySsMrB43teDNbin/AbpOfnemQiTtuZChXYm2kEIR"
        "1Mhmg=="
    ),
    folder_name="en-lexicon-1.0.11",
    title=NAME,
    licence="MIT (en-lexicon, Alex Corvi)",
    files=(TAGS_FILE,),
    write=_write,
)
