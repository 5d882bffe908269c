"""Raman oracle: a claimed peak must be a genuine local maximum of the spectrum, within 5 cm^-1.

"Genuine" means prominent: scipy.signal.find_peaks keeps maxima whose prominence is at least ten times the
spectrum's noise.  The noise is estimated from the spectrum itself (the median absolute deviation of
successive differences, which lines of a few points' width barely move), so no table of expected lines is
read.  Pure Gaussian noise over a few thousand points reaches about seven standard deviations of
prominence, so ten keeps noise from passing as a line.  Accuracy uses 2 cm^-1 (ACCURACY_CM1).
"""

from __future__ import annotations

import math

import numpy as np

from physvec.verifiers.matpcr.judgement import Judgement, passes, refused
from physvec.verifiers.matpcr.schema import Claim, RamanItem

TOLERANCE_CM1 = 5.0
ACCURACY_CM1 = 2.0
PROMINENCE_IN_NOISE = 10.0


def noise_sigma(intensity: np.ndarray) -> float:
    """The noise's standard deviation: 1.4826 MAD of first differences, over sqrt 2 (a difference adds two)."""
    differences = np.diff(intensity)
    mad = float(np.median(np.abs(differences - np.median(differences))))
    return 1.4826 * mad / math.sqrt(2)


def genuine_peaks(item: RamanItem) -> list[tuple[float, float]]:
    """(shift, prominence) of every local maximum whose prominence is at least ten noise deviations."""
    from scipy.signal import find_peaks

    intensity = np.asarray(item.intensity)
    threshold = max(PROMINENCE_IN_NOISE * noise_sigma(intensity), np.finfo(float).tiny)
    indices, properties = find_peaks(intensity, prominence=threshold)
    return [(item.shift_cm1[i], float(p)) for i, p in zip(indices, properties["prominences"])]


def judge(item: RamanItem, claim: Claim) -> Judgement:
    """Whether a prominent maximum of the spectrum lies within 5 cm^-1 of the claimed shift."""
    value = float(claim.value)  # type: ignore[arg-type]
    evidence = {"claimed_shift_cm1": value, "tolerance_cm1": TOLERANCE_CM1,
                "prominence": f">= {PROMINENCE_IN_NOISE:g} noise standard deviations"}
    low, high = item.shift_cm1[0], item.shift_cm1[-1]
    if not low <= value <= high:
        return refused(f"the shift lies outside the measured range [{low}, {high}] cm^-1", evidence)
    peaks = genuine_peaks(item)
    nearest = min(peaks, key=lambda peak: abs(peak[0] - value), default=None)
    holds = nearest is not None and abs(nearest[0] - value) <= TOLERANCE_CM1
    return passes(holds, "a prominent maximum lies within 5 cm^-1",
                  "no prominent local maximum of the spectrum lies within 5 cm^-1", evidence,
                  {"nearest_peak_cm1": nearest[0] if nearest else None, "peaks": [list(p) for p in peaks]})
