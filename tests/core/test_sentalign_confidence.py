"""Bead confidences: the features are what they say (checked against a direct computation),
the shipped coefficients fit the features, and on a short document split from running text
every right bead is above 0.5, the threshold of the review's "Accept all above"."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.sentalign import align_parallel, split_text
from alignment_core.sentalign import confidence as conf
from alignment_core.sentalign._confidence_coef import NULL_COEF, PAIRED_COEF
from alignment_core.sentalign._kernels import get_kernels
from alignment_core.sentalign.align import ParallelConfig, _raw_beads, bead_evidence
from tests.core.test_sentalign_align import DE, FR, GOLD


def _dense(vec, rows) -> dict[int, float]:
    ptr, idx, val = vec
    out: dict[int, float] = {}
    for r in rows:
        for i, v in zip(idx[ptr[r] : ptr[r + 1]], val[ptr[r] : ptr[r + 1]], strict=True):
            out[int(i)] = out.get(int(i), 0.0) + float(v)
    return out


def _cos(x: dict, y: dict) -> float:
    dot = sum(v * y.get(k, 0.0) for k, v in x.items())
    nx = np.sqrt(sum(v * v for v in x.values()))
    ny = np.sqrt(sum(v * v for v in y.values()))
    return dot / (nx * ny) if nx and ny else 0.0


@pytest.mark.parametrize("plain", [False, True])
def test_cosine_features_match_a_direct_computation(plain):
    raw, ev, model, first = _raw_beads(DE, FR, ParallelConfig(), plain)
    paired, null, is_paired = conf.features(raw, ev, model, get_kernels(plain), (DE, FR), first)
    col = {name: k for k, name in enumerate(conf.PAIRED_FEATURES)}
    beads = [b for b in raw if b.src and b.tgt]
    assert len(paired) == len(beads) == int(is_paired.sum())
    assert len(null) == len(raw) - len(beads)
    for row, b in zip(paired, beads, strict=True):
        src, tgt = _dense(ev.src_vec, b.src), _dense(ev.tgt_vec, b.tgt)
        assert row[col["cos"]] == pytest.approx(_cos(src, tgt), abs=1e-9)
        members = [_cos(_dense(ev.src_vec, [i]), tgt) for i in b.src]
        members += [_cos(_dense(ev.tgt_vec, [j]), src) for j in b.tgt]
        assert row[col["weakest"]] == pytest.approx(min(members), abs=1e-9)
        outside = [
            _cos(_dense(ev.src_vec, [i]), _dense(ev.tgt_vec, [j]))
            for i in b.src
            for j in (b.tgt[0] - 1, b.tgt[-1] + 1)
            if 0 <= j < len(FR)
        ] + [
            _cos(_dense(ev.tgt_vec, [j]), _dense(ev.src_vec, [i]))
            for j in b.tgt
            for i in (b.src[0] - 1, b.src[-1] + 1)
            if 0 <= i < len(DE)
        ]
        assert row[col["margin"]] == pytest.approx(row[col["cos"]] - max(outside), abs=1e-9)
        assert row[col["one_one"]] == (len(b.src) == 1 and len(b.tgt) == 1)


def test_first_pass_agreement_is_read_from_the_first_path():
    raw, ev, model, _ = _raw_beads(DE, FR, ParallelConfig(), None)
    paired_beads = [b for b in raw if b.src and b.tgt]
    col = conf.PAIRED_FEATURES.index("first_pass")
    # a first path equal to the final one agrees everywhere; one that merged the first two
    # beads into one agrees on every bead but those two
    cells = [(0, 0)]
    for b in raw:
        cells.append((cells[-1][0] + len(b.src), cells[-1][1] + len(b.tgt)))
    kernels = get_kernels(None)
    same = conf.features(raw, ev, model, kernels, (DE, FR), np.array(cells))[0]
    assert same[:, col].tolist() == [1.0] * len(paired_beads)
    merged = np.array([cells[0], *cells[2:]])
    other = conf.features(raw, ev, model, kernels, (DE, FR), merged)[0]
    assert other[:, col].tolist() == [0.0, 0.0] + [1.0] * (len(paired_beads) - 2)


def test_shipped_coefficients_fit_the_features():
    assert len(PAIRED_COEF) == len(conf.PAIRED_FEATURES)
    assert len(NULL_COEF) == len(conf.NULL_FEATURES)
    ev = bead_evidence(DE, FR)
    assert [(b.src, b.tgt) for b in ev.beads] == GOLD
    # the confidences before calibration are kept beside the features, for the benchmark
    assert len(ev.uncalibrated) == len(GOLD)
    assert all(0.0 <= c <= 1.0 for c in ev.uncalibrated)


FR_TEXT = (
    "En 1953, l'expédition de Karl Herrligkoffer atteignit le Nanga Parbat, p. ex. par "
    "l'arête Rakhiot, le 3 juillet. Hermann Buhl monta seul du camp 5 jusqu'à 8125 m. "
    "Il revint après 41 heures, c.-à-d. le lendemain soir. Le Dr. Herrligkoffer dirigeait "
    "11 alpinistes et 62 porteurs depuis Rawalpindi. En 1962, Toni Kinshofer et Anderl "
    "Mannhardt suivirent la face du Diamir. Reinhold Messner vint en 1970 avec son frère "
    "Günther."
)
DE_TEXT = (
    "1953 erreichte die Expedition von Karl Herrligkoffer den Nanga Parbat, z. B. über den "
    "Rakhiot-Grat, am 3. Juli. Hermann Buhl stieg allein von Lager 5 auf 8125 m. Er kehrte "
    "nach 41 Stunden zurück, d. h. am nächsten Abend. Dr. Herrligkoffer führte 11 "
    "Bergsteiger und 62 Träger von Rawalpindi aus. 1962 folgten Toni Kinshofer und Anderl "
    "Mannhardt der Diamir-Flanke. Reinhold Messner kam 1970 mit seinem Bruder Günther."
)


def test_a_short_document_with_abbreviations_is_accepted_whole_above_one_half():
    """Six sentences a side with "p. ex.", "c.-à-d.", "z. B.", "d. h.", "Dr." and "3. Juli":
    split into six each, aligned 1-1, and every bead's confidence at least 0.5."""
    fr, de = split_text(FR_TEXT, "fr"), split_text(DE_TEXT, "de")
    assert len(fr) == len(de) == 6, (fr, de)
    beads = align_parallel(de, fr)
    assert [(b.src, b.tgt) for b in beads] == [((k,), (k,)) for k in range(6)]
    assert all(b.confidence >= 0.5 for b in beads), [b.confidence for b in beads]
