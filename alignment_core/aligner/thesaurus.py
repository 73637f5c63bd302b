"""The Moby thesaurus as evidence for the supervised link model: which words, and which short
phrases, a thesaurus lists as saying the same thing ("died" / "passed away", "worried" /
"concerned").

The data is Grady Ward's Moby Thesaurus II (public domain; 30,195 head words and phrases,
2.5 million entries over 102,682 distinct words and phrases), as carried by the pinned npm
package ``moby@1.1.2`` (MIT; only its ``words.txt`` is read), installed by
``aligner.resources`` (``python -m alignment_core resources install``, which ``make setup``
runs) as a vocabulary and sorted entry arrays in ``<resources>/moby-thesaurus-ii``. Nothing
is fetched at run time: without it the link model goes without these features and records so
(``info["thesaurus"]``).

    thesaurus = Thesaurus.load()              # None when not installed
    thesaurus.related("died", "perished")     # True
    thesaurus_features(grid, pairs, thesaurus, wordnet)   # THESAURUS_NAMES per cell

Features of cell (i, j) (``THESAURUS_NAMES``), words casefolded, each also read through its
WordNet base form when a WordNet is given ("released" → "release"):

* ``thesaurus_related``: one word is listed under the other;
* ``thesaurus_row_phrase``: a phrase of 2–4 target words covering j is listed under the
  source word, or the source word under that phrase;
* ``thesaurus_column_phrase``: the same, a phrase of source words covering i and the target
  word.
"""

from __future__ import annotations

import tarfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from alignment_core.aligner import resources
from alignment_core.aligner.features import CellGrid
from alignment_core.aligner.resources import NpmPackage, ResourceError
from alignment_core.aligner.wordnet import WordNet, meets

NAME = "Moby Thesaurus II"
MEMBER = "package/words.txt"
TERMS_FILE, INDPTR_FILE, INDICES_FILE = "terms.txt", "indptr.npy", "indices.npy"
# Lengths of the phrases looked up (in words).
PHRASE_WORDS = (2, 4)

THESAURUS_NAMES = ("thesaurus_related", "thesaurus_row_phrase", "thesaurus_column_phrase")


class Thesaurus:
    """Head terms (casefolded words and phrases) and what is listed under each."""

    def __init__(
        self, terms: Sequence[str], indptr: np.ndarray, indices: np.ndarray, name: str = NAME
    ) -> None:
        if len(indptr) != len(terms) + 1 or int(indptr[-1]) != len(indices):
            raise ValueError("the entry arrays do not match the terms")
        self.index = {t: k for k, t in enumerate(terms)}
        self.indptr = indptr
        self.indices = indices
        self.name = name

    @classmethod
    def of(cls, entries: Mapping[str, Iterable[str]], name: str = NAME) -> Thesaurus:
        """A thesaurus from ``{head: [listed, ...]}`` (casefolded as when installed)."""
        return cls(*_csr((head, list(listed)) for head, listed in entries.items()), name)

    @classmethod
    def load(cls, folder: str | Path | None = None) -> Thesaurus | None:
        """The thesaurus installed in ``folder`` (default: under ``resources_dir()``); None
        when absent."""
        found = resources.locate(PACKAGE, folder)
        if found is None:
            return None
        where, source = found
        terms = (where / TERMS_FILE).read_text(encoding="utf-8").split("\n")
        indptr = np.load(where / INDPTR_FILE, allow_pickle=False)
        indices = np.load(where / INDICES_FILE, mmap_mode="r", allow_pickle=False)
        return cls(terms, indptr, indices, resources.describe(source))

    def entry(self, term: int) -> np.ndarray:
        """The sorted term ids listed under ``term`` (empty for a term that heads nothing)."""
        return self.indices[int(self.indptr[term]) : int(self.indptr[term + 1])]

    def lists(self, head: int, term: int) -> bool:
        entry = self.entry(head)
        k = int(np.searchsorted(entry, term))
        return k < len(entry) and int(entry[k]) == term

    def forms(self, word: str, wordnet: WordNet | None = None) -> list[int]:
        """Term ids of a word, casefolded, and of its WordNet base form."""
        w = word.casefold()
        found = {self.index.get(w, -1)}
        if wordnet is not None:
            found.add(self.index.get(wordnet.base_form(w), -1))
        return sorted(found - {-1})

    def related(self, a: str, b: str, wordnet: WordNet | None = None) -> bool:
        """Is one word (or phrase) listed under the other?"""
        fa, fb = self.forms(a, wordnet), self.forms(b, wordnet)
        return any(self.lists(x, y) or self.lists(y, x) for x in fa for y in fb)


def thesaurus_features(
    grid: CellGrid,
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    thesaurus: Thesaurus,
    wordnet: WordNet | None = None,
) -> np.ndarray:
    """``THESAURUS_NAMES`` for every cell of ``grid`` (the cells of ``pairs``), float32."""
    from scipy import sparse

    out = np.zeros((len(grid), len(THESAURUS_NAMES)), dtype=np.float32)
    if not len(grid):
        return out
    # word pairs: each word type's forms and the union of their entries as 0/1 rows over
    # term ids; "one listed under the other" is a non-zero in one sparse product
    types: dict[str, int] = {}
    src = np.array([types.setdefault(w.casefold(), len(types)) for s, _ in pairs for w in s])
    tgt = np.array([types.setdefault(w.casefold(), len(types)) for _, t in pairs for w in t])
    forms = [thesaurus.forms(w, wordnet) for w in types]
    listed = [
        np.unique(np.concatenate([thesaurus.entry(f) for f in fs])) if fs else () for fs in forms
    ]
    width = len(thesaurus.index)

    def rows(sets: Sequence[Any]) -> Any:
        r = np.repeat(np.arange(len(sets)), [len(x) for x in sets])
        c = np.concatenate([np.asarray(x, dtype=np.int64) for x in sets]) if len(r) else r
        return sparse.csr_matrix((np.ones(len(r), np.float32), (r, c)), (len(sets), width))

    out[:, 0] = meets(rows(listed), rows(forms), src[grid.row], tgt[grid.col], either_way=True)
    # phrases: a few spans per sentence are terms; each is checked against the other side's
    # words, with the entries met read once into sets
    under: dict[int, frozenset[int]] = {}

    def listed_under(term: int) -> frozenset[int]:
        found = under.get(term)
        if found is None:
            found = under[term] = frozenset(thesaurus.entry(term).tolist())
        return found

    for n, (s, t) in enumerate(pairs):
        lo, hi = int(grid.offsets[n]), int(grid.offsets[n + 1])
        if hi == lo:
            continue
        cells = out[lo:hi].reshape(len(s), len(t), len(THESAURUS_NAMES))
        for words, other, column in ((t, s, 1), (s, t, 2)):
            for a, b, phrase in _phrases(words, thesaurus):
                below = listed_under(phrase)
                for k, fs in enumerate(forms[types[w.casefold()]] for w in other):
                    if any(f in below or phrase in listed_under(f) for f in fs):
                        if column == 1:
                            cells[k, a:b, 1] = 1.0
                        else:
                            cells[a:b, k, 2] = 1.0
    return out


def _phrases(words: Sequence[str], thesaurus: Thesaurus):
    """(start, end, term id) of the spans of ``PHRASE_WORDS`` words that are terms."""
    low, high = PHRASE_WORDS
    folded = [w.casefold() for w in words]
    for a in range(len(words)):
        for b in range(a + low, min(len(words), a + high) + 1):
            term = thesaurus.index.get(" ".join(folded[a:b]))
            if term is not None:
                yield a, b, term


# -- installing ---------------------------------------------------------------------------


def read_package(
    archive: tarfile.TarFile, tarball: Path
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Terms, and the CSR arrays of what is listed under each, from the package's tarball.
    Each line of ``words.txt`` is a head term and, comma-separated, the terms listed under it;
    a head met twice keeps both lists."""
    try:
        text = resources.member(archive, tarball, MEMBER).read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResourceError(f"{tarball}: {MEMBER} is not UTF-8 ({exc})") from exc
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        parts = [p.strip() for p in line.split(",")]
        parts = [p for p in parts if p]
        if not parts:
            continue
        if len(parts) < 2:
            raise ResourceError(f"{tarball}: {MEMBER} line {number}: a head with nothing listed")
        rows.append((parts[0], parts[1:]))
    if not rows:
        raise ResourceError(f"{tarball}: {MEMBER} lists nothing")
    return _csr(rows)


def _csr(rows: Iterable[tuple[str, Sequence[str]]]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Terms (casefolded, in order of appearance) and, per term, the sorted ids of the terms
    listed under it, as CSR arrays; a head met twice keeps both lists."""
    ids: dict[str, int] = {}
    heads: dict[int, set[int]] = {}
    for head, listed in rows:
        h = ids.setdefault(head.casefold(), len(ids))
        heads.setdefault(h, set()).update(ids.setdefault(w.casefold(), len(ids)) for w in listed)
    sizes = np.zeros(len(ids), dtype=np.int64)
    for head, listed in heads.items():
        sizes[head] = len(listed)
    indptr = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    for head, listed in heads.items():
        indices[indptr[head] : indptr[head + 1]] = sorted(listed)
    return list(ids), indptr, indices


def _write(archive: tarfile.TarFile, tarball: Path, folder: Path) -> dict[str, Any]:
    terms, indptr, indices = read_package(archive, tarball)
    (folder / TERMS_FILE).write_text("\n".join(terms), encoding="utf-8")
    np.save(folder / INDPTR_FILE, indptr, allow_pickle=False)
    np.save(folder / INDICES_FILE, indices, allow_pickle=False)
    return {
        "terms": len(terms),
        "heads": int(np.count_nonzero(np.diff(indptr))),
        "entries": len(indices),
    }


PACKAGE = NpmPackage(
    key="thesaurus",
    package="moby",
    version="1.1.2",
    integrity=(
        "sha512-1tFwOBa+vg02pjXAlyrOFRVTmXrhwNh5Eo+MldHRLT/pnpibe6B03jQYv9KKmv1WrGbBh0VPt7MqT+Y8"
        "geqoCg=="
    ),
    folder_name="moby-thesaurus-ii",
    title=NAME,
    licence="Moby Thesaurus II: public domain (Grady Ward); the npm package: MIT",
    files=(TERMS_FILE, INDPTR_FILE, INDICES_FILE),
    write=_write,
)
