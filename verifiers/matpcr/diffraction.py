"""Diffraction oracle: a claimed peak must lie within 0.5 degrees 2theta of a Bragg peak of the reference.

The reference peaks are computed here: pymatgen's XRDCalculator on a structure built from its space group
(structures.py), at the item's wavelength, over all of 0-180 degrees, or the prominent maxima of a measured
pattern.  A claim that names its reflection (hkl) is held to that reflection: the reflection must be allowed
(its structure factor, with atomic numbers as scattering strengths, is not zero; a systematic absence is an
exact zero whatever the scattering factors) and the claimed angle must lie within 0.5 degrees of the angle
Bragg's law gives for it.  This is the necessary condition of the published design, not an accuracy test
(accuracy uses 0.1 degrees, ACCURACY_DEG).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from physvec.verifiers.matpcr.judgement import Judgement, passes, refused
from physvec.verifiers.matpcr.schema import Claim, DiffractionItem, Pattern
from physvec.verifiers.matpcr.structures import STRUCTURES, build

TOLERANCE_DEG = 0.5
ACCURACY_DEG = 0.1
PATTERN_PROMINENCE = 0.05
"""A maximum of a measured pattern counts as a peak when its prominence is at least this fraction of the
pattern's range: well above counting noise, well below any indexed reflection's height."""
ABSENT = 1e-8
"""|F|^2 relative to its largest possible value below which a reflection is systematically absent."""


@dataclass(frozen=True)
class Peak:
    two_theta: float
    intensity: float
    hkls: tuple[tuple[int, ...], ...]


@cache
def structure_peaks(material: str, wavelength: float) -> tuple[Peak, ...]:
    """Every Bragg peak of a reference structure between 0 and 180 degrees 2theta (pymatgen XRDCalculator)."""
    from pymatgen.analysis.diffraction.xrd import XRDCalculator

    pattern = XRDCalculator(wavelength=wavelength).get_pattern(build(material), two_theta_range=(0, 180))
    return tuple(Peak(float(x), float(y), tuple(tuple(family["hkl"]) for family in families))
                 for x, y, families in zip(pattern.x, pattern.y, pattern.hkls))


def pattern_peaks(pattern: Pattern) -> list[Peak]:
    """The prominent local maxima of a measured pattern (scipy.signal.find_peaks)."""
    from scipy.signal import find_peaks

    intensity = np.asarray(pattern.intensity)
    threshold = PATTERN_PROMINENCE * float(intensity.max() - intensity.min())
    indices, _ = find_peaks(intensity, prominence=max(threshold, np.finfo(float).tiny))
    return [Peak(pattern.two_theta[i], float(intensity[i]), ()) for i in indices]


def three_index(hkl: list[int]) -> tuple[int, int, int] | None:
    """(h, k, l) from three Miller or four Miller-Bravais indices; None when i != -(h + k)."""
    if len(hkl) == 3:
        return hkl[0], hkl[1], hkl[2]
    h, k, i, l = hkl
    return (h, k, l) if i == -(h + k) else None


def reflection_two_theta(material: str, hkl: tuple[int, int, int], wavelength: float) -> float | None:
    """2theta of reflection hkl by Bragg's law, or None when it is systematically absent or unreachable."""
    structure = build(material)
    phases = np.exp(2j * math.pi * (structure.frac_coords @ np.asarray(hkl, dtype=float)))
    weights = np.asarray([site.specie.Z for site in structure], dtype=float)
    if abs(weights @ phases) ** 2 < ABSENT * weights.sum() ** 2:
        return None
    ratio = wavelength / (2 * structure.lattice.d_hkl(hkl))
    return math.degrees(2 * math.asin(ratio)) if ratio <= 1 else None


def judge(item: DiffractionItem, claim: Claim) -> Judgement:
    """Whether the claimed 2theta (degrees) has a Bragg peak of the reference within 0.5 degrees."""
    value = float(claim.value)  # type: ignore[arg-type]
    evidence = {"claimed_two_theta_deg": value, "tolerance_deg": TOLERANCE_DEG,
                "wavelength_angstrom": item.wavelength_angstrom}
    if not 0 < value < 180:
        return refused("2theta must lie strictly between 0 and 180 degrees", evidence)
    if item.pattern is not None:
        low, high = item.pattern.two_theta[0], item.pattern.two_theta[-1]
        if not low <= value <= high:
            return refused(f"2theta lies outside the measured range [{low}, {high}] degrees", evidence)
        peaks = pattern_peaks(item.pattern)
        evidence["hkl_checked"] = False
    else:
        if claim.hkl is not None:
            return _judge_reflection(item, claim, value, evidence)
        peaks = structure_peaks(str(item.material), item.wavelength_angstrom)
    nearest = min(peaks, key=lambda peak: abs(peak.two_theta - value), default=None)
    sealed = {"nearest_peak_deg": nearest.two_theta if nearest else None,
              "nearest_hkls": [list(h) for h in nearest.hkls] if nearest else [], "peaks": len(peaks)}
    holds = nearest is not None and abs(nearest.two_theta - value) <= TOLERANCE_DEG
    return passes(holds, "a Bragg peak of the reference lies within 0.5 degrees",
                  "no Bragg peak of the reference lies within 0.5 degrees 2theta", evidence, sealed)


def _judge_reflection(item: DiffractionItem, claim: Claim, value: float, evidence: dict) -> Judgement:
    """A claim that names its reflection: the reflection must be allowed and lie within 0.5 degrees."""
    material = str(item.material)
    evidence["hkl"] = claim.hkl
    hexagonal = STRUCTURES[material].crystal_system in ("hexagonal", "trigonal")
    if len(claim.hkl) == 4 and not hexagonal:  # type: ignore[arg-type]
        return refused("four Miller-Bravais indices belong to hexagonal and trigonal cells only", evidence)
    hkl = three_index(claim.hkl)  # type: ignore[arg-type]
    if hkl is None:
        return refused("Miller-Bravais indices (h k i l) need i = -(h + k)", evidence)
    if hkl == (0, 0, 0):
        return refused("(000) is the direct beam, not a reflection", evidence)
    expected = reflection_two_theta(material, hkl, item.wavelength_angstrom)
    if expected is None:
        return refused("the named reflection is systematically absent or beyond 2theta = 180 degrees for the "
                       "reference structure", evidence)
    return passes(abs(expected - value) <= TOLERANCE_DEG, "the named reflection lies within 0.5 degrees",
                  "the named reflection does not lie within 0.5 degrees 2theta", evidence,
                  {"reflection_two_theta_deg": expected})
