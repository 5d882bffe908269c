"""Raman oracle: a claimed shift must have a genuine line of the spectrum within 5 cm^-1.

"Genuine" is the counting noise model of spectra.py: counts at least five standard deviations above a
local baseline (Poisson, with a floor of one count per channel, so a dark or sparse spectrum shows no line),
not a cosmic-ray spike one or two channels wide, and at least half the spectrometer's resolution wide.  The
spectrum is read as it is given; no table of expected lines is read.  A shift outside the measured range, or
so near its edge that no baseline fits, or a spectrum too coarsely sampled or too short to tell a line from a
spike, is unknown, not a violation.

Constants (the Raman tolerances, in one place): TOLERANCE_CM1 is the published design's consistency window;
ACCURACY_CM1 its accuracy criterion; RESOLUTION_CM1 the resolution assumed when an item states none.
"""

from __future__ import annotations

import numpy as np

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.judgement import Judgement, passes
from physvec.verifiers.matpcr.schema import Claim, RamanItem
from physvec.verifiers.matpcr.spectra import SNR_MIN, Feature, defect, features, read, unreadable

TOLERANCE_CM1 = 5.0
ACCURACY_CM1 = 2.0
RESOLUTION_CM1 = 2.0
"""A dispersive spectrometer with a 1800 grooves/mm grating resolves a few cm^-1 or better; an item that
knows its instrument states resolution_cm1."""


def resolution(item: RamanItem) -> float:
    return item.resolution_cm1 if item.resolution_cm1 is not None else RESOLUTION_CM1


def assessed(item: RamanItem) -> list[tuple[Feature, str | None]]:
    """Every local maximum of the spectrum with why it is not a line (None: it is one)."""
    found = features(np.asarray(item.shift_cm1), np.asarray(item.intensity), resolution(item))
    return [(feature, defect(feature, resolution(item))) for feature in found]


def lines(item: RamanItem) -> list[Feature]:
    """Every genuine line of the spectrum."""
    return [feature for feature, why in assessed(item) if why is None]


def judge(item: RamanItem, claim: Claim) -> Judgement:
    """Whether a genuine line of the spectrum lies within 5 cm^-1 of the claimed shift."""
    value = float(claim.value)  # type: ignore[arg-type]
    evidence = {"claimed_shift_cm1": value, "tolerance_cm1": TOLERANCE_CM1, "resolution_cm1": resolution(item),
                "line": f"signal-to-noise >= {SNR_MIN:g} over a local baseline (Poisson counts, variance at least "
                        "1 count per channel), not a spike one or two channels wide, at least half the resolution wide"}
    low, high = item.shift_cm1[0], item.shift_cm1[-1]
    if not low <= value <= high:
        return Judgement(Outcome.UNKNOWN, f"the shift lies outside the measured range [{low}, {high}] cm^-1",
                         evidence)
    why = unreadable(np.asarray(item.shift_cm1), resolution(item))
    if why is not None:
        return Judgement(Outcome.UNKNOWN, why, evidence)
    candidates = assessed(item)
    reading = read(candidates, value, TOLERANCE_CM1)
    sealed = {"nearest_peak_cm1": reading.nearest.position if reading.nearest else None,
              "lines": [[f.position, round(f.snr, 1)] for f, why in candidates if why is None]}
    if reading.undecided:
        return Judgement(Outcome.UNKNOWN, f"no line can be judged within 5 cm^-1: {reading.failure}", evidence, sealed)
    return passes(reading.failure is None, "a genuine line lies within 5 cm^-1",
                  f"no genuine line lies within 5 cm^-1: {reading.failure}", evidence, sealed)
