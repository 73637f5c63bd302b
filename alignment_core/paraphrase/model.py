"""The pair classifier that learns from the lead's decisions (issue 33).

Gradient-boosted trees (scikit-learn's ``HistGradientBoostingClassifier``, fixed
``random_state``: the same decisions give the same model) over ``features.FEATURE_NAMES``.
Nothing is trained ahead: a project's model is fitted on that project's accepted (1) and
rejected (0) pairs only. With decisions of one class only there is nothing to learn; the model
then predicts that class's rate for every pair (and says so in ``info``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from alignment_core.paraphrase.features import FeatureExtractor, Resources

# Chosen by 10-fold cross-validation on MSRP train only (benchmarks/paraphrase.py): 100-400
# iterations, 7-15 leaves, 20-50 samples a leaf all give accuracy 75.3-77.1 / F1 83.1-84.2;
# threshold 0.4 trades 0.3-0.8 accuracy for 0.3-0.8 F1 against 0.5 (MSRP is 67.5% positive).
DEFAULT_THRESHOLD = 0.4
DEFAULT_PARAMS = {
    "learning_rate": 0.05,
    "max_iter": 200,
    "max_leaf_nodes": 15,
    "min_samples_leaf": 20,
    "l2_regularization": 1.0,
}


@dataclass
class PairClassifier:
    threshold: float = DEFAULT_THRESHOLD
    params: dict = field(default_factory=lambda: dict(DEFAULT_PARAMS))
    random_state: int = 0
    info: dict = field(default_factory=dict)
    _model: object = None
    _constant: float | None = None

    def fit_features(self, X: np.ndarray, y: Sequence[int]) -> PairClassifier:
        from sklearn.ensemble import HistGradientBoostingClassifier

        y = np.asarray(y, dtype=np.int64)
        if len(y) == 0:
            raise ValueError("no decisions to learn from")
        if len(set(y.tolist())) < 2:
            self._constant = float(y.mean())
            self.info = {"decisions": len(y), "constant": True}
            return self
        self._model = HistGradientBoostingClassifier(
            random_state=self.random_state, **self.params
        ).fit(X, y)
        self._constant = None
        self.info = {"decisions": len(y), "positive": int(y.sum()), "constant": False}
        return self

    def predict_proba_features(self, X: np.ndarray) -> np.ndarray:
        """P(pair is worth aligning), one float per row."""
        if self._constant is not None:
            return np.full(len(X), self._constant)
        if self._model is None:
            raise ValueError("the classifier is not trained")
        return self._model.predict_proba(X)[:, 1]


def train_and_predict(
    decisions: Sequence[tuple[str, str, int]],
    pairs: Sequence[tuple[str, str]],
    *,
    resources: Resources | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> list[tuple[float, int]]:
    """Learn from ``decisions`` (string1, string2, 0|1), then (probability, 0|1) per pair of
    ``pairs``, in order."""
    fx = FeatureExtractor(resources)
    X = fx.matrix([(a, b) for a, b, _ in decisions])
    clf = PairClassifier(threshold=threshold).fit_features(X, [q for _, _, q in decisions])
    probs = clf.predict_proba_features(fx.matrix(list(pairs)))
    return [(float(p), int(p >= threshold)) for p in probs]
