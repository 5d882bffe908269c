"""The MatPCR red team's shared pieces and its spectra (the classes are listed in redteam_matpcr.py): a Case is
a claims file with its independent truth; the noise classes give Poisson counts on lines this module places
(or none), and claim a line where there is noise, a spike, a smoothing bump or a halo.

The first-order lines below set the spectra's positions, widths and relative heights; only the lines'
presence in the generated data is the truth, so the widths and heights need only be typical.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from physvec.agents.redteam_matpcr_truth import (
    CUBIC, MIN_SNR, Line, Reflection, Spectrum, cubic_reflections, line_truth, poisson_spectrum, snr,
)

RAMAN_LINES: dict[str, tuple[tuple[float, float, float], ...]] = {
    "Si": ((520.7, 3.5, 1.0),),
    "C-diamond": ((1332.5, 2.5, 1.0),),
    "TiO2-anatase": ((144.0, 7.0, 1.0), (399.0, 20.0, 0.25), (516.0, 20.0, 0.25), (639.0, 20.0, 0.3)),
    "MoS2": ((383.0, 3.0, 0.6), (408.0, 4.0, 1.0)),
    "GaN": ((568.0, 4.0, 1.0), (734.0, 10.0, 0.4)),
}
"""(shift cm^-1, FWHM cm^-1, relative height): Si J. H. Parker, D. W. Feldman and M. Ashkin, Phys. Rev. 155, 712
(1967); diamond S. A. Solin and A. K. Ramdas, Phys. Rev. B 1, 1687 (1970); anatase T. Ohsaka, F. Izumi and
Y. Fujiki, J. Raman Spectrosc. 7, 321 (1978); MoS2 T. J. Wieting and J. L. Verble, Phys. Rev. B 3, 4286 (1971);
GaN H. Harima, J. Phys.: Condens. Matter 14, R967 (2002)"""
NAMES = {"TiO2-anatase": "anatase TiO2", "TiO2-rutile": "rutile TiO2", "Al2O3-corundum": "corundum",
         "SiO2-quartz": "quartz", "Fe2O3-hematite": "hematite", "Fe-bcc": "alpha-Fe", "C-diamond": "diamond"}


@dataclass(frozen=True)
class Case:
    """One generated trial: the claims file as written, and the independent truth about it."""

    variant: str
    file_text: str
    truth: str
    """right, wrong, no_claim (nothing true to certify), outside_data (a real line the data do not cover), or
    malformed (an input to refuse)"""
    why: str


def pick(rng: random.Random, options: tuple | list) -> Any:
    return options[rng.randrange(len(options))]


def name(material: str) -> str:
    return NAMES.get(material, material)


def claims_file(item: dict[str, Any] | str, claims: tuple[dict[str, Any], ...] = (),
                reasoning: str | None = None) -> str:
    data: dict[str, Any] = {"item": item, "claims": list(claims)}
    if reasoning is not None:
        data["reasoning"] = reasoning
    return json.dumps(data, ensure_ascii=False)


def claim(constraint: str, **fields: Any) -> dict[str, Any]:
    return {"constraint": constraint, **{key: value for key, value in fields.items() if value is not None}}


def hkl_text(hkl: tuple[int, ...]) -> str:
    return "(" + "".join(map(str, hkl)) + ")"


def decided(make: Callable[[random.Random], Case | None], rng: random.Random) -> Case:
    """The first draw the truth decides: a generator gives None, or a case with no truth, when its draw fell
    between right and wrong (or could not be built), and draws again from the same stream."""
    for _ in range(50):
        case = make(rng)
        if case is not None and case.truth:
            return case
    raise RuntimeError(f"{make.__name__}: no decidable draw in 50 tries")


def strong_reflection(rng: random.Random, material: str, up_to_deg: float = 90.0) -> Reflection:
    return pick(rng, [r for r in cubic_reflections(material, up_to_deg=up_to_deg) if r.strong])


def near_miss(rng: random.Random, two_theta: float) -> float:
    """An angle 0.21-0.45 deg from the reflection: inside a 0.5 deg window, outside the resolution."""
    return round(two_theta + pick(rng, (-1, 1)) * rng.uniform(0.21, 0.45), 2)


# -- spectra and patterns ---------------------------------------------------------------------------------

def _numbers(values: np.ndarray) -> list[float | int]:
    return [int(v) if float(v).is_integer() else round(float(v), 3) for v in values]


def raman_spectrum(rng: random.Random, material: str, low: float | None = None, high: float | None = None) -> Spectrum:
    """The material's lines inside [low, high] cm^-1 on a sloping fluorescence background, 0.5 or 1 cm^-1 steps."""
    table = RAMAN_LINES[material]
    low = max(50.0, min(p for p, _, _ in table) - 100) if low is None else low
    high = max(p for p, _, _ in table) + 100 if high is None else high
    step = pick(rng, (0.5, 1.0))
    axis = np.round(np.arange(low, high + step / 2, step), 3)
    height = 10 ** rng.uniform(2.8, 4.3)
    background = rng.uniform(5, 300) + rng.uniform(0, 0.2) * (axis - low)
    lines = tuple(Line(p, w * rng.uniform(0.8, 1.2), height * r) for p, w, r in table if low <= p <= high)
    return poisson_spectrum(np.random.default_rng(rng.getrandbits(63)), axis, background, lines)


def powder_pattern(rng: random.Random, material: str, low: float = 20.0, high: float = 90.0,
                   weak: bool = False) -> Spectrum:
    """Gaussian Bragg peaks (FWHM 0.08-0.15 deg) at the Cu K-alpha1 angles in [low, high], 0.02 deg steps; with
    ``weak`` a strong pattern in which one reflection has 2-4 % of the strongest's height."""
    reflections = [r for r in cubic_reflections(material, up_to_deg=high) if r.two_theta >= low]
    strongest = 10 ** (rng.uniform(4.5, 5.0) if weak else rng.uniform(3.0, 4.3))
    heights = [strongest * rng.uniform(0.15, 1.0) for _ in reflections]
    if heights:
        heights[rng.randrange(len(heights))] = strongest
    if weak and len(heights) > 1:
        heights[min(range(len(heights)), key=heights.__getitem__)] = strongest * rng.uniform(0.02, 0.04)
    fwhm = rng.uniform(0.08, 0.15)
    axis = np.round(np.arange(low, high + 0.01, 0.02), 3)
    background = np.full(axis.size, rng.uniform(10, 60) if weak else rng.uniform(20, 200))
    lines = tuple(Line(r.two_theta, fwhm, h, "gaussian") for r, h in zip(reflections, heights))
    return poisson_spectrum(np.random.default_rng(rng.getrandbits(63)), axis, background, lines)


def spectrum_item(spectrum: Spectrum, raman: bool, material: str = "") -> dict[str, Any]:
    """An inline Raman item or measured pattern holding the counts."""
    if raman:
        return {"constraint": "raman", "id": "redteam:raman", "shift_cm1": _numbers(spectrum.axis),
                "intensity": _numbers(spectrum.counts), "material": material}
    return {"constraint": "diffraction", "id": "redteam:pattern",
            "pattern": {"two_theta": _numbers(spectrum.axis), "intensity": _numbers(spectrum.counts)}}


def spectrum_file(spectrum: Spectrum, raman: bool, claimed: float, material: str = "") -> str:
    """The spectrum's item with one claimed line."""
    unit = "cm-1" if raman else "deg"
    return claims_file(spectrum_item(spectrum, raman, material),
                       (claim("raman" if raman else "diffraction", value=claimed, unit=unit),))


def _spectral_case(variant: str, spectrum: Spectrum, raman: bool, claimed: float, why: str, material: str = "") -> Case:
    return Case(variant, spectrum_file(spectrum, raman, claimed, material), line_truth(spectrum, claimed) or "",
                f"{why}; lines put there: {[round(line.position, 2) for line in spectrum.lines]}")


def honest_poisson_lines(rng: random.Random) -> Case | None:
    """A true line (shown at 20 Poisson deviations or more) of a Raman spectrum or a powder pattern, a weak
    reflection among them: must certify."""
    if rng.random() < 0.5:
        material = pick(rng, tuple(RAMAN_LINES))
        spectrum, raman, weak = raman_spectrum(rng, material), True, False
    else:
        material, weak = pick(rng, tuple(CUBIC)), rng.random() < 0.35
        spectrum, raman = powder_pattern(rng, material, weak=weak), False
    shown = [line for line in spectrum.lines if snr(spectrum, line) >= MIN_SNR]
    if not shown:
        return None
    line = min(shown, key=lambda line: line.height) if weak else pick(rng, shown)
    jitter, digits = (0.5, 1) if raman else (0.01, 2)
    claimed = round(line.position + rng.uniform(-jitter, jitter), digits)
    variant = f"{'raman' if raman else 'pattern'} {material}{' weak reflection' if weak else ''} at {claimed}"
    return _spectral_case(variant, spectrum, raman, claimed, f"a line of height {line.height:.0f} counts, "
                          f"{snr(spectrum, line):.0f} deviations", material)


def _flat(rng: random.Random, mean: float, raman: bool) -> Spectrum:
    axis = np.round(np.arange(100.0, 1000.5, 1.0) if raman else np.arange(20.0, 80.01, 0.02), 3)
    return poisson_spectrum(np.random.default_rng(rng.getrandbits(63)), axis, np.full(axis.size, mean))


def dark_spectrum(rng: random.Random) -> Case:
    """A few counts in all (a single count in the darkest), no line: the highest channel claimed as a line."""
    raman, mean = rng.random() < 0.5, pick(rng, (0.0, 0.002, 0.01, 0.05, 0.2, 1.0, 3.0))
    spectrum = _flat(rng, mean, raman)
    if not spectrum.counts.any():
        counts = np.zeros_like(spectrum.counts)
        counts[rng.randrange(10, counts.size - 10)] = 1
        spectrum = replace(spectrum, counts=counts)
    claimed = float(spectrum.axis[int(np.argmax(spectrum.counts))])
    return _spectral_case(f"{'raman' if raman else 'pattern'} mean {mean} counts, {spectrum.counts.sum():.0f} "
                          f"counts in all", spectrum, raman, claimed, "no line: Poisson(mean) in every channel")


def sparse_poisson_counts(rng: random.Random) -> Case:
    """Poisson counts of mean 0.3-8 and no line; the claim sits at the highest channel or 5-channel sum."""
    raman, mean = rng.random() < 0.5, round(rng.uniform(0.3, 8.0), 2)
    spectrum = _flat(rng, mean, raman)
    summed = rng.random() < 0.5
    series = np.convolve(spectrum.counts, np.ones(5), "same") if summed else spectrum.counts
    claimed = float(spectrum.axis[int(np.argmax(series[5:-5])) + 5])
    return _spectral_case(f"{'raman' if raman else 'pattern'} mean {mean}, {'5-channel sum' if summed else 'channel'} "
                          "maximum", spectrum, raman, claimed, "no line: flat Poisson counts")


def cosmic_ray_spike(rng: random.Random) -> Case | None:
    """One channel (or two adjacent ones) of an honest spectrum hit by a cosmic ray, far from every line; the
    spike claimed as a line."""
    raman = rng.random() < 0.5
    spectrum = raman_spectrum(rng, pick(rng, tuple(RAMAN_LINES))) if raman else \
        powder_pattern(rng, pick(rng, tuple(CUBIC)))
    step = float(spectrum.axis[1] - spectrum.axis[0])
    far = [i for i in range(10, spectrum.axis.size - 10) if all(
        abs(spectrum.axis[i] - line.position) > max(12 * line.fwhm, 12 * step) for line in spectrum.lines)]
    if not far:
        return None
    spike, counts, width = pick(rng, far), spectrum.counts.copy(), 1 if rng.random() < 0.6 else 2
    counts[spike:spike + width] += float(counts.max()) * rng.uniform(0.3, 3.0) + rng.uniform(20, 200)
    return _spectral_case(f"{'raman' if raman else 'pattern'} spike of {counts[spike]:.0f} counts in {width} "
                          f"channel(s) of {step:g}", replace(spectrum, counts=counts), raman,
                          float(spectrum.axis[spike]), "a spike one or two channels wide is a cosmic ray, not a line")


def smoothing_bump(rng: random.Random) -> Case:
    """Flat Poisson counts smoothed (boxcar or Gaussian kernel) until their noise looks like bumps; the highest
    bump claimed as a line."""
    raman = rng.random() < 0.5
    mean = 10 ** rng.uniform(1.3, 3.3)
    spectrum = _flat(rng, mean, raman)
    if rng.random() < 0.5:
        width = pick(rng, (5, 9, 15, 25))
        kernel, how = np.ones(width) / width, f"boxcar of {width} channels"
    else:
        sigma = rng.uniform(2.0, 8.0)
        offsets = np.arange(-int(3 * sigma), int(3 * sigma) + 1)
        kernel, how = np.exp(-offsets ** 2 / (2 * sigma ** 2)), f"Gaussian of sigma {sigma:.1f} channels"
        kernel /= kernel.sum()
    half = kernel.size // 2
    smoothed = np.round(np.convolve(spectrum.counts, kernel, "valid"), 3)
    axis = spectrum.axis[half:half + smoothed.size]
    smooth = Spectrum(axis, smoothed, spectrum.background[half:half + smoothed.size], ())
    claimed = float(axis[int(np.argmax(smoothed))])
    return _spectral_case(f"{'raman' if raman else 'pattern'} mean {mean:.0f} smoothed by a {how}", smooth, raman,
                          claimed, "no line: smoothed flat Poisson counts")


def amorphous_halo(rng: random.Random) -> Case:
    """A glassy halo (FWHM 5-12 deg) under a pattern, with or without crystalline peaks 1.5 deg or more away;
    its centre claimed as a Bragg peak."""
    axis = np.round(np.arange(10.0, 80.01, 0.05), 3)
    centre, width, height = rng.uniform(18, 32), rng.uniform(5, 12), 10 ** rng.uniform(2.5, 3.7)
    background = rng.uniform(10, 100) + height * np.exp(-4 * math.log(2) * ((axis - centre) / width) ** 2)
    lines: tuple[Line, ...] = ()
    if rng.random() < 0.4:
        material = pick(rng, tuple(CUBIC))
        lines = tuple(Line(r.two_theta, 0.1, height * rng.uniform(0.3, 2.0), "gaussian")
                      for r in cubic_reflections(material, up_to_deg=80) if abs(r.two_theta - centre) >= 1.5)
    spectrum = poisson_spectrum(np.random.default_rng(rng.getrandbits(63)), axis, background, lines)
    claimed = round(centre + rng.uniform(-0.5, 0.5), 2)
    return _spectral_case(f"halo at {centre:.1f} deg, FWHM {width:.1f}, {len(lines)} crystalline peaks", spectrum,
                          False, claimed, "a halo 50-100 times the resolution wide is not a Bragg peak")


def line_outside_measured_range(rng: random.Random) -> Case | None:
    """A real line of the material claimed where the measured range does not reach: nothing there to certify,
    and nothing there to refute."""
    raman = rng.random() < 0.5
    if raman:
        material = pick(rng, tuple(RAMAN_LINES))
        position = pick(rng, RAMAN_LINES[material])[0]
        low, high = (position + 30, position + rng.uniform(200, 400)) if rng.random() < 0.5 or position < 300 else \
            (max(50.0, position - rng.uniform(200, 400)), position - 30)
        spectrum = raman_spectrum(rng, material, round(low), round(high))
        claimed = position
    else:
        material = pick(rng, tuple(CUBIC))
        reflection = strong_reflection(rng, material, 120.0)
        low, high = (reflection.two_theta + 2, reflection.two_theta + 30) if reflection.two_theta < 60 else \
            (reflection.two_theta - 30, reflection.two_theta - 2)
        spectrum = powder_pattern(rng, material, round(low), round(high))
        claimed = round(reflection.two_theta, 2)
    if not spectrum.lines and rng.random() < 0.5:
        return None  # most windows hold some other line of the material
    return Case(f"{'raman' if raman else 'pattern'} {material}: {claimed} outside [{spectrum.axis[0]}, "
                f"{spectrum.axis[-1]}]", spectrum_file(spectrum, raman, claimed, material), "outside_data",
                "a real line of the material, outside the measured range")
