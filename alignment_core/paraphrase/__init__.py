"""Which sentence pairs say the same thing: features (seed 002) and a classifier that learns
from the lead's accept / reject decisions (issue 33). Pure Python + numpy + scikit-learn.

    from alignment_core.paraphrase import train_and_predict, Resources
    train_and_predict(decisions, pairs, resources=Resources.load())  # [(p, 0|1), ...]
"""

from alignment_core.paraphrase.features import FEATURE_NAMES, FeatureExtractor, Resources
from alignment_core.paraphrase.model import PairClassifier, train_and_predict

__all__ = ["FEATURE_NAMES", "FeatureExtractor", "PairClassifier", "Resources", "train_and_predict"]
