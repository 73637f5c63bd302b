"""Posteriors stored with the seeds (issue 7 §6): one byte a cell, row-major, written in the
same transaction as the seeds, computed in chunks of pairs with the same result as one batch."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, train
from alignment_core.aligner.posteriors import dequantise_posteriors, quantise_posteriors
from annotator.models import AlignerRun, SeedAlignment
from annotator.seeding.services import seed_project

pytestmark = pytest.mark.django_db


def stored(run_id: int) -> dict[str, tuple[list, bytes]]:
    return {
        seed.pair.external_id: (seed.links, bytes(seed.posteriors))
        for seed in SeedAlignment.objects.filter(aligner_run_id=run_id).select_related("pair")
    }


def test_quantising_is_one_byte_a_cell_row_major_within_half_a_step():
    rng = np.random.default_rng(7)
    matrix = rng.random((5, 9))
    matrix[0, 0], matrix[4, 8], matrix[2, 3] = 0.0, 1.0, 0.5 / 255  # edges and a half step
    raw = quantise_posteriors(matrix)
    assert len(raw) == 5 * 9
    assert raw[0] == 0 and raw[-1] == 255
    assert raw[1 * 9 + 4] == round(255 * matrix[1, 4])  # cell (i, j) at byte i·M + j
    back = dequantise_posteriors(raw, 5, 9)
    assert np.abs(back - matrix).max() <= 0.5 / 255 + 1e-12
    # values outside [0, 1] (numerical noise) are clipped, not wrapped round a byte
    assert quantise_posteriors(np.array([[-0.01, 1.02]])) == bytes([0, 255])


def test_seeds_store_the_models_posteriors(project, corpus):  # noqa: F811
    project.source_language = project.target_language = "nl"  # the HMM seeds (not English)
    project.save()
    result = seed_project(project=project, use_gold=False)
    # the same training, done here: the stored bytes must decode to its posteriors
    pairs = [(p.source_tokens, p.target_tokens) for p in corpus]
    model = train(pairs, config=AlignerConfig(identity_lexicon=True))
    expected = model.posteriors(pairs)
    seeds = {
        s.pair_id: s for s in SeedAlignment.objects.filter(aligner_run_id=result["aligner_run"])
    }
    for pair, matrix in zip(corpus, expected, strict=True):
        raw = seeds[pair.pk].posteriors
        assert raw is not None and len(bytes(raw)) == len(pair.source_tokens) * len(
            pair.target_tokens
        )
        decoded = dequantise_posteriors(raw, *pair.shape)
        assert np.abs(decoded - matrix).max() <= 1 / 255
    # the posteriors agree with the seed: its links are the likely cells
    first = seeds[corpus[0].pk]
    decoded = dequantise_posteriors(first.posteriors, *corpus[0].shape)
    linked = [decoded[i, j] for i, j, _ in first.links]
    assert min(linked) > np.median(decoded)


def test_chunks_give_the_same_seeds_as_one_batch(project, corpus):  # noqa: F811
    messages: list[str] = []
    chunked = seed_project(
        project=project, use_gold=False, chunk_size=3, progress=lambda p, m: messages.append(m)
    )
    whole = seed_project(project=project, use_gold=False, chunk_size=1000)
    assert stored(chunked["aligner_run"]) == stored(whole["aligner_run"])
    assert chunked["links"] == whole["links"]
    written = [m for m in messages if m.startswith("aligned and wrote")]
    assert written == [f"aligned and wrote {n} of 10 pairs" for n in (3, 6, 9, 10)]


def test_a_failure_between_chunks_writes_no_seed_at_all(project, corpus):  # noqa: F811
    def fail_after_first_chunk(fraction: float, message: str) -> None:
        if message.startswith("aligned and wrote 3 "):
            raise RuntimeError("worker lost")

    with pytest.raises(RuntimeError, match="worker lost"):
        seed_project(project=project, use_gold=False, chunk_size=3, progress=fail_after_first_chunk)
    assert not AlignerRun.objects.exists() and not SeedAlignment.objects.exists()
