"""The built-in English paraphrase model (issue 34): link classifiers fitted once on
Edinburgh++'s train split, shipped as plain numpy arrays, that seed an English project before
it has gold of its own, and that pool with the project's model once it has.

    from alignment_core.aligner.builtin import load_builtin
    builtin = load_builtin()          # the shipped file, BUILTIN_PATH; ~0.1 s, no pickle
    builtin.version                   # "en-paraphrase-1"
    builtin.unusable(names)           # why it cannot read these input columns (None: it can)

What is stored, and why. The model is the supervised link model's three fitted stages (first
stage, second stage, P(sure | link); four fold classifiers each) with the settings
``BUILTIN_LINK_CONFIG``: the project's HMM evidence and the outside resources' columns, and
nothing counted from a project's gold (no gold lexicon, no gold HMM: a new project has none).
Each fold classifier is scikit-learn's ``HistGradientBoostingClassifier``; what it needs to
predict is its baseline (the log-odds it starts from) and its trees' node arrays
(``TreeEnsemble``), stored field by field. Storing the training examples instead and fitting
at load was the other way: the two-stage model needs each example's whole grid (the second
stage reads the first stage's probabilities around a cell), ~400k cells × 80 columns for 714
pairs, 30 MB as float32 and far over the 1 MB budget even compressed, and fitting the twelve
classifiers takes ~10 s, not ≤ 2 s. The trees are ~0.3 MB and load in a fraction of a second.
Prediction runs scikit-learn's own tree walker (``TreePredictor``) on the stored nodes, so the
probabilities are those the fitted classifiers gave, bit for bit.

Pooling with a project's gold (``link_training``): the project's own model is fitted as
before, and the probability that seeds is ``w · built-in + (1 − w) · project``, decoded at the
built-in model's threshold, the weight ``w`` from ``WEIGHTS`` (below ``MIN_GOLD_PAIRS`` gold
pairs, ``FEW_GOLD_WEIGHTS``) chosen on the project model's out-of-fold probabilities over its
gold (the built-in model never saw that gold): the largest weight whose edits are within one
standard error of the fewest, so the project's gold lowers it only where it clearly says the
built-in model is wrong for the project.

The file is a zip of ``.npy`` arrays written with a fixed timestamp and in a fixed order
(``save_builtin``), so rebuilding it gives the same bytes; it is read with
``allow_pickle=False``. ``python -m alignment_core builtin build`` rebuilds it
(``alignment_core.aligner.builtin_build``); ``MODEL.md`` beside it records its provenance.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from alignment_core.aligner.link_classifiers import FoldAverage, LinkStages, Views
from alignment_core.aligner.link_config import LinkModelConfig

BUILTIN_VERSION = "en-paraphrase-1"
BUILTIN_PATH = Path(__file__).with_name("builtin") / f"{BUILTIN_VERSION}.npz"
# What the built-in model reads: the HMM's evidence, WordNet, the vectors, the thesaurus, the
# word classes and the tag lexicon; nothing counted from gold (a new project has none).
BUILTIN_LINK_CONFIG = LinkModelConfig(
    lexicon=False,
    gold_hmm=False,
    pseudo_gold=False,
    skip_unused=False,
    # as en-paraphrase-1 was built (``read_builtin`` reads the basic context)
    context="basic",
    joint_sure=False,
    spelling=False,
)
# The built-in model's weight beside the project's own, tried by cross-validation.
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)
STAGES = ("first", "second", "sure")
_NODE_FIELDS = ("value", "feature_idx", "num_threshold", "missing_go_to_left", "left", "right")
_NODE_FIELDS += ("is_leaf",)


class TreeEnsemble:
    """A fitted binary ``HistGradientBoostingClassifier`` as arrays: its baseline log-odds and
    its trees' nodes (numeric splits only); ``predict_proba`` as the classifier's."""

    def __init__(self, trees: Sequence[dict[str, np.ndarray]], baseline: float, n_features: int):
        from sklearn.ensemble._hist_gradient_boosting.common import PREDICTOR_RECORD_DTYPE
        from sklearn.ensemble._hist_gradient_boosting.predictor import TreePredictor

        self.trees = [dict(t) for t in trees]
        self.baseline = float(baseline)
        self.n_features_in_ = int(n_features)
        no_bitsets = np.zeros((0, 8), dtype=np.uint32)
        self._predictors = []
        for tree in self.trees:
            nodes = np.zeros(len(tree["value"]), dtype=PREDICTOR_RECORD_DTYPE)
            for field in _NODE_FIELDS:
                nodes[field] = tree[field]
            self._predictors.append(TreePredictor(nodes, no_bitsets, no_bitsets))

    @classmethod
    def of(cls, classifier: Any, n_features: int) -> TreeEnsemble:
        """The arrays of a fitted classifier (or of ``link_classifiers._Constant``)."""
        if hasattr(classifier, "value"):  # a constant: no trees, an infinite log-odds
            logit = np.inf if classifier.value >= 1.0 else -np.inf
            return cls([], logit, n_features)
        if np.any(classifier.is_categorical_ if classifier.is_categorical_ is not None else []):
            raise ValueError("the built-in model stores numeric splits only")
        trees = [
            {field: np.asarray(p.nodes[field]) for field in _NODE_FIELDS}
            for (p,) in classifier._predictors
        ]
        return cls(trees, float(np.ravel(classifier._baseline_prediction)[0]), n_features)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        from scipy.special import expit

        X = np.asarray(X, dtype=np.float64)
        raw = np.full(len(X), self.baseline)
        if self._predictors:
            f_idx_map = np.zeros(X.shape[1], dtype=np.uint32)
            no_bitsets = np.zeros((0, 8), dtype=np.uint32)
            for predictor in self._predictors:
                raw += predictor.predict(X, no_bitsets, f_idx_map, 1)
        p = expit(raw)
        return np.column_stack([1 - p, p])


@dataclass
class BuiltinModel:
    """The shipped model: its link stages, the input columns they read (``names``, before
    symmetrising), its decoding threshold and provenance."""

    version: str
    names: tuple[str, ...]
    stages: LinkStages
    threshold: float
    sha256: str
    meta: dict[str, Any]

    def unusable(self, names: Sequence[str]) -> str | None:
        """Why the model cannot read inputs whose columns are ``names`` (None: it can)."""
        missing = [n for n in self.names if n not in set(names)]
        if not missing:
            return None
        return (
            f"the built-in model {self.version} reads {len(missing)} input column(s) this "
            f"model has not (e.g. {missing[0]!r}: an outside resource not installed or off)"
        )

    def columns_in(self, names: Sequence[str]) -> np.ndarray | None:
        """The indices of the model's columns in inputs whose columns are ``names`` (None:
        the same columns in the same order)."""
        if tuple(names) == self.names:
            return None
        index = {n: k for k, n in enumerate(names)}
        return np.asarray([index[n] for n in self.names], dtype=np.int64)


def stages_arrays(stages: LinkStages) -> dict[str, np.ndarray]:
    """``stages``' fold classifiers as named arrays (``save_builtin``'s input)."""
    out: dict[str, np.ndarray] = {}
    for name, average in zip(STAGES, (stages.first, stages.second, stages.sure), strict=True):
        if average is None:
            continue
        ensembles = [TreeEnsemble.of(m, average.n_features_in_) for m in average.models]
        trees = [t for e in ensembles for t in e.trees]
        out[f"{name}.baselines"] = np.asarray([e.baseline for e in ensembles])
        out[f"{name}.trees_per_model"] = np.asarray([len(e.trees) for e in ensembles], np.int64)
        out[f"{name}.nodes_per_tree"] = np.asarray([len(t["value"]) for t in trees], np.int64)
        out[f"{name}.n_inputs"] = np.asarray(average.n_features_in_, dtype=np.int64)
        if average.columns is not None:
            out[f"{name}.columns"] = np.asarray(average.columns, dtype=np.int64)
        for field in _NODE_FIELDS:
            parts = [t[field] for t in trees]
            out[f"{name}.{field}"] = np.concatenate(parts) if parts else np.zeros(0)
    return out


def stage_of(arrays: dict[str, np.ndarray], name: str) -> FoldAverage | None:
    """Stage ``name`` (``STAGES``) of what ``stages_arrays`` wrote (None: the model has none)."""
    if f"{name}.baselines" not in arrays:
        return None
    n_inputs = int(arrays[f"{name}.n_inputs"])
    columns = arrays.get(f"{name}.columns")
    width = n_inputs if columns is None else len(columns)
    ends = np.cumsum(arrays[f"{name}.nodes_per_tree"])
    starts = ends - arrays[f"{name}.nodes_per_tree"]
    trees = [
        {field: arrays[f"{name}.{field}"][a:b] for field in _NODE_FIELDS}
        for a, b in zip(starts, ends, strict=True)
    ]
    models, first = [], 0
    for baseline, count in zip(
        arrays[f"{name}.baselines"], arrays[f"{name}.trees_per_model"], strict=True
    ):
        models.append(TreeEnsemble(trees[first : first + int(count)], baseline, width))
        first += int(count)
    return FoldAverage(models, 1, columns, n_inputs)


def save_builtin(path: str | Path, stages: LinkStages, meta: dict[str, Any]) -> None:
    """Write the model: a zip of ``.npy`` files, in name order, each with a fixed timestamp
    (``np.savez_compressed`` stamps the time of writing: the bytes would differ per run)."""
    if stages.views.rich_context:  # what its second stage reads (absent: the basic context)
        meta = {**meta, "context": "rich"}
    arrays = {**stages_arrays(stages), "meta": np.asarray(json.dumps(meta, sort_keys=True))}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(arrays[name]), allow_pickle=False)
            zf.writestr(info, buffer.getvalue(), compresslevel=9)


def read_builtin(path: str | Path) -> BuiltinModel:
    """Read a model written by ``save_builtin`` (no pickle)."""
    raw = Path(path).read_bytes()
    with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    meta = json.loads(str(arrays.pop("meta")))
    names = tuple(meta["names"])
    stages = LinkStages(
        stage_of(arrays, "first"),
        stage_of(arrays, "second"),
        stage_of(arrays, "sure"),
        float(meta["widen"]),
        Views.of(names, bool(meta["symmetric"]), meta.get("context") == "rich"),
    )
    return BuiltinModel(
        version=meta["version"],
        names=names,
        stages=stages,
        threshold=float(meta["threshold"]),
        sha256=hashlib.sha256(raw).hexdigest(),
        meta=meta,
    )


@lru_cache(maxsize=1)
def load_builtin() -> BuiltinModel:
    """The shipped model (``BUILTIN_PATH``), read once per process."""
    return read_builtin(BUILTIN_PATH)
