"""The link model's classifiers: scikit-learn's gradient-boosted trees on one OpenMP thread,
the fold classifiers read as one (``FoldAverage``), what they see of the features (``Views``)
and the fitted stages that score cells (``LinkStages``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from alignment_core.aligner.features import (
    CONTEXT_NAMES,
    NEIGHBOURS,
    RICH_CONTEXT_NAMES,
    CellGrid,
    Symmetriser,
    candidate_cells,
    context_features,
)
from alignment_core.aligner.link_config import LinkModelConfig
from alignment_core.aligner.threads import in_threads

# The folds' trees are fitted and scored ``in_threads``: they release the GIL, and each thread
# keeps its own one-thread OpenMP limit (``_one_thread``), so the folds share the cores without
# the spinning of nested OpenMP threads.

TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]


def _classifier(cfg: LinkModelConfig):
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=cfg.max_iter,
        learning_rate=cfg.learning_rate,
        max_leaf_nodes=cfg.max_leaf_nodes,
        min_samples_leaf=cfg.min_samples_leaf,
        l2_regularization=cfg.l2_regularization,
        early_stopping=False,
        random_state=cfg.seed,
    )


def _one_thread():
    """scikit-learn's OpenMP threads, limited to one: on a machine whose cores are busy (a
    worker beside the web server, CI) two spinning OpenMP threads ran the trees 10–15× slower
    than one; with one the cost is predictable. scikit-learn is imported first: the limit
    only reaches an OpenMP runtime that is already loaded (else the first fit ran unlimited)."""
    import sklearn.ensemble  # noqa: F401
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="openmp")


def import_trees() -> None:
    """Import scikit-learn's trees now (a second of a new process's Python), so that the
    first fit need not wait for them."""
    import sklearn.ensemble  # noqa: F401


def by_column(X: np.ndarray) -> np.ndarray:
    """``X`` as the trees read it fastest: float64 (their own type: no copy inside
    scikit-learn) in column-major order. Binning and tree traversal read one feature at a time;
    on Edinburgh++'s cells, scoring ran 2.5× and fitting 1.2× faster than on row-major input.
    The result is the same, bit for bit."""
    return np.asfortranarray(X, dtype=np.float64)


def probability(classifier: Any, X: np.ndarray) -> np.ndarray:
    if not len(X):
        return np.zeros(0)
    with _one_thread():
        return classifier.predict_proba(by_column(X))[:, 1]


def fit_classifier(lcfg: LinkModelConfig, X: np.ndarray, y: np.ndarray, sure_model: bool):
    """A fitted classifier; a label with one value only (e.g. gold without possible links)
    gets a constant."""
    if len(y) == 0 or y.all() or not y.any():
        return _Constant(1.0 if len(y) == 0 or y.all() else 0.0)
    if sure_model:  # fewer rows, an easier question: half the trees
        lcfg = replace(lcfg, max_iter=max(lcfg.max_iter // 2, 1))
    with _one_thread():
        return _classifier(lcfg).fit(by_column(X), y)


@dataclass(frozen=True)
class Views:
    """What the classifiers see of the cell features (``first``) and of the first stage's
    context (``context``): the features themselves, or their symmetrised form; and the names
    of the columns each gives. ``rich_context``: the context is ``RICH_CONTEXT_NAMES``
    (else ``CONTEXT_NAMES``, as the built-in model ``en-paraphrase-1`` reads it)."""

    first: Any
    context: Any
    first_names: tuple[str, ...] = ()
    context_names: tuple[str, ...] = ()
    rich_context: bool = False

    @classmethod
    def of(cls, names: Sequence[str], symmetric: bool, rich_context: bool = False) -> Views:
        context_names = RICH_CONTEXT_NAMES if rich_context else CONTEXT_NAMES
        if not symmetric:
            return cls(_same, _same, tuple(names), context_names, rich_context)
        first, context = Symmetriser(names), Symmetriser(context_names)
        return cls(first, context, tuple(first.names), tuple(context.names), rich_context)


def kept_columns(names: Sequence[str], unused: frozenset[str]) -> np.ndarray | None:
    """The indices of ``names`` not in ``unused`` (None: all of them)."""
    keep = [k for k, name in enumerate(names) if name not in unused]
    return None if len(keep) == len(names) else np.asarray(keep, dtype=np.int64)


def take_rows(X: np.ndarray, rows: np.ndarray, columns: np.ndarray | None) -> np.ndarray:
    """``X[rows]`` (a bool mask), only its ``columns`` if given."""
    if columns is None:
        return X[rows]
    return X[np.ix_(np.flatnonzero(rows), columns)]


def _same(X: np.ndarray) -> np.ndarray:
    return X


@dataclass
class LinkStages:
    """The fitted classifiers: first stage (cell features), optional second stage (plus the
    first stage's probabilities around each cell), and P(sure | link)."""

    first: Any
    second: Any
    sure: Any
    widen: float = 1.0
    views: Views = Views(_same, _same)

    def predict(
        self, X: np.ndarray, grid: CellGrid, threshold: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per cell: the link probability, and P(sure | link) where the link probability
        reaches ``threshold`` (0 elsewhere)."""
        rows = candidate_cells(X)
        stage_input = self.views.first(X[rows])  # only the rows a classifier reads
        prob = np.zeros(len(X))
        prob[rows] = probability(self.first, stage_input)
        if self.second is not None:
            context = context_features(prob, grid, self.views.rich_context)
            wider = rows | beside_a_likely_link(context, self.widen)
            # the candidates' view is already computed: only the cells beside a likely link
            # are new (both in cell order, so the candidates keep their relative order)
            was_candidate = rows[wider]
            view = np.empty((int(wider.sum()), stage_input.shape[1]), dtype=stage_input.dtype)
            view[was_candidate] = stage_input
            view[~was_candidate] = self.views.first(X[wider & ~rows])
            rows = wider
            stage_input = np.hstack([view, self.views.context(context[rows])])
            prob = np.zeros(len(X))
            prob[rows] = probability(self.second, stage_input)
        sure = np.zeros(len(X))
        linked = prob[rows] >= threshold
        sure[np.flatnonzero(rows)[linked]] = probability(self.sure, stage_input[linked])
        return prob, sure


def on_rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values`` (one row per True in ``rows``) in an array of ``len(rows)`` rows whose other
    rows are 0: the features of the cells a classifier reads, at their cells' positions."""
    out = np.zeros((len(rows), values.shape[1]), dtype=values.dtype)
    out[rows] = values
    return out


def beside_a_likely_link(context: np.ndarray, widen: float) -> np.ndarray:
    """Cells next to one the first stage links with probability ≥ ``widen``: the second
    stage also looks at them (phrase blocks reach cells with no HMM evidence of their own)."""
    neighbours = context[:, 1 : 1 + len(NEIGHBOURS)].max(axis=1) if len(context) else context
    return np.asarray(neighbours >= widen, dtype=bool).reshape(-1)


class FoldAverage:
    """The classifiers fitted in cross-validation, one per fold, read as one: their mean
    probability. This, not a refit on all the gold, is what seeds: the decoding threshold is
    tuned on out-of-fold probabilities, which come from classifiers of this size, and a refit
    would cost another fit per stage."""

    def __init__(
        self,
        models: Sequence[Any],
        workers: int = 1,
        columns: np.ndarray | None = None,
        n_inputs: int | None = None,
    ) -> None:
        self.models = list(models)
        self.workers = workers
        self.columns = columns  # the input columns the models read (None: all)
        # the width of the input it takes (the models read ``columns`` of it)
        self.n_features_in_ = n_inputs or getattr(self.models[0], "n_features_in_", None)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        X = by_column(X if self.columns is None else X[:, self.columns])  # once for all
        scores = in_threads(lambda m: probability(m, X), self.models, self.workers)
        p = np.mean(scores, axis=0)
        return np.column_stack([1 - p, p])


class _Constant:
    """A stand-in classifier for a label with one class only (e.g. gold with no possible link)."""

    def __init__(self, value: float) -> None:
        self.value = value

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return np.column_stack([np.full(len(X), 1 - self.value), np.full(len(X), self.value)])
