"""The seeding aligner (SPEC §7): IBM Model 1 → HMM by EM in both directions, symmetrised.

    from alignment_core.aligner import AlignerConfig, train, AlignerModel
    model = train(pairs, config=AlignerConfig(), gold={index: Alignment, ...}, progress=cb)
    model.align(pairs)            # list[Alignment], all links sure, input order
    model.posteriors(pairs)       # list of N×M float32 link posteriors
    model.save("m.npz"); AlignerModel.load("m.npz")

Modules: ``vocab`` (ids, flat corpus), ``table`` (sparse translation table, jump classes),
``ibm1`` / ``hmm`` (EM loops), ``supervised`` (observed counts from gold, seeds/004),
``symmetrize`` (intersection … grow-diag-final-and), ``training`` / ``model`` (the API),
``synthetic`` (benchmark corpus), ``_kernels`` (numba; ``GRIDALIGN_ALIGNER_PLAIN=1`` runs
them as plain Python).
"""

from alignment_core.aligner.config import AlignerConfig
from alignment_core.aligner.model import AlignerModel
from alignment_core.aligner.symmetrize import METHODS as SYMMETRIZATIONS
from alignment_core.aligner.training import train

__all__ = ["AlignerConfig", "AlignerModel", "SYMMETRIZATIONS", "train"]
