"""Diffraction oracle: a claimed peak must lie within the instrument resolution (0.1 degrees 2theta unless the
item states its own) of a Bragg peak of the reference structure or of a genuine peak of the measured pattern.

The reference peaks are computed here: pymatgen's XRDCalculator on a structure built from its space group
(structures.py), at the item's wavelength.  Every reflection pymatgen computes counts, however weak, save a
systematic absence's rounding error, so a weak but real reflection such as Si (400) is never refused for its
intensity.  A measured pattern is read by the counting noise model of spectra.py: a peak is at least five
standard deviations above a local baseline, not a cosmic-ray spike, and at most HALO_RESOLUTIONS
resolutions wide; no threshold relative to the strongest peak is applied, and a claim outside the measured
range, or so near its edge that no baseline fits, is unknown.  A claim that names its
reflection (hkl) is held to that reflection: the reflection must be allowed (its structure factor, with
atomic numbers as scattering strengths, is not zero; a systematic absence is an exact zero whatever the
scattering factors) and the claimed angle must lie within the resolution of its Bragg angle.

The work is bounded at any wavelength: the reference reflections are computed only out to a 2theta limit
(``reflection_limit``) that keeps their number below MAX_RECIPROCAL_POINTS and their d-spacing above
D_MIN_ANGSTROM, and a claim beyond the limit is unknown, not violated.  The constants below are every
diffraction tolerance and bound, each with its source.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.judgement import Judgement, passes, refused
from physvec.verifiers.matpcr.schema import Claim, DiffractionItem, Pattern
from physvec.verifiers.matpcr.spectra import SNR_MIN, Feature, defect, features, read, unreadable
from physvec.verifiers.matpcr.structures import STRUCTURES, build

TOLERANCE_DEG = 0.1
"""The default instrument resolution (FWHM) in 2theta, which is the position tolerance: a laboratory
Bragg-Brentano diffractometer with Cu K-alpha measures line-profile standards such as NIST SRM 660 (LaB6) at
0.05-0.1 degrees FWHM, so a claim 0.3 degrees off a reflection (47.0 for Si (220) at 47.30) is a wrong one."""
ACCURACY_DEG = 0.1
"""The published design's accuracy criterion (accuracy.py)."""
HALO_RESOLUTIONS = 3.0
"""A Bragg peak is at most three resolutions wide (0.3 degrees at the default).  Wider than that, a peak of a
laboratory diffractometer is broadened by crystallites below about 30 nm (Scherrer: FWHM = 0.9 lambda /
(L cos theta) is 0.3 degrees at Cu K-alpha for L = 26 nm), and a broad feature cannot be told from the curved
top of an amorphous halo 5-10 degrees wide (silica glass near 22 degrees): the local baseline, fitted 2-6
widths out, misses a halo's top by several standard deviations once the feature is a few tenths of a degree
wide.  Nanocrystalline samples state a coarser resolution."""
D_MIN_ANGSTROM = 0.25
"""The shortest d-spacing computed: pymatgen's scattering factors are the Doyle-Turner fits (Acta Cryst. A24,
390 (1968)), made for sin(theta)/lambda = 1/(2d) <= 2 per angstrom."""
MAX_RECIPROCAL_POINTS = 20_000
"""The most reciprocal-lattice points (4/3 pi g^3 V of them within |g| <= g) a reference pattern is computed
over: about 0.4 s of pymatgen's time.  Corundum at Cu K-alpha needs 2,300 of them over all of 0-180 degrees;
at 0.1 angstrom the bound stops it at 15 degrees, where 0-180 degrees would need 8.5 million."""
ABSENT = 1e-8
"""|F|^2 relative to its largest possible value below which a reflection is systematically absent."""


@dataclass(frozen=True)
class Peak:
    two_theta: float
    intensity: float
    hkls: tuple[tuple[int, ...], ...]


def resolution(item: DiffractionItem) -> float:
    """The item's instrument resolution in degrees 2theta (the default unless it states one)."""
    return item.resolution_deg if item.resolution_deg is not None else TOLERANCE_DEG


def reflection_limit(material: str, wavelength: float) -> float:
    """The largest 2theta (degrees) to which the reference's reflections are computed: where |g| = 1/d reaches
    1/D_MIN_ANGSTROM or the sphere |g| <= g holds MAX_RECIPROCAL_POINTS points, whichever comes first."""
    volume = build(material).lattice.volume
    g_max = min(1 / D_MIN_ANGSTROM, (3 * MAX_RECIPROCAL_POINTS / (4 * math.pi * volume)) ** (1 / 3))
    return 180.0 if wavelength * g_max >= 2 else math.degrees(2 * math.asin(wavelength * g_max / 2))


@lru_cache(maxsize=128)
def structure_peaks(material: str, wavelength: float) -> tuple[Peak, ...]:
    """Every Bragg peak of a reference structure from 0 degrees to ``reflection_limit`` (pymatgen XRDCalculator).

    pymatgen scales intensities to the strongest it finds, so where only extinct reflections are in reach
    (Cu (100) at 5.2 angstrom) it reports one at 100 %, and where none is in reach it raises: a peak is kept
    only when its |F|^2, the intensity over the Lorentz-polarisation factor, is not a systematic absence's
    rounding error, and none is computed when no lattice point is in reach."""
    from pymatgen.analysis.diffraction.xrd import XRDCalculator

    structure, limit = build(material), reflection_limit(material, wavelength)
    shortest = min(structure.lattice.reciprocal_lattice_crystallographic.abc)
    if wavelength * shortest / 2 > math.sin(math.radians(limit / 2)):
        return ()
    pattern = XRDCalculator(wavelength=wavelength).get_pattern(structure, scaled=False, two_theta_range=(0, limit))
    largest = sum(site.specie.Z for site in structure) ** 2
    return tuple(Peak(float(x), float(y), tuple(tuple(family["hkl"]) for family in families))
                 for x, y, families in zip(pattern.x, pattern.y, pattern.hkls)
                 if y / (2 * lorentz_polarisation(x)) >= ABSENT * largest)


def lorentz_polarisation(two_theta: float) -> float:
    """pymatgen's Lorentz-polarisation factor (1 + cos^2 2theta) / (sin^2 theta cos theta)."""
    theta = math.radians(two_theta / 2)
    return (1 + math.cos(2 * theta) ** 2) / (math.sin(theta) ** 2 * math.cos(theta))


def pattern_peaks(pattern: Pattern, width: float) -> list[tuple[Feature, str | None]]:
    """Every local maximum of a measured pattern with why it is not a Bragg peak (None: it is one), for an
    instrument resolution ``width`` in degrees."""
    found = features(np.asarray(pattern.two_theta), np.asarray(pattern.intensity), width)
    return [(feature, defect(feature, width, HALO_RESOLUTIONS * width)) for feature in found]


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
    """Whether the claimed 2theta (degrees) has a Bragg peak within the instrument resolution."""
    value, width = float(claim.value), resolution(item)  # type: ignore[arg-type]
    evidence = {"claimed_two_theta_deg": value, "tolerance_deg": width, "wavelength_angstrom": item.wavelength_angstrom}
    if not 0 < value < 180:
        return refused("2theta must lie strictly between 0 and 180 degrees", evidence)
    if item.pattern is not None:
        return _judge_pattern(item.pattern, value, width, evidence)
    if claim.hkl is not None:
        return _judge_reflection(item, claim, value, evidence)
    material = str(item.material)
    limit = reflection_limit(material, item.wavelength_angstrom)
    if value > limit - width:
        return Judgement(Outcome.UNKNOWN, f"2theta lies beyond the computed reflections, which stop at {limit:.2f} "
                         f"degrees at this wavelength (d >= {D_MIN_ANGSTROM} angstrom and at most "
                         f"{MAX_RECIPROCAL_POINTS:,} reciprocal-lattice points)", evidence)
    peaks = structure_peaks(material, item.wavelength_angstrom)
    nearest = min(peaks, key=lambda peak: abs(peak.two_theta - value), default=None)
    sealed = {"nearest_peak_deg": nearest.two_theta if nearest else None,
              "nearest_hkls": [list(h) for h in nearest.hkls] if nearest else [], "peaks": len(peaks)}
    holds = nearest is not None and abs(nearest.two_theta - value) <= width
    return passes(holds, f"a Bragg peak of the reference lies within {width:g} degrees",
                  f"no Bragg peak of the reference lies within {width:g} degrees 2theta", evidence, sealed)


def _judge_pattern(pattern: Pattern, value: float, width: float, evidence: dict) -> Judgement:
    """A claim about a measured pattern: a genuine peak of it must lie within the resolution."""
    evidence.update(hkl_checked=False, peak=f"signal-to-noise >= {SNR_MIN:g} over a local baseline (Poisson "
                    f"counts), not a spike one or two channels wide, at most {HALO_RESOLUTIONS:g} resolutions wide")
    low, high = pattern.two_theta[0], pattern.two_theta[-1]
    if not low <= value <= high:
        return Judgement(Outcome.UNKNOWN, f"2theta lies outside the measured range [{low}, {high}] degrees", evidence)
    why = unreadable(np.asarray(pattern.two_theta), width)
    if why is not None:
        return Judgement(Outcome.UNKNOWN, why, evidence)
    candidates = pattern_peaks(pattern, width)
    reading = read(candidates, value, width)
    sealed = {"nearest_peak_deg": reading.nearest.position if reading.nearest else None, "nearest_hkls": [],
              "peaks": sum(why is None for _, why in candidates)}
    if reading.undecided:
        return Judgement(Outcome.UNKNOWN, f"no peak can be judged within {width:g} degrees: {reading.failure}",
                         evidence, sealed)
    return passes(reading.failure is None, f"a genuine peak of the pattern lies within {width:g} degrees",
                  f"no genuine peak of the pattern lies within {width:g} degrees: {reading.failure}", evidence, sealed)


def _judge_reflection(item: DiffractionItem, claim: Claim, value: float, evidence: dict) -> Judgement:
    """A claim that names its reflection: the reflection must be allowed and lie within the resolution."""
    material, width = str(item.material), resolution(item)
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
    return passes(abs(expected - value) <= width, f"the named reflection lies within {width:g} degrees",
                  f"the named reflection does not lie within {width:g} degrees 2theta", evidence,
                  {"reflection_two_theta_deg": expected})
