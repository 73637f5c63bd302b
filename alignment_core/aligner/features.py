"""Per-cell features for the supervised link model (``link_model``), computed with numpy over
the whole corpus at once (no Python loop over cells).

Every cell (i, j) of every pair (source word i, target word j) becomes one row of
``FEATURE_NAMES``. The cells of a corpus are laid out pair after pair, each pair's N×M grid
row-major (cell (i, j) of pair n at ``offsets[n] + i·M + j``), the layout of
``AlignerModel.directional_posteriors``.

Inputs besides the tokens are the unsupervised HMM's evidence: both directions' posteriors
and Viterbi alignments. Word statistics (frequency) come from a ``TokenStats`` built on the
training corpus, so a model applies to new pairs with the same scale.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# Longest prefix and spelling compared (characters); longer words are cut.
MAX_CHARS = 12
# Cells around (i, j) whose posteriors are features: (di, dj).
NEIGHBOURS = ((-1, -1), (1, 1), (-1, 0), (1, 0), (0, -1), (0, 1), (-1, 1), (1, -1))

FEATURE_NAMES = (
    "post_forward",
    "post_backward",
    "post_mean",
    "post_min",
    "viterbi_forward",
    "viterbi_backward",
    "viterbi_both",
    "identical",
    "identical_casefold",
    "prefix_chars",
    "prefix_ratio",
    "edit_similarity",
    "position_diff",
    "position_diff_abs",
    "source_punct",
    "target_punct",
    "source_log_freq",
    "target_log_freq",
    "source_chars",
    "target_chars",
    "source_length",
    "target_length",
    *(f"post_mean_{di:+d}_{dj:+d}" for di, dj in NEIGHBOURS),
    "identical_prev_diagonal",
    "identical_next_diagonal",
    "row_max_other",
    "column_max_other",
    "row_sum",
    "column_sum",
    "row_has_identical",
    "column_has_identical",
    "source_capital",
    "target_capital",
    "source_digit",
    "target_digit",
    "source_repeats",
    "target_repeats",
    "row_identical_count",
    "column_identical_count",
    "occurrence_gap",
)
_COLUMN = {name: k for k, name in enumerate(FEATURE_NAMES)}

# Second-stage features: the first stage's link probabilities around each cell.
CONTEXT_NAMES = (
    "stage1",
    *(f"stage1_{di:+d}_{dj:+d}" for di, dj in NEIGHBOURS),
    "stage1_row_max_other",
    "stage1_column_max_other",
    "stage1_row_sum",
    "stage1_column_sum",
)
# The richer context (``LinkModelConfig.context == "rich"``) adds: the cell's rank in its row
# and column by the first stage's probability (0: the best), whether both cells of each
# diagonal are likely links (their smaller probability: the cell inside a phrase block), and
# how far the cell lies from where its neighbouring rows' (columns') best links say it should
# (``_jumps``: of two repeats of a word, the one in line with its neighbours' links).
RICH_CONTEXT_NAMES = (
    *CONTEXT_NAMES,
    "stage1_row_rank",
    "stage1_column_rank",
    "stage1_diagonal_min",
    "stage1_antidiagonal_min",
    "stage1_row_jump",
    "stage1_column_jump",
)
# A neighbouring row's best cell counts as its link (``_jumps``) from this probability.
JUMP_LINK = 0.5
# The jump of a cell whose neighbouring rows (columns) have no likely link, and the cap of
# every jump and rank: farther than this says nothing more.
FAR = 9.0


@dataclass
class CellGrid:
    """Flat cell coordinates of a corpus: for each cell its pair, i, j and its pair's N, M."""

    offsets: np.ndarray  # n_pairs + 1 cell offsets
    pair: np.ndarray
    i: np.ndarray
    j: np.ndarray
    n: np.ndarray
    m: np.ndarray
    row: np.ndarray  # the cell's source token, numbered over the corpus
    col: np.ndarray  # its target token, numbered over the corpus
    n_rows: int
    n_cols: int

    @classmethod
    def of(cls, shapes: Sequence[tuple[int, int]]) -> CellGrid:
        sizes = np.array([n * m for n, m in shapes], dtype=np.int64).reshape(-1)
        offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        rows = np.array([n for n, _ in shapes], dtype=np.int64).reshape(-1)
        cols = np.array([m for _, m in shapes], dtype=np.int64).reshape(-1)
        pair = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
        local = np.arange(int(offsets[-1]), dtype=np.int64) - offsets[pair]
        m = cols[pair]
        i, j = local // np.maximum(m, 1), local % np.maximum(m, 1)
        src_off = np.concatenate([[0], np.cumsum(rows)]).astype(np.int64)
        tgt_off = np.concatenate([[0], np.cumsum(cols)]).astype(np.int64)
        return cls(
            offsets,
            pair,
            i,
            j,
            rows[pair],
            m,
            src_off[pair] + i,
            tgt_off[pair] + j,
            int(src_off[-1]),
            int(tgt_off[-1]),
        )

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def shift(self, values: np.ndarray, di: int, dj: int, fill: float = 0.0) -> np.ndarray:
        """``values`` (one per cell) read at (i + di, j + dj) of the same pair, ``fill`` outside."""
        ii, jj = self.i + di, self.j + dj
        inside = (ii >= 0) & (ii < self.n) & (jj >= 0) & (jj < self.m)
        idx = np.where(inside, np.arange(len(self)) + di * self.m + dj, 0)
        out = np.full(len(self), fill, dtype=values.dtype)
        out[inside] = values[idx[inside]]
        return out


def per_word(
    grid: CellGrid,
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    profile: Callable[[str], np.ndarray],
    width: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Per cell of ``grid`` (the cells of ``pairs``), ``profile`` (``width`` float32 values
    of a casefolded word, computed once per word type) of its source word and of its target
    word."""
    types: dict[str, int] = {}
    src = np.array(
        [types.setdefault(w.casefold(), len(types)) for s, _ in pairs for w in s], dtype=np.int64
    )
    tgt = np.array(
        [types.setdefault(w.casefold(), len(types)) for _, t in pairs for w in t], dtype=np.int64
    )
    profiles = np.zeros((len(types), width), dtype=np.float32)
    for word, k in types.items():
        profiles[k] = profile(word)
    return profiles[src[grid.row]], profiles[tgt[grid.col]]


def casefold(token: str) -> str:
    return token.casefold()


def is_punctuation(token: str) -> bool:
    return bool(token) and all(unicodedata.category(c)[0] in "PS" for c in token)


def count_tokens(counts: dict[str, int], source: Sequence[str], target: Sequence[str]) -> None:
    """Add one pair's casefolded words to ``counts`` (``TokenStats``'s, in first-seen order)."""
    for w in (*source, *target):
        key = casefold(w)
        counts[key] = counts.get(key, 0) + 1


class TokenStats:
    """Casefolded word counts of a corpus (the frequency features' scale)."""

    def __init__(self, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> None:
        counts: dict[str, int] = {}
        for source, target in pairs:
            count_tokens(counts, source, target)
        self._use(counts)

    @classmethod
    def of_counts(cls, counts: dict[str, int]) -> TokenStats:
        """The statistics of a corpus whose pairs ``count_tokens`` counted into ``counts`` as
        they streamed by, in order (the same as ``TokenStats(pairs)``)."""
        stats = cls.__new__(cls)
        stats._use(counts)
        return stats

    def _use(self, counts: dict[str, int]) -> None:
        self.counts = counts
        self.index = {w: k for k, w in enumerate(counts)}

    def word_ids(
        self, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Casefolded word ids of every source token and every target token of ``pairs``
        (numbered over the corpus as ``CellGrid.row`` / ``col``); -1 for an unknown word."""
        get = self.index.get
        src = np.array([get(casefold(w), -1) for s, _ in pairs for w in s], dtype=np.int64)
        tgt = np.array([get(casefold(w), -1) for _, t in pairs for w in t], dtype=np.int64)
        return src, tgt

    def log_freq(self, words: Sequence[str]) -> np.ndarray:
        return np.array([math.log1p(self.counts.get(w, 0)) for w in words], dtype=np.float64)


class _Types:
    """The distinct tokens of a corpus with their per-type properties."""

    def __init__(self, tokens: list[str], stats: TokenStats) -> None:
        exact = {}
        ids = np.empty(len(tokens), dtype=np.int64)
        for k, w in enumerate(tokens):
            ids[k] = exact.setdefault(w, len(exact))
        words = list(exact)
        folded: dict[str, int] = {}
        fold_of_type = np.array(
            [folded.setdefault(casefold(w), len(folded)) for w in words], dtype=np.int64
        )
        self.exact = ids
        self.capital = np.array([w[:1].isupper() for w in words], dtype=np.float64)
        self.digit = np.array([any(c.isdigit() for c in w) for w in words], dtype=np.float64)
        self.folded = fold_of_type[ids]
        fwords = list(folded)
        self.fold_words = fwords
        self.punct = np.array([is_punctuation(w) for w in fwords], dtype=np.float64)
        self.chars = np.array([len(w) for w in fwords], dtype=np.int64)
        self.log_freq = stats.log_freq(fwords)
        codes = np.zeros((len(fwords), MAX_CHARS), dtype=np.int64)
        for k, w in enumerate(fwords):
            cut = w[:MAX_CHARS]
            codes[k, : len(cut)] = [ord(c) for c in cut]
        self.codes = codes


def _occurrences(folded: np.ndarray, shapes) -> tuple[np.ndarray, np.ndarray]:
    """Per token (sources then targets): which occurrence of its word in its sentence it is
    (0, 1, ...) and how many times the word occurs there."""
    occurrence = np.zeros(len(folded))
    repeats = np.zeros(len(folded))
    lengths = [n for n, _ in shapes] + [m for _, m in shapes]
    start = 0
    for length in lengths:
        seen: dict[int, int] = {}
        for k in range(start, start + length):
            w = int(folded[k])
            occurrence[k] = seen.get(w, 0)
            seen[w] = seen.get(w, 0) + 1
        for k in range(start, start + length):
            repeats[k] = seen[int(folded[k])]
        start += length
    return occurrence, repeats


def _levenshtein(a: np.ndarray, la: np.ndarray, b: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """Edit distances of many word pairs at once: rows of ``a`` (lengths ``la``) against rows
    of ``b`` (``lb``), char codes padded to the same width (a compiled kernel)."""
    from alignment_core.aligner._kernels import get_kernels

    out = np.zeros(len(a), dtype=np.int64)
    get_kernels().edit_distances(
        np.ascontiguousarray(a, dtype=np.int64),
        np.asarray(la, dtype=np.int64),
        np.ascontiguousarray(b, dtype=np.int64),
        np.asarray(lb, dtype=np.int64),
        out,
    )
    return out


def _spelling(types: _Types, src_fold: np.ndarray, tgt_fold: np.ndarray):
    """Common-prefix length and edit similarity for every cell, computed once per distinct
    (source word, target word) pair."""
    n_types = len(types.fold_words)
    key = src_fold * n_types + tgt_fold
    uniq, inverse = np.unique(key, return_inverse=True)
    s, t = uniq // n_types, uniq % n_types
    a, b = types.codes[s], types.codes[t]
    la = np.minimum(types.chars[s], MAX_CHARS)
    lb = np.minimum(types.chars[t], MAX_CHARS)
    same = np.cumprod(a == b, axis=1)
    prefix = np.minimum(same.sum(axis=1), np.minimum(la, lb))
    dist = _levenshtein(a, la, b, lb)
    longest = np.maximum(np.maximum(la, lb), 1)
    similarity = 1.0 - dist / longest
    return prefix[inverse].astype(np.float64), similarity[inverse]


def _max_other(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """For each cell, the largest value among the other cells of its group (row or column)."""
    first = np.full(n_groups, -np.inf)
    np.maximum.at(first, group, values)
    is_first = values >= first[group]
    # the runner-up: the group's max with (one of) its maximal cells removed
    masked = np.where(is_first, -np.inf, values)
    second = np.full(n_groups, -np.inf)
    np.maximum.at(second, group, masked)
    ties = np.bincount(group[is_first], minlength=n_groups)
    runner_up = np.where(ties > 1, first, second)
    out = np.where(is_first, runner_up[group], first[group])
    return np.where(np.isfinite(out), out, 0.0)


def cell_features(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    forward: Sequence[np.ndarray],
    backward: Sequence[np.ndarray],
    forward_states: Sequence[np.ndarray],
    backward_states: Sequence[np.ndarray],
    stats: TokenStats,
) -> tuple[np.ndarray, CellGrid]:
    """The feature matrix (cells × ``FEATURE_NAMES``, float32) and the cells' grid.

    ``forward[n]``/``backward[n]``: pair n's N×M posteriors of each direction;
    ``forward_states[n][j]``: the source position of target word j in the forward Viterbi
    alignment (-1 = NULL), ``backward_states[n][i]`` the target position of source word i.
    """
    shapes = [(len(s), len(t)) for s, t in pairs]
    for n, ((rows, cols), f, b) in enumerate(zip(shapes, forward, backward, strict=True)):
        if f.shape != (rows, cols) or b.shape != (rows, cols):
            raise ValueError(
                f"pair {n}: posteriors {f.shape}/{b.shape} do not match {rows}×{cols} tokens"
            )
    grid = CellGrid.of(shapes)
    if len(grid) == 0:
        return np.zeros((0, len(FEATURE_NAMES)), dtype=np.float32), grid
    tokens = [w for s, _ in pairs for w in s] + [w for _, t in pairs for w in t]
    words = _CellWords.of(grid, _Types(tokens, stats))
    evidence, mean = _evidence_columns(grid, forward, backward, forward_states, backward_states)
    columns = [
        *evidence,
        *_word_columns(grid, words),
        *_surrounding_columns(grid, words, mean, shapes),
    ]
    # written column by column into the float32 matrix (as ``column_stack`` then ``astype``
    # would give it, without the float64 matrix between)
    out = np.empty((len(grid), len(columns)), dtype=np.float32)
    for k, column in enumerate(columns):
        out[:, k] = column
    return out, grid


@dataclass
class _CellWords:
    """Each cell's two words as type ids: exact (``s_exact``, ``t_exact``) and casefolded
    (``s_fold``, ``t_fold``), and whether they are the same casefolded (``ident_fold``)."""

    types: _Types
    s_exact: np.ndarray
    t_exact: np.ndarray
    s_fold: np.ndarray
    t_fold: np.ndarray
    ident_fold: np.ndarray

    @classmethod
    def of(cls, grid: CellGrid, types: _Types) -> _CellWords:
        n_src_tokens, row, col = grid.n_rows, grid.row, grid.col
        s_fold, t_fold = types.folded[row], types.folded[n_src_tokens + col]
        ident_fold = (s_fold == t_fold).astype(np.float64)
        exact = types.exact
        return cls(types, exact[row], exact[n_src_tokens + col], s_fold, t_fold, ident_fold)


def _evidence_columns(grid, forward, backward, forward_states, backward_states):
    """The HMM's columns (both directions' posteriors, their mean and minimum, both Viterbi
    links and their intersection), and the mean posterior."""
    pf = np.concatenate([np.asarray(f, dtype=np.float64).ravel() for f in forward])
    pb = np.concatenate([np.asarray(b, dtype=np.float64).ravel() for b in backward])
    fstates = np.concatenate([np.asarray(s, dtype=np.int64) for s in forward_states])
    bstates = np.concatenate([np.asarray(s, dtype=np.int64) for s in backward_states])
    vf = (fstates[grid.col] == grid.i).astype(np.float64)
    vb = (bstates[grid.row] == grid.j).astype(np.float64)
    mean = 0.5 * (pf + pb)
    return [pf, pb, mean, np.minimum(pf, pb), vf, vb, vf * vb], mean


def _word_columns(grid: CellGrid, words: _CellWords) -> list[np.ndarray]:
    """The cell's own words: identity, spelling, position, punctuation, frequency, lengths
    (of the words and of the sentences)."""
    types, s_fold, t_fold = words.types, words.s_fold, words.t_fold
    prefix, similarity = _spelling(types, s_fold, t_fold)
    shorter = np.maximum(np.minimum(types.chars[s_fold], types.chars[t_fold]), 1)
    position = (grid.i + 0.5) / grid.n - (grid.j + 0.5) / grid.m
    return [
        (words.s_exact == words.t_exact).astype(np.float64),
        words.ident_fold,
        prefix,
        prefix / shorter,
        similarity,
        position,
        np.abs(position),
        types.punct[s_fold],
        types.punct[t_fold],
        types.log_freq[s_fold],
        types.log_freq[t_fold],
        types.chars[s_fold].astype(np.float64),
        types.chars[t_fold].astype(np.float64),
        grid.n.astype(np.float64),
        grid.m.astype(np.float64),
    ]


def _surrounding_columns(grid: CellGrid, words: _CellWords, mean, shapes) -> list[np.ndarray]:
    """The cell's surroundings: its neighbours' mean posteriors and identities, the best
    competitor and the sums of its row and column, identical words in its row and column,
    capitals and digits, and how often a word recurs in its sentence."""
    types, ident_fold, row, col = words.types, words.ident_fold, grid.row, grid.col
    n_rows, n_cols, n_src_tokens = grid.n_rows, grid.n_cols, grid.n_rows
    row_ident_n = np.bincount(row, weights=ident_fold, minlength=n_rows)[row]
    col_ident_n = np.bincount(col, weights=ident_fold, minlength=n_cols)[col]
    occurrence, repeats = _occurrences(types.folded, shapes)
    return [
        *(grid.shift(mean, di, dj) for di, dj in NEIGHBOURS),
        grid.shift(ident_fold, -1, -1),
        grid.shift(ident_fold, 1, 1),
        _max_other(mean, row, n_rows),
        _max_other(mean, col, n_cols),
        np.bincount(row, weights=mean, minlength=n_rows)[row],
        np.bincount(col, weights=mean, minlength=n_cols)[col],
        (row_ident_n > 0).astype(np.float64),
        (col_ident_n > 0).astype(np.float64),
        types.capital[words.s_exact],
        types.capital[words.t_exact],
        types.digit[words.s_exact],
        types.digit[words.t_exact],
        repeats[row],
        repeats[n_src_tokens + col],
        row_ident_n,
        col_ident_n,
        np.where(ident_fold > 0, np.abs(occurrence[row] - occurrence[n_src_tokens + col]), -1.0),
    ]


def candidate_cells(X: np.ndarray) -> np.ndarray:
    """Cells worth classifying (bool per row of ``X``): either direction's posterior ≥ 0.001,
    identical words, similar spelling (edit similarity ≥ 0.5) or a neighbour with posterior
    ≥ 0.3. The rest (~3/4 of Edinburgh++'s cells, holding ~6 % of its gold links, nearly all
    out of any model's reach) are never linked: the classifiers train and run 4× faster."""
    c = _COLUMN
    neighbours = X[:, [c[f"post_mean_{di:+d}_{dj:+d}"] for di, dj in NEIGHBOURS]].max(axis=1)
    return (
        (X[:, c["post_forward"]] >= 0.001)
        | (X[:, c["post_backward"]] >= 0.001)
        | (X[:, c["identical_casefold"]] > 0)
        | (X[:, c["edit_similarity"]] >= 0.5)
        | (neighbours >= 0.3)
    )


def context_features(probability: np.ndarray, grid: CellGrid, rich: bool = False) -> np.ndarray:
    """``CONTEXT_NAMES`` (``rich``: ``RICH_CONTEXT_NAMES``) for every cell from a first
    stage's link probability per cell."""
    q = np.asarray(probability, dtype=np.float64)
    columns = [
        q,
        *(grid.shift(q, di, dj) for di, dj in NEIGHBOURS),
        _max_other(q, grid.row, grid.n_rows),
        _max_other(q, grid.col, grid.n_cols),
        np.bincount(grid.row, weights=q, minlength=grid.n_rows)[grid.row],
        np.bincount(grid.col, weights=q, minlength=grid.n_cols)[grid.col],
    ]
    if rich and len(q):
        columns += [
            _rank(q, grid.row),
            _rank(q, grid.col),
            np.minimum(grid.shift(q, -1, -1), grid.shift(q, 1, 1)),
            np.minimum(grid.shift(q, -1, 1), grid.shift(q, 1, -1)),
            *_jumps(q, grid),
        ]
    return np.column_stack(columns).astype(np.float32)


def _rank(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Each cell's rank in its group (row or column) by ``values``, 0 for the largest (ties
    in cell order), capped at ``FAR``."""
    order = np.lexsort((-values, group))
    sorted_groups = group[order]
    rank = np.empty(len(values))
    rank[order] = np.arange(len(values)) - np.searchsorted(sorted_groups, sorted_groups)
    return np.minimum(rank, FAR)


def _best(values: np.ndarray, group: np.ndarray, at: np.ndarray, n_groups: int):
    """Per group: its largest value and the ``at`` (a position) of a cell holding it (the
    last in cell order on ties; -1 for an empty group)."""
    best = np.full(n_groups, -np.inf)
    np.maximum.at(best, group, values)
    holder = values >= best[group]
    where = np.full(n_groups, -1, dtype=np.int64)
    where[group[holder]] = at[holder]
    return best, where


def _jumps(q: np.ndarray, grid: CellGrid) -> list[np.ndarray]:
    """Per cell (i, j): how far j lies from the column that row i − 1's best link (j' + 1)
    and row i + 1's (j' − 1) predict, the nearer of the two, counting a row's best cell as a
    link from ``JUMP_LINK``; and the same along columns. ``FAR`` when no neighbouring row
    (column) has a likely link."""
    out = []
    for group, n_groups, own, other, size in (
        (grid.row, grid.n_rows, grid.i, grid.j, grid.n),
        (grid.col, grid.n_cols, grid.j, grid.i, grid.m),
    ):
        best, where = _best(q, group, other, n_groups)
        jump = np.full(len(q), FAR)
        for step in (-1, 1):
            inside = (own + step >= 0) & (own + step < size)
            neighbour = np.where(inside, group + step, 0)
            linked = inside & (best[neighbour] >= JUMP_LINK)
            expected = where[neighbour] - step
            jump = np.where(linked, np.minimum(jump, np.abs(other - expected)), jump)
        out.append(np.minimum(jump, FAR))
    return out


# Spelling that survives misspellings (``spelling_features``): the Dice overlap of the two
# words' character trigrams, and their common suffix against the shorter word.
SPELLING_NAMES = ("trigram_dice", "suffix_ratio")
# Bits of a word's trigram signature (``_trigram_signatures``): 16 × 64, so two words with no
# trigram in common rarely share a bit (a 10-trigram word sets ~1 % of them).
_SIGNATURE_WORDS = 16
# Word pairs whose signatures are compared at once (bounded memory: 128 bytes a word).
_SIGNATURE_CHUNK = 65536


def _trigram_signatures(words: Sequence[str]) -> np.ndarray:
    """Per word: its character trigrams (the word padded with "#" at both ends, so a short
    word has some) hashed into ``_SIGNATURE_WORDS`` × 64 bits by BLAKE2 (the same bits in
    every process, unlike ``hash``; CRC-32 is linear: "#re" and "ed#" shared a bit)."""
    width = 64 * _SIGNATURE_WORDS
    raw, bit_of = bytearray(), {}
    for word in words:
        padded, mask = f"#{word}#", 0
        for start in range(max(len(padded) - 2, 1)):
            gram = padded[start : start + 3]
            bit = bit_of.get(gram)
            if bit is None:
                digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=4).digest()
                bit = bit_of[gram] = 1 << (int.from_bytes(digest, "little") % width)
            mask |= bit
        raw += mask.to_bytes(width // 8, "little")
    return np.frombuffer(bytes(raw), dtype="<u8").reshape(len(words), _SIGNATURE_WORDS)


def spelling_features(grid: CellGrid, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]):
    """``SPELLING_NAMES`` per cell of ``pairs`` (casefolded words): a misspelt or inflected
    word ("recieved", "received") keeps most of its trigrams and often its ending where its
    prefix and edit similarity (cut at ``MAX_CHARS``) say less."""
    types: dict[str, int] = {}
    src = [types.setdefault(w.casefold(), len(types)) for s, _ in pairs for w in s]
    tgt = [types.setdefault(w.casefold(), len(types)) for _, t in pairs for w in t]
    if not len(grid):
        return np.zeros((0, len(SPELLING_NAMES)), dtype=np.float32)
    words = list(types)
    signatures = _trigram_signatures(words)
    bits = np.bitwise_count(signatures).sum(axis=1).astype(np.float64)
    reversed_codes = np.zeros((len(words), MAX_CHARS), dtype=np.int64)
    lengths = np.array([min(len(w), MAX_CHARS) for w in words], dtype=np.int64)
    for k, w in enumerate(words):
        cut = w[::-1][:MAX_CHARS]
        reversed_codes[k, : len(cut)] = [ord(c) for c in cut]
    # once per distinct (source word, target word) pair
    keys = np.asarray(src)[grid.row] * len(words) + np.asarray(tgt)[grid.col]
    uniq, inverse = np.unique(keys, return_inverse=True)
    a, b = uniq // len(words), uniq % len(words)
    common = np.concatenate(
        [
            np.bitwise_count(
                signatures[a[k : k + _SIGNATURE_CHUNK]] & signatures[b[k : k + _SIGNATURE_CHUNK]]
            ).sum(axis=1)
            for k in range(0, len(uniq), _SIGNATURE_CHUNK)
        ]
    )
    dice = 2.0 * common / np.maximum(bits[a] + bits[b], 1.0)
    shorter = np.minimum(lengths[a], lengths[b])
    suffix = np.cumprod(reversed_codes[a] == reversed_codes[b], axis=1).sum(axis=1)
    suffix = np.minimum(suffix, shorter) / np.maximum(shorter, 1)
    return np.column_stack([dice, suffix])[inverse].astype(np.float32)


LEXICON_NAMES = ("gold_pair_rate", "gold_pair_seen", "gold_source_rate", "gold_target_rate")


class GoldLexicon:
    """What the annotators did with these words before, counted on gold pairs: for each
    (source word, target word) pair (casefolded) how often its cells were linked, and for
    each word how often its tokens had any link. Rates are smoothed towards the overall rate
    with one pseudo-observation, so a pair seen once says little."""

    def __init__(
        self,
        grid: CellGrid,
        src_words: np.ndarray,
        tgt_words: np.ndarray,
        linked: np.ndarray,
        cells: np.ndarray,
        n_words: int,
    ) -> None:
        """``cells``: which cells of ``grid`` (bool) are gold to count; ``linked`` their labels."""
        counts = LexiconCounts(n_words)
        counts.add(grid, src_words, tgt_words, linked, cells)
        self._take(counts)

    @classmethod
    def of_counts(cls, counts: LexiconCounts) -> GoldLexicon:
        """The lexicon of what ``counts`` counted (pairs added a block at a time)."""
        lexicon = cls.__new__(cls)
        lexicon._take(counts)
        return lexicon

    def _take(self, counts: LexiconCounts) -> None:
        self.n_words = counts.n_words
        self.keys, self.pair_seen, self.pair_linked = counts.word_pairs()
        self.cell_rate = counts.linked_cells / counts.cells if counts.cells else 0.0
        self.src, self.tgt = counts.src.rates(), counts.tgt.rates()

    def _keys(self, grid: CellGrid, src_words: np.ndarray, tgt_words: np.ndarray) -> np.ndarray:
        return word_pair_keys(grid, src_words, tgt_words, self.n_words)

    # what the lexicon is, as arrays (``arrays``, ``of_arrays``: a model saved to files)
    _ARRAYS = ("keys", "pair_seen", "pair_linked", "src", "tgt")

    def arrays(self) -> dict[str, np.ndarray]:
        """The lexicon as named arrays, read back by ``of_arrays``."""
        out = {name: getattr(self, name) for name in self._ARRAYS}
        return {**out, "n_words": np.asarray(self.n_words), "cell_rate": np.asarray(self.cell_rate)}

    @classmethod
    def of_arrays(cls, arrays: dict[str, np.ndarray]) -> GoldLexicon:
        lexicon = cls.__new__(cls)
        for name in cls._ARRAYS:
            setattr(lexicon, name, arrays[name])
        lexicon.n_words, lexicon.cell_rate = int(arrays["n_words"]), float(arrays["cell_rate"])
        return lexicon

    def features(self, grid: CellGrid, src_words: np.ndarray, tgt_words: np.ndarray):
        """``LEXICON_NAMES`` for every cell of ``grid`` (float32)."""
        keys = self._keys(grid, src_words, tgt_words)
        pos = np.searchsorted(self.keys, keys)
        pos = np.minimum(pos, max(len(self.keys) - 1, 0))
        found = (keys >= 0) & (len(self.keys) > 0)
        if len(self.keys):
            found &= self.keys[pos] == keys
        seen = np.where(found, self.pair_seen[pos] if len(self.keys) else 0.0, 0.0)
        hits = np.where(found, self.pair_linked[pos] if len(self.keys) else 0.0, 0.0)
        s, t = src_words[grid.row], tgt_words[grid.col]
        src_rate = np.where(s >= 0, self.src[np.maximum(s, 0)], np.nan)
        tgt_rate = np.where(t >= 0, self.tgt[np.maximum(t, 0)], np.nan)
        return np.column_stack(
            [(hits + self.cell_rate) / (seen + 1.0), np.log1p(seen), src_rate, tgt_rate]
        ).astype(np.float32)


def word_pair_keys(grid: CellGrid, src_words: np.ndarray, tgt_words: np.ndarray, n_words: int):
    """Per cell of ``grid``: its (source word, target word) pair as one number, -1 when a word
    is unknown."""
    s, t = src_words[grid.row], tgt_words[grid.col]
    return np.where((s >= 0) & (t >= 0), s * n_words + t, -1)


class LexiconCounts:
    """The counts a ``GoldLexicon`` is made of, added a block of pairs at a time (``add``), so
    that counting the model's own links on every pair of a big corpus never holds all their
    cells at once. Every count is a whole number, so the lexicon is the same, bit for bit,
    however the pairs were cut into blocks."""

    def __init__(self, n_words: int) -> None:
        self.n_words = max(n_words, 1)
        self._keys: list[np.ndarray] = []
        self._seen: list[np.ndarray] = []
        self._linked: list[np.ndarray] = []
        self.cells = self.linked_cells = 0
        self.src, self.tgt = _WordCounts(self.n_words), _WordCounts(self.n_words)

    def add(
        self,
        grid: CellGrid,
        src_words: np.ndarray,
        tgt_words: np.ndarray,
        linked: np.ndarray,
        cells: np.ndarray,
    ) -> None:
        """Count the ``cells`` (bool) of ``grid``, labelled ``linked``."""
        keys = word_pair_keys(grid, src_words, tgt_words, self.n_words)[cells]
        label = linked[cells]
        unique, inverse = np.unique(keys, return_inverse=True)
        self._keys.append(unique)
        self._seen.append(np.bincount(inverse, minlength=len(unique)).astype(np.float64))
        self._linked.append(np.bincount(inverse, weights=label, minlength=len(unique)))
        self.cells += len(label)
        self.linked_cells += int(np.count_nonzero(label))
        used_linked = linked & cells
        self.src.add(src_words, grid.row, grid.n_rows, cells, used_linked)
        self.tgt.add(tgt_words, grid.col, grid.n_cols, cells, used_linked)

    def word_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct word pairs counted (sorted), how many cells each had, how many linked."""
        if len(self._keys) == 1:
            return self._keys[0], self._seen[0], self._linked[0]
        if not self._keys:
            return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
        keys, inverse = np.unique(np.concatenate(self._keys), return_inverse=True)
        seen = np.bincount(inverse, weights=np.concatenate(self._seen), minlength=len(keys))
        linked = np.bincount(inverse, weights=np.concatenate(self._linked), minlength=len(keys))
        return keys, seen, linked


class _WordCounts:
    """Per word of one side: its tokens counted (in a counted cell) and those with a link."""

    def __init__(self, n_words: int) -> None:
        self.seen = np.zeros(n_words)
        self.hits = np.zeros(n_words)
        self.used = self.used_linked = 0

    def add(self, words, token_of_cell, n_tokens: int, cells, linked_cells) -> None:
        linked = np.bincount(token_of_cell, weights=linked_cells, minlength=n_tokens) > 0
        used = np.bincount(token_of_cell, weights=cells, minlength=n_tokens) > 0
        ok = used & (words >= 0)
        self.seen += np.bincount(words[ok], minlength=len(self.seen))
        self.hits += np.bincount(words[ok], weights=linked[ok], minlength=len(self.hits))
        self.used += int(np.count_nonzero(ok))
        self.used_linked += int(np.count_nonzero(linked[ok]))

    def rates(self) -> np.ndarray:
        """Each word's linked share, smoothed toward the overall share (one pseudo-token)."""
        prior = self.used_linked / self.used if self.used else 0.0
        return (self.hits + prior) / (self.seen + 1.0)


# Transposing a pair (source ↔ target) maps cell (i, j) to (j, i): these name parts swap, a
# neighbour (di, dj) becomes (dj, di), and the relative position changes sign.
_TRANSPOSED_PARTS = {
    "forward": "backward",
    "backward": "forward",
    "source": "target",
    "target": "source",
    "row": "column",
    "column": "row",
}
_NEGATED = frozenset({"position_diff"})
_OFFSET = re.compile(r"^(.*)_([+-]\d+)_([+-]\d+)$")


def transposed_name(name: str) -> str:
    """The feature that plays ``name``'s part once source and target swap."""
    m = _OFFSET.match(name)
    stem, suffix = (m.group(1), f"_{m.group(3)}_{m.group(2)}") if m else (name, "")
    return "_".join(_TRANSPOSED_PARTS.get(p, p) for p in stem.split("_")) + suffix


class Symmetriser:
    """Features that do not depend on which sentence is the source. An alignment is a
    symmetric relation, and what the gold teaches about cell (i, j) of (source, target) holds
    for cell (j, i) of (target, source); features that name a side waste half the gold on
    learning each side apart. Each pair of twin columns (``transposed_name``: forward and
    backward posteriors, the source and target word's frequency, row and column maxima, the
    neighbours (-1, 0) and (0, -1) ...) becomes its larger and its smaller value; a column that
    changes sign becomes its absolute value; a column that is its own twin stays. A column
    about the cell's word pair as a whole (``gold_pair_rate``) is its own twin by this rule."""

    def __init__(self, names: Sequence[str]) -> None:
        index = {name: k for k, name in enumerate(names)}
        keep, absolute, high, low = [], [], [], []
        for k, name in enumerate(names):
            twin = transposed_name(name)
            if twin not in index:
                raise ValueError(f"feature {name!r}: its transposed twin {twin!r} is missing")
            t = index[twin]
            if t == k:
                (absolute if name in _NEGATED else keep).append(k)
            elif k < t:
                high.append(k)
                low.append(t)
        self.keep = np.asarray(keep, dtype=np.int64)
        self.absolute = np.asarray(absolute, dtype=np.int64)
        self.high = np.asarray(high, dtype=np.int64)
        self.low = np.asarray(low, dtype=np.int64)
        self.names = (
            *(names[k] for k in keep),
            *(f"abs({names[k]})" for k in absolute),
            *(f"max({names[a]},{names[b]})" for a, b in zip(high, low, strict=True)),
            *(f"min({names[a]},{names[b]})" for a, b in zip(high, low, strict=True)),
        )

    def __call__(self, X: np.ndarray) -> np.ndarray:
        a, b = X[:, self.high], X[:, self.low]
        return np.hstack(
            [X[:, self.keep], np.abs(X[:, self.absolute]), np.maximum(a, b), np.minimum(a, b)]
        )
