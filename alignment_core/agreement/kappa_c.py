"""κ_C, the chance-corrected agreement of Cohn, Callison-Burch & Lapata (2008) (SPEC §5).

Units of pair i: the non-identical atomic phrase pairs of A_P and B_P (``level="phrase"``, the
default) or the non-identical links of A_P and B_P (``level="word"``).

- θ_i = |U_A ∩ U_B| / min(|U_A|, |U_B|); a pair whose two unit sets are both empty carries no
  information and is skipped *everywhere* (θ̂, θ̂_0, the edit-rate fit, subcorpora, bins); when
  only one is empty θ_i = 0. θ̂ = mean θ_i.
- Edit model of annotator r: rate_ri = |A_P Δ G| / (N_i·M_i) against the seed G (labels ignored),
  fitted by least squares as p_r(L) = a_r + b_r·L with L = N_i + M_i, evaluated clipped to [0, 1];
  a constant (the mean rate) when all L are equal.
- θ̂_0 = mean over pairs of the mean θ over J sampled pairs of alignments (``chance.py``).
- κ_C = (θ̂ − θ̂_0) / (1 − θ̂_0); *undefined* (None, with a reason) when θ̂_0 = 1 (within 1e-12).

Monte Carlo standard error. Samples are independent across pairs and draws, and θ̂ is not random,
so Var(θ̂_0) = Σ_i s_i² / (J·n²) with s_i² the sample variance (ddof = 1) of pair i's J draws:
``theta0_stderr = sqrt(Σ_i s_i² / J) / n``. ``stderr`` is the standard error this induces on κ_C
by the delta method: ``|1 − θ̂| / (1 − θ̂_0)² · theta0_stderr``. Both are None when J < 2.

Reproducibility: one ``numpy.random.Generator`` seeded with ``rng_seed`` serves the pairs in input
order, so the same pairs in the same order with the same seed give the same figures.
Length bins: the shorter sentence's length min(N_i, M_i) in tokens, bins of ``bin_width``
(1..w, w+1..2w, ...); empty bins are omitted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from alignment_core.agreement.chance import (
    LEVEL_PHRASE,
    LEVEL_WORD,
    _pair_chance,
    identical_cells,
)
from alignment_core.agreement.encoding import TokenEncoder
from alignment_core.alignment import Alignment
from alignment_core.phrases import atomic_phrases, non_identical
from alignment_core.progress import Progress, silent

LEVELS = {"word": LEVEL_WORD, "phrase": LEVEL_PHRASE}
UNDEFINED_CHANCE = "chance agreement theta0 = 1: no room for agreement beyond chance"
UNDEFINED_EMPTY = "no pair has units on either side"


@dataclass(frozen=True)
class KappaPair:
    """One doubly annotated sentence pair: tokens, the seed G and both final alignments."""

    source: Sequence[str]
    target: Sequence[str]
    seed: Alignment
    first: Alignment
    second: Alignment
    subcorpus: str = ""
    pair_id: str = ""
    first_annotator: str = "A"
    second_annotator: str = "B"


@dataclass(frozen=True)
class EditModel:
    """p(L) = intercept + slope·L, clipped to [0, 1]: the chance that an annotator flips a cell of
    the seed in a pair with L = N + M tokens. ``pairs`` is how many pairs it was fitted on."""

    intercept: float
    slope: float
    pairs: int

    def rate(self, length: int) -> float:
        return min(1.0, max(0.0, self.intercept + self.slope * length))


def fit_edit_model(lengths: Sequence[int], rates: Sequence[float]) -> EditModel:
    """Least-squares line of edit rate (flips per cell) on L = N + M; constant if all L equal."""
    x = np.asarray(lengths, float)
    y = np.asarray(rates, float)
    if x.size == 0:
        return EditModel(0.0, 0.0, 0)
    var = float(((x - x.mean()) ** 2).sum())
    if var == 0.0:
        return EditModel(float(y.mean()), 0.0, int(x.size))
    slope = float(((x - x.mean()) * (y - y.mean())).sum()) / var
    return EditModel(float(y.mean() - slope * x.mean()), slope, int(x.size))


@dataclass(frozen=True)
class KappaSummary:
    """θ̂, θ̂_0 and κ_C of a group of pairs (all, a subcorpus, a length bin)."""

    pairs: int
    theta: float | None
    theta0: float | None
    kappa_c: float | None
    stderr: float | None
    theta0_stderr: float | None
    reason: str | None  # why kappa_c is None, else None


@dataclass(frozen=True)
class PairTheta:
    pair_id: str
    subcorpus: str
    shorter: int  # min(N, M), tokens
    theta: float
    theta0: float
    theta0_var: float  # sample variance of the J draws (ddof = 1; 0 when J < 2)


@dataclass(frozen=True)
class KappaResult:
    level: str
    samples: int
    rng_seed: int
    skipped_empty: int  # pairs without units on either side
    overall: KappaSummary
    by_subcorpus: dict[str, KappaSummary]
    by_length: list[tuple[int, int, KappaSummary]]  # (min shorter length, max, summary)
    edit_models: dict[str, EditModel]
    per_pair: list[PairTheta] = field(repr=False)
    # what each edit model was fitted on: annotator → (L = N + M per pair, edit rate per pair)
    edit_observations: dict[str, tuple[list[int], list[float]]] = field(
        default_factory=dict, repr=False
    )

    @property
    def theta(self) -> float | None:
        return self.overall.theta

    @property
    def theta0(self) -> float | None:
        return self.overall.theta0

    @property
    def kappa_c(self) -> float | None:
        return self.overall.kappa_c

    @property
    def stderr(self) -> float | None:
        return self.overall.stderr

    def as_dict(self) -> dict:
        """JSON-ready: the overall figures at top level, then the breakdowns (None = null)."""
        out: dict = {"pairs": self.overall.pairs}
        out.update({k: v for k, v in asdict(self.overall).items() if k != "pairs"})
        out.update(level=self.level, samples=self.samples, rng_seed=self.rng_seed)
        out["skipped_empty"] = self.skipped_empty
        out["by_subcorpus"] = {k: asdict(v) for k, v in sorted(self.by_subcorpus.items())}
        out["by_length"] = [
            {"min_length": lo, "max_length": hi, **asdict(s)} for lo, hi, s in self.by_length
        ]
        out["edit_models"] = {k: asdict(v) for k, v in sorted(self.edit_models.items())}
        return out


def units(
    source: Sequence[str],
    target: Sequence[str],
    alignment: Alignment,
    level: str = "phrase",
    *,
    include_identical: bool = False,
) -> set:
    """κ_C's units of one alignment (A_P): atomic phrase pairs or links, non-identical."""
    links = alignment.all_links
    if level == "word":
        if include_identical:
            return set(links)
        return {(i, j) for i, j in links if source[i].casefold() != target[j].casefold()}
    atoms = atomic_phrases(links, len(source), len(target))
    return set(atoms if include_identical else non_identical(source, target, atoms))


def theta(units_a: set, units_b: set) -> float:
    """|U_A ∩ U_B| / min(|U_A|, |U_B|); 0 when either set is empty."""
    low = min(len(units_a), len(units_b))
    return len(units_a & units_b) / low if low else 0.0


def summarize(rows: Iterable[PairTheta], samples: int) -> KappaSummary:
    """θ̂, θ̂_0, κ_C and the Monte Carlo standard errors of a group of pairs (see module doc)."""
    rows = list(rows)
    n = len(rows)
    if n == 0:
        return KappaSummary(0, None, None, None, None, None, UNDEFINED_EMPTY)
    th = math.fsum(r.theta for r in rows) / n
    th0 = math.fsum(r.theta0 for r in rows) / n
    se0 = math.sqrt(math.fsum(r.theta0_var for r in rows) / samples) / n if samples >= 2 else None
    if th0 >= 1.0 - 1e-12:
        return KappaSummary(n, th, th0, None, None, se0, UNDEFINED_CHANCE)
    kappa = (th - th0) / (1.0 - th0)
    se = None if se0 is None else abs(1.0 - th) / (1.0 - th0) ** 2 * se0
    return KappaSummary(n, th, th0, kappa, se, se0, None)


def kappa_c(
    pairs: Iterable[KappaPair],
    *,
    level: str = "phrase",
    samples: int = 1000,
    rng_seed: int = 0,
    include_identical: bool = False,
    bin_width: int = 5,
    progress: Progress | None = None,
) -> KappaResult:
    """κ_C of the first against the second annotation of each pair (SPEC §5; see module doc).

    ``samples`` is J (≥ 1), ``rng_seed`` seeds numpy's default Generator, ``bin_width`` is the
    width in tokens of the shorter-sentence length bins; ``progress(fraction, message)`` is
    called before the sampling and after each pair's (ending at 1.0). Links are 0-based and must
    lie inside each pair's grid (ValueError otherwise).
    """
    if level not in LEVELS:
        raise ValueError(f"level must be 'word' or 'phrase', got {level!r}")
    if samples < 1:
        raise ValueError("samples must be at least 1")
    if bin_width < 1:
        raise ValueError("bin_width must be at least 1")
    kept, skipped = _observed_agreement(pairs, level, include_identical)
    obs = _edit_observations(kept)
    models = {who: fit_edit_model(x, y) for who, (x, y) in obs.items()}
    rows = _chance_agreement(kept, models, level, samples, rng_seed, include_identical, progress)
    groups: dict[str, list[PairTheta]] = {}
    bins: dict[int, list[PairTheta]] = {}
    for r in rows:
        groups.setdefault(r.subcorpus, []).append(r)
        bins.setdefault((r.shorter - 1) // bin_width, []).append(r)
    return KappaResult(
        level=level,
        samples=samples,
        rng_seed=rng_seed,
        skipped_empty=skipped,
        overall=summarize(rows, samples),
        by_subcorpus={k: summarize(v, samples) for k, v in groups.items()},
        by_length=[
            (b * bin_width + 1, (b + 1) * bin_width, summarize(bins[b], samples))
            for b in sorted(bins)
        ],
        edit_models=models,
        per_pair=rows,
        edit_observations=obs,
    )


def _observed_agreement(pairs: Iterable[KappaPair], level: str, include_identical: bool):
    """Each pair with some unit in either annotation, with its θ; and how many had none.
    Every annotation is checked to fit its pair's grid."""
    kept: list[tuple[KappaPair, float]] = []
    skipped = 0
    for p in pairs:
        n, m = len(p.source), len(p.target)
        for a in (p.seed, p.first, p.second):
            a.validate(n, m)
        ua = units(p.source, p.target, p.first, level, include_identical=include_identical)
        ub = units(p.source, p.target, p.second, level, include_identical=include_identical)
        if not ua and not ub:
            skipped += 1
            continue
        kept.append((p, theta(ua, ub)))
    return kept, skipped


def _edit_observations(kept) -> dict[str, tuple[list[int], list[float]]]:
    """Per annotator, the edit models' observations on the pairs that count: each pair's
    N + M and the share of its cells the annotator changed from the seed."""
    obs: dict[str, tuple[list[int], list[float]]] = {}
    for p, _ in kept:
        n, m = len(p.source), len(p.target)
        seed = p.seed.all_links
        for who, ann in ((p.first_annotator, p.first), (p.second_annotator, p.second)):
            lengths, rates = obs.setdefault(who, ([], []))
            lengths.append(n + m)
            rates.append(len(ann.all_links ^ seed) / (n * m))
    return obs


def _chance_agreement(kept, models, level, samples, rng_seed, include_identical, progress):
    """Per pair, θ̂ and the Monte Carlo mean and variance of θ_0 (one random stream, pairs in
    order)."""
    rng = np.random.default_rng(rng_seed)
    enc = TokenEncoder()
    rows: list[PairTheta] = []
    report = progress or silent
    message = f"κ_C at {level} level over {len(kept)} pairs"
    report(0.0 if kept else 1.0, message)
    for p, th in kept:
        n, m = len(p.source), len(p.target)
        sp, ss = enc.encode(p.source)
        tp, ts = enc.encode(p.target)
        seed = np.zeros(n * m, np.uint8)
        for i, j in p.seed.all_links:
            seed[i * m + j] = 1
        same = identical_cells(sp, ss, tp, ts) if level == "word" else np.zeros(1, np.uint8)
        first, second = models[p.first_annotator], models[p.second_annotator]
        mean, m2 = _pair_chance(
            seed, n, m, first.rate(n + m), second.rate(n + m), samples, rng, LEVELS[level],
            same, sp, ss, tp, ts, include_identical,
        )  # fmt: skip
        var = m2 / (samples - 1) if samples > 1 else 0.0
        rows.append(PairTheta(p.pair_id, p.subcorpus, min(n, m), th, float(mean), float(var)))
        report(len(rows) / len(kept), message)
    return rows
