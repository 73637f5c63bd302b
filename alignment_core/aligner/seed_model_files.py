"""A supervised ``SeedModel`` written to a folder and read back, with no pickle: what a project
seeded in chunks over the workers fits once and every align chunk reads
(``annotator.seeding.chunked_steps``).

The folder holds ``seed_model.json`` (the settings, thresholds, input columns, the resources and
built-in model it reads, its ``info``), ``stages.npz`` (the fitted classifiers' trees as
``builtin.stages_arrays`` writes them for the shipped model, the gold lexicon, the built-in
model's columns) and, when the model has one, ``gold_hmm.npz`` (``AlignerModel.save``).

Not written, because the reader has its own: the unsupervised HMM and the corpus's word counts
(the workspace's), the outside resources (each process reads the copy installed on its
machine) and the built-in model (shipped with the code). ``load_seed_model`` takes them, and
refuses a model that reads a resource, or a version of the built-in model, the reading process
does not have: a worker machine set up differently fails its chunk with that message instead of
seeding differently.

A model read back predicts what the model written predicts, bit for bit: the trees are
evaluated as scikit-learn evaluates them (``builtin.TreeEnsemble``), the arrays are the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from alignment_core.aligner.builtin import STAGES, BuiltinModel, stage_of, stages_arrays
from alignment_core.aligner.features import GoldLexicon, TokenStats
from alignment_core.aligner.link_classifiers import LinkStages, Views
from alignment_core.aligner.link_config import LinkModelConfig
from alignment_core.aligner.link_training import input_names
from alignment_core.aligner.model import AlignerModel
from alignment_core.aligner.seed_model import SeedModel
from alignment_core.aligner.seed_resources import SeedResources

META = "seed_model.json"
ARRAYS = "stages.npz"
GOLD_HMM = "gold_hmm.npz"
FORMAT = 1
RESOURCES = ("wordnet", "vectors", "thesaurus", "tags")


def save_seed_model(model: SeedModel, folder: str | Path) -> None:
    """Write supervised ``model`` into ``folder`` (created; files of the same names replaced).
    ``seed_model.json`` is written last: a folder without it holds no whole model."""
    if model.kind != "supervised" or model.stages is None:
        raise ValueError(f"only a supervised model is written to files, not a {model.kind!r} one")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / META).unlink(missing_ok=True)
    lcfg = LinkModelConfig(**model.info["link_config"])
    arrays = stages_arrays(model.stages)
    if model.lexicon is not None:
        arrays.update({f"lexicon.{k}": v for k, v in model.lexicon.arrays().items()})
    if model.builtin_columns is not None:
        arrays["builtin_columns"] = np.asarray(model.builtin_columns, dtype=np.int64)
    np.savez(folder / ARRAYS, **arrays)
    if model.gold_hmm is not None:
        model.gold_hmm.save(folder / GOLD_HMM)
    meta = {
        "format": FORMAT,
        "names": list(input_names(lcfg, model)),  # the model's resources decide the columns
        "symmetric": lcfg.symmetric,
        "rich_context": model.stages.views.rich_context,
        "widen": model.stages.widen,
        "threshold": model.threshold,
        "sure_threshold": model.sure_threshold,
        "gold_hmm_base_forms": model.gold_hmm_base_forms,
        "word_classes": model.word_classes,
        "spelling": model.spelling,
        "resources": {name: getattr(model, name) is not None for name in RESOURCES},
        "builtin_version": model.builtin.version if model.builtin is not None else None,
        "builtin_weight": model.builtin_weight,
        "info": model.info,
    }
    (folder / META).write_text(json.dumps(meta, default=_plain, sort_keys=True))


def _plain(value: Any) -> Any:
    """numpy's scalars and arrays as JSON's numbers and lists."""
    if isinstance(value, np.generic | np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


def load_seed_model(
    folder: str | Path,
    *,
    hmm: AlignerModel,
    stats: TokenStats,
    resources: SeedResources,
    builtin: BuiltinModel | None,
) -> SeedModel:
    """The model ``save_seed_model`` wrote into ``folder``, reading the evidence of ``hmm``
    (the unsupervised HMM it was trained with), the word counts ``stats``, this process's
    ``resources`` and ``builtin`` model. ValueError when one it reads is missing here."""
    folder = Path(folder)
    meta = json.loads((folder / META).read_text())
    if meta.get("format") != FORMAT:
        raise ValueError(f"{folder / META}: format {meta.get('format')!r}, not {FORMAT}")
    wanted = meta["resources"]
    use = resources.used_by(*(wanted[name] for name in RESOURCES))
    missing = [name for name in RESOURCES if wanted[name] and getattr(use, name) is None]
    if missing:
        raise ValueError(
            f"the seed model reads {', '.join(missing)}, not installed on this machine "
            "(python -m alignment_core resources install)"
        )
    version = meta["builtin_version"]
    if version is not None and (builtin is None or builtin.version != version):
        have = builtin.version if builtin is not None else "none"
        raise ValueError(f"the seed model pools with the built-in model {version}; here: {have}")
    with np.load(folder / ARRAYS, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    names = tuple(meta["names"])
    first, second, sure = (stage_of(arrays, name) for name in STAGES)
    views = Views.of(names, meta["symmetric"], meta["rich_context"])
    lexicon = {k.split(".", 1)[1]: v for k, v in arrays.items() if k.startswith("lexicon.")}
    gold_hmm = AlignerModel.load(folder / GOLD_HMM) if (folder / GOLD_HMM).exists() else None
    return SeedModel(
        kind="supervised",
        hmm=hmm,
        stats=stats,
        stages=LinkStages(first, second, sure, meta["widen"], views),
        lexicon=GoldLexicon.of_arrays(lexicon) if lexicon else None,
        gold_hmm=gold_hmm,
        gold_hmm_base_forms=meta["gold_hmm_base_forms"],
        wordnet=use.wordnet,
        vectors=use.vectors,
        thesaurus=use.thesaurus,
        word_classes=meta["word_classes"],
        spelling=meta["spelling"],
        tags=use.tags,
        threshold=meta["threshold"],
        sure_threshold=meta["sure_threshold"],
        info=meta["info"],
        builtin=builtin if version is not None else None,
        builtin_weight=meta["builtin_weight"],
        builtin_columns=arrays.get("builtin_columns"),
    )
