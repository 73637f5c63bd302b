"""The seeding aligner (SPEC §7): IBM Model 1 → HMM by EM in both directions, symmetrised.

    from alignment_core.aligner import AlignerConfig, train, AlignerModel
    model = train(pairs, config=AlignerConfig(), gold={index: Alignment, ...}, progress=cb)
    model.align(pairs)            # list[Alignment], all links sure, input order
    model.posteriors(pairs)       # list of N×M float32 link posteriors
    model.save("m.npz"); AlignerModel.load("m.npz")

Seeds that learn from gold (issue 11): ``link_model.train_seed_model(pairs, gold,
resources=...)`` reads the HMM's evidence with a classifier trained on the gold (``features``:
per-cell features); its outside resources (``seed_resources.SeedResources``) are built at the
edge, e.g. ``installed.installed_resources()`` in a worker.

Modules: ``vocab`` (ids, flat corpus), ``workspace`` (chunked EM in a folder: the training
loop of ``train`` and of the workers; ``corpus_store`` encodes the corpus into chunk files and
builds the CSR translation table, ``em_chunks`` holds the E- and M-step arithmetic,
``workspace_setup`` the gold and links files, ``_csr_kernels`` the table's kernels),
``table`` (jump classes, the whole-corpus layout), ``ibm1`` / ``hmm`` (whole-corpus EM loops,
the tests' reference), ``supervised`` (observed counts from gold, seeds/004),
``features`` (per-cell features), ``link_model`` (the supervised link model's public names:
``link_config``, ``link_inputs``, ``link_classifiers``, ``link_training``, ``seed_model``,
``seed_resources``), ``wordnet`` / ``vectors`` / ``thesaurus`` / ``tags`` / ``wordclass`` (the
outside evidence), ``resources`` (installing it; ``resources_dir``) and ``installed`` (reading
it, for edges), ``posteriors`` (posteriors as one byte a cell), ``symmetrize`` (intersection …
grow-diag-final-and), ``training`` / ``model`` (the API), ``synthetic`` (benchmark corpus),
``_kernels`` / ``_hmm_kernels`` (numba, decorated by ``_jit``; an edge's
``use_plain_kernels(True)`` — the CLI's and Django's ``GRIDALIGN_ALIGNER_PLAIN=1`` — runs them
as plain Python).

Dependencies run one way: ``training`` → ``model`` → ``_kernels`` → ``_hmm_kernels`` →
``_jit``; ``link_training`` → ``seed_model`` → ``link_classifiers`` / ``link_inputs`` →
``features``; nothing but an edge imports ``installed`` (tests/core checks both).

How the defaults were chosen (``AlignerConfig``): on Edinburgh++'s *train* split only
(``benchmarks/aligner_quality.py --dev``: unsupervised scored on the 714 train pairs; gold
runs as 2-fold cross-validation inside them); the test gold was read only to report.

* ``identity_weight`` 10 (tried 0.5–100): each lexicon pair counts ten times. Dev
  non-identical F1 0.449 → 0.501, all-links F1 0.848 → 0.868 against weight 1. With gold the
  lexicon keeps this weight instead of shrinking with the 1 − λ of unlabelled pairs (it is
  prior knowledge, a dictionary): shrinking it cost 0.05 non-identical F1.
* ``end_jump`` on: sentence-final punctuation kept falling to NULL because only the start
  was anchored; the end jump gave +0.01 all-links F1.
* ``null_prob`` 0.2 (0.05–0.3 are within 0.005); ``jump_exact`` 7 (3–10 identical);
  ``lowercase`` on (+0.002); ``gold_possible_weight`` 1 (0.5 the same, 0 worse).
* ``t_smoothing`` 0: add-α raises non-identical recall but costs all-links precision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from alignment_core._lazy import lazy_names

if TYPE_CHECKING:
    from alignment_core.aligner.config import AlignerConfig
    from alignment_core.aligner.kernel_choice import use_plain_kernels
    from alignment_core.aligner.model import AlignerModel
    from alignment_core.aligner.symmetrize import METHODS as SYMMETRIZATIONS
    from alignment_core.aligner.training import retrain, train

__all__ = [
    "AlignerConfig",
    "AlignerModel",
    "SYMMETRIZATIONS",
    "retrain",
    "train",
    "use_plain_kernels",
]

# The public names, loaded on first use (PEP 562): importing a light submodule (``posteriors``,
# ``kernel_choice``) must not load numba and scipy through the kernels, or every Django web
# process would carry them (issue 30: ~90 MB) though only the worker aligns.
_LAZY = {
    "AlignerConfig": ("alignment_core.aligner.config", "AlignerConfig"),
    "AlignerModel": ("alignment_core.aligner.model", "AlignerModel"),
    "SYMMETRIZATIONS": ("alignment_core.aligner.symmetrize", "METHODS"),
    "retrain": ("alignment_core.aligner.training", "retrain"),
    "train": ("alignment_core.aligner.training", "train"),
    "use_plain_kernels": ("alignment_core.aligner.kernel_choice", "use_plain_kernels"),
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
