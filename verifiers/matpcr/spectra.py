"""Spectra as counts: the Poisson noise model that reads lines out of a measured curve, and the generator of
test spectra that samples from the same model.

A Raman spectrum or a diffraction pattern is a list of detector counts, one per channel, and a count is
Poisson: its variance is its mean.  A feature (a Raman line, a Bragg peak) is therefore judged by its counts
against the counts a local baseline predicts, never by the spectrum's own scatter (a one-count spectrum has
no scatter, so a threshold made of it collapses to zero):

- **baseline**: the higher of a straight line and a quadratic fitted by least squares to two symmetric side
  bands, 2 to 6 half-widths from the feature (the line is the cautious one beside another line, the
  quadratic under a curved background such as an amorphous halo's top); the fit's own uncertainty enters
  the noise;
- **noise floor**: each channel's variance is max(baseline counts, 1) (FLOOR_COUNTS): Poisson, but never
  below one count, because a channel that read zero has not shown that its mean is below one, and a
  threshold built on a zero variance certifies a single stray count.  When the channels scatter more than
  Poisson (read noise, intensities rescaled from counts) the variance, floor included, is multiplied by
  that excess (``dispersion``), never by less than 1, so a spectrum cannot buy significance by being scaled;
- **signal-to-noise**: the counts above the baseline within one FWHM (at least the resolution) of the centre,
  over the standard deviation of that excess; a feature certifies at SNR_MIN or more;
- **cosmic rays**: a cosmic ray lights one detector channel or two adjacent ones, so a feature must keep
  SNR_MIN with its brightest channel and the brighter of that channel's neighbours replaced by the mean of
  the two channels beside them: a spike is not a line however tall;
- **width**: a feature is at least MIN_WIDTH of the instrument resolution wide (a line seen through a
  spectrometer is never narrower than its instrument function); the diffraction oracle also bounds it above.

The generator writes Voigt lines (a phonon's Lorentzian seen through a Gaussian instrument function) on a
sloping background as expected counts and draws Poisson counts from a seeded numpy Generator.  The oracle
never reads the table of lines: it is the ground truth that injection validation compares the oracle with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from physvec.verifiers.matpcr.schema import RamanItem

SNR_MIN = 5.0
"""Five standard deviations: a one-sided Gaussian tail of 3e-7 per feature window, so a claim placed on the
largest noise excursion of a spectrum of a few hundred windows still certifies with odds below 1e-4."""
FLOOR_COUNTS = 1.0
"""The smallest variance of a channel, in counts (see the module docstring)."""
NYQUIST_CHANNELS = 2.0
"""The instrument resolution must span at least two channels, or a line cannot be told from a one-channel
spike (Nyquist: a feature is resolved when sampled at least twice across its width)."""
MIN_WIDTH = 0.5
"""A feature's full width at half maximum is at least half the resolution: the instrument function sets the
narrowest line, and half of it leaves room for the width's own estimation error."""
MIN_BLOCKS = 10
"""Blocks of one feature window the spectrum must hold for its dispersion to be measured."""


@dataclass(frozen=True)
class Feature:
    """A local maximum of the spectrum and what the noise model makes of it."""

    position: float
    fwhm: float
    """full width at half maximum, the instrument's smoothing taken out in quadrature, in axis units"""
    snr: float | None
    """None where the spectrum is too short on one side for the feature's side bands"""
    snr_without_spike: float | None
    """the SNR with the feature's brightest two adjacent channels replaced by the mean of those beside them"""


def unreadable(axis: np.ndarray, resolution: float) -> str | None:
    """Why the noise model cannot judge a curve on this axis at this resolution, or None."""
    step = float(np.median(np.diff(axis)))
    if resolution < NYQUIST_CHANNELS * step:
        return (f"the resolution {resolution:g} spans fewer than {NYQUIST_CHANNELS:g} channels of {step:g}: a line "
                "cannot be told from a single-channel spike")
    if axis.size < MIN_BLOCKS * _window(resolution / step):
        return f"too few channels ({axis.size}) to measure the noise at the resolution {resolution:g}"
    return None


def _window(half_width: float) -> int:
    """Channels in a feature window of this half-width (in channels)."""
    return 2 * math.ceil(half_width) + 1


def dispersion(counts: np.ndarray, block: int) -> float:
    """How many times its Poisson variance a channel's variance is, never below 1.

    The larger of two measures.  The spread of block sums against their mean: differences of adjacent blocks
    cancel a sloping baseline, and their median absolute deviation ignores the few blocks a line crosses
    (where most differences are zero, as in a sparse spectrum, the root mean square of the smallest nine
    tenths stands in).  And the count quantum (``quantum``).  A Poisson spectrum gives 1; read noise or
    rescaled counts more.
    """
    sums = counts[: counts.size // block * block].reshape(-1, block).sum(axis=1)
    deviations = np.abs(np.diff(sums) - np.median(np.diff(sums)))
    mad = float(np.median(deviations))
    smallest = np.sort(deviations)[: deviations.size * 9 // 10]
    spread = 1.4826 * mad if mad > 0 else math.sqrt(float(np.mean(smallest**2)))
    return max(1.0, quantum(counts), spread**2 / (2 * max(float(np.median(sums)), block * FLOOR_COUNTS)))


def quantum(counts: np.ndarray) -> float:
    """The greatest common divisor of whole-number intensities (1 for counts, 1000 for counts multiplied by
    1000), or 1 when they are not whole numbers."""
    if not np.all(counts == np.round(counts)) or counts.max() >= 2**53:
        return 1.0
    return float(np.gcd.reduce(counts.astype(np.int64))) or 1.0


def features(axis: np.ndarray, counts: np.ndarray, resolution: float) -> list[Feature]:
    """Every local maximum of the spectrum smoothed by the instrument function, with its width and SNR.

    The smoothing (a Gaussian of the resolution's width: the matched filter of an unresolved line) only
    finds the maxima and their widths; the SNR is computed from the raw counts.
    """
    from scipy.ndimage import gaussian_filter1d
    from scipy.signal import find_peaks, peak_widths

    channels = np.arange(axis.size, dtype=float)
    step = float(np.median(np.diff(axis)))
    per_channel = resolution / step
    smooth = gaussian_filter1d(counts, per_channel / (2 * math.sqrt(2 * math.log(2))), mode="nearest")
    peaks, _ = find_peaks(smooth)
    if peaks.size == 0:
        return []
    widths, _, left, right = peak_widths(smooth, peaks, rel_height=0.5)
    phi = dispersion(counts, _window(per_channel))
    found = []
    for width, start, stop in zip(widths, left, right):
        fwhm = math.sqrt(max(width**2 - per_channel**2, 0.0))
        centre = (start + stop) / 2
        snr = _snr(counts, round(centre), math.ceil(max(fwhm, per_channel)), phi) or (None, None)
        found.append(Feature(float(np.interp(centre, channels, axis)), fwhm * step, *snr))
    return found


def _snr(counts: np.ndarray, centre: int, half: int, phi: float) -> tuple[float, float] | None:
    """(SNR, SNR without the brightest two adjacent channels) of the window centre +- half over the local
    baseline; None when the spectrum holds no side bands for it.

    The bands run from 2 to 6 half-widths out on both sides, cut symmetrically near an edge but never to less
    than 2 to 3: symmetric bands give every band channel the same positive weight in the linear baseline, so
    another line inside a band can only raise it."""
    outer = min(6 * half, centre, counts.size - 1 - centre)
    if outer < 3 * half:
        return None
    offsets = np.arange(-outer, outer + 1)
    bands = offsets[np.abs(offsets) >= 2 * half]
    band_counts = counts[centre + bands]
    fits = [_baseline(bands / half, band_counts, half, degree) for degree in (1, 2)]
    weights, on_window, on_bands = max(fits, key=lambda fit: float(fit[1].sum()))
    floor = phi * FLOOR_COUNTS  # one count, in the spectrum's units (phi of them when counts were scaled)
    variance = phi * (np.maximum(on_window, floor).sum() + (weights**2 * np.maximum(on_bands, floor)).sum())
    window = counts[centre - half: centre + half + 1]
    excess = float(window.sum() - on_window.sum())
    sigma = math.sqrt(variance)
    return excess / sigma, (excess - _spike(counts, centre - half + int(np.argmax(window)))) / sigma


def _baseline(bands: np.ndarray, band_counts: np.ndarray, half: int,
              degree: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A polynomial baseline fitted by least squares to the side bands (offsets in half-widths): (the weights
    w with the baseline's sum over the window = w . band counts, the baseline on the window, on the bands).

    _snr takes the higher of the linear and the quadratic baseline: the straight line is the cautious one
    beside another line (the quadratic's curvature, pulled by a neighbour in one band, can dive under the
    window), the quadratic beside a curved background (the straight line cuts under an amorphous halo's
    top), so neither case lets noise stand above a baseline that is too low."""
    on_bands = np.vander(bands, degree + 1, increasing=True)
    on_window = np.vander(np.arange(-half, half + 1) / half, degree + 1, increasing=True)
    inverse = np.linalg.inv(on_bands.T @ on_bands)
    coefficients = inverse @ (on_bands.T @ band_counts)
    return on_bands @ (inverse @ on_window.sum(axis=0)), on_window @ coefficients, on_bands @ coefficients


def _spike(counts: np.ndarray, brightest: int) -> float:
    """The counts a cosmic ray at the brightest channel would have added: that channel and its brighter
    neighbour above the mean of the two channels beside the pair."""
    last = counts.size - 1
    left, right = max(brightest - 1, 0), min(brightest + 1, last)
    first = left if counts[left] > counts[right] else brightest
    pair = counts[first: first + 2]
    beside = counts[[max(first - 1, 0), min(first + 2, last)]].mean()
    return float(pair.sum() - pair.size * beside)


EDGE = "too near an edge of the measured range for a baseline on both sides"


def defect(feature: Feature, resolution: float, widest: float | None = None) -> str | None:
    """Why a feature is not a line or peak, or None when it is one (``widest``: the largest width allowed)."""
    if widest is not None and feature.fwhm > widest:
        return (f"a feature {feature.fwhm:.3g} wide, more than {widest:.3g}: much wider than the resolution, an "
                "amorphous halo rather than a Bragg peak")
    if feature.snr is None or feature.snr_without_spike is None:
        return EDGE
    if feature.snr < SNR_MIN:
        return f"signal-to-noise {feature.snr:.2f} over the local baseline, below {SNR_MIN:g}"
    if feature.snr_without_spike < SNR_MIN:
        return "a spike one or two channels wide (a cosmic ray): without those channels it is not significant"
    if feature.fwhm < MIN_WIDTH * resolution:
        return f"narrower ({feature.fwhm:.3g}) than {MIN_WIDTH:g} of the instrument resolution {resolution:g}"
    return None


@dataclass(frozen=True)
class Reading:
    """What a spectrum says about a claimed position."""

    nearest: Feature | None
    """the genuine feature nearest the claim, wherever it lies"""
    failure: str | None
    """why no genuine feature lies within the tolerance (None: one does)"""
    undecided: bool
    """the only candidates within the tolerance lie too near an edge of the measured range to be judged"""


def read(candidates: list[tuple[Feature, str | None]], value: float, tolerance: float) -> Reading:
    """Whether a genuine feature lies within ``tolerance`` of ``value``, and if not, why: the defect of the
    judged candidate nearest the value (one too near an edge for a baseline is not judged), or that no local
    maximum lies there."""
    genuine = [feature for feature, why in candidates if why is None]
    nearest = min(genuine, key=lambda feature: abs(feature.position - value), default=None)
    if nearest is not None and abs(nearest.position - value) <= tolerance:
        return Reading(nearest, None, False)
    near = [(feature, why) for feature, why in candidates if abs(feature.position - value) <= tolerance]
    judged = [(feature, why) for feature, why in near if why != EDGE]
    if not judged:
        return Reading(nearest, f"every candidate there is {EDGE}" if near else "no local maximum lies there",
                       bool(near))
    _, why = min(judged, key=lambda pair: abs(pair[0].position - value))
    return Reading(nearest, f"the candidate nearest the claim is {why}", False)


# generation ----------------------------------------------------------------------------------------------

STEP_CM1 = 0.5
INSTRUMENT_CM1 = 2.0
"""The generated spectra's instrument resolution (Gaussian FWHM), stated in every item they make: a
dispersive spectrometer with a 1800 grooves/mm grating resolves a few cm^-1 or better."""
PEAK_COUNTS = 1000.0
"""Expected counts at the strongest line's maximum (a few seconds on a silicon wafer)."""
BACKGROUND_COUNTS = 20.0
SLOPE_COUNTS_PER_CM1 = 0.01
"""A weak fluorescence background: 20 counts per channel rising by 1 count per 100 cm^-1."""


@dataclass(frozen=True)
class Line:
    position_cm1: float
    fwhm_cm1: float
    height: float
    source: str


PORTO = "S. P. S. Porto, P. A. Fleury and T. C. Damen, Phys. Rev. 154, 522 (1967)"
OHSAKA = "T. Ohsaka, F. Izumi and Y. Fujiki, J. Raman Spectrosc. 7, 321 (1978)"
LINES: dict[str, tuple[Line, ...]] = {
    "Si": (Line(520.7, 3.5, 1.0, "J. H. Parker, D. W. Feldman and M. Ashkin, Phys. Rev. 155, 712 (1967): one-phonon "
                                 "line near 520 cm^-1 at room temperature; 520.7 cm^-1 is the usual calibration value"),),
    "Ge": (Line(300.5, 3.0, 1.0, "J. H. Parker, D. W. Feldman and M. Ashkin, Phys. Rev. 155, 712 (1967)"),),
    "C-diamond": (Line(1332.5, 2.0, 1.0, "S. A. Solin and A. K. Ramdas, Phys. Rev. B 1, 1687 (1970)"),),
    "C-graphite": (Line(1582.0, 15.0, 1.0, "S. Reich and C. Thomsen, Phil. Trans. R. Soc. A 362, 2271 (2004): G band"),),
    "TiO2-anatase": (Line(144.0, 7.0, 1.0, OHSAKA + ": Eg"), Line(399.0, 20.0, 0.25, OHSAKA + ": B1g"),
                     Line(516.0, 20.0, 0.25, OHSAKA + ": A1g + B1g (513, 519)"), Line(639.0, 20.0, 0.3, OHSAKA + ": Eg")),
    "TiO2-rutile": (Line(447.0, 30.0, 1.0, PORTO + ": Eg"), Line(612.0, 40.0, 0.8, PORTO + ": A1g")),
    "MoS2": (Line(383.0, 3.0, 0.6, "T. J. Wieting and J. L. Verble, Phys. Rev. B 3, 4286 (1971): E2g^1"),
             Line(408.0, 4.0, 1.0, "T. J. Wieting and J. L. Verble, Phys. Rev. B 3, 4286 (1971): A1g")),
    "ZnO": (Line(101.0, 2.0, 0.5, "T. C. Damen, S. P. S. Porto and B. Tell, Phys. Rev. 142, 570 (1966): E2 low"),
            Line(437.0, 8.0, 1.0, "T. C. Damen, S. P. S. Porto and B. Tell, Phys. Rev. 142, 570 (1966): E2 high")),
    "SiC-3C": (Line(796.0, 4.0, 1.0, "D. W. Feldman et al., Phys. Rev. 173, 787 (1968): TO"),
               Line(972.0, 5.0, 0.6, "D. W. Feldman et al., Phys. Rev. 173, 787 (1968): LO")),
    "GaN": (Line(568.0, 4.0, 1.0, "H. Harima, J. Phys.: Condens. Matter 14, R967 (2002): E2 high"),
            Line(734.0, 10.0, 0.4, "H. Harima, J. Phys.: Condens. Matter 14, R967 (2002): A1(LO)")),
}


def voigt(shift: np.ndarray, line: Line, instrument: float = INSTRUMENT_CM1) -> np.ndarray:
    """A line of height ``line.height`` at its position: its Lorentzian seen through a Gaussian instrument."""
    from scipy.special import voigt_profile

    sigma, gamma = instrument / (2 * math.sqrt(2 * math.log(2))), line.fwhm_cm1 / 2
    return line.height * voigt_profile(shift - line.position_cm1, sigma, gamma) / voigt_profile(0.0, sigma, gamma)


def poisson_counts(expected: np.ndarray, seed: int) -> np.ndarray:
    """Counts drawn from the expected counts per channel (numpy's seeded Generator)."""
    return np.random.default_rng(seed).poisson(expected).astype(float)


def shift_axis(lines: tuple[Line, ...]) -> np.ndarray:
    """A 0.5 cm^-1 grid reaching beyond every line by 100 cm^-1 or seven of its widths, whichever is more, so
    each line's side bands (up to six widths out) lie in the spectrum."""
    low = max(50.0, min(line.position_cm1 - max(100.0, 7 * line.fwhm_cm1) for line in lines))
    high = max(line.position_cm1 + max(100.0, 7 * line.fwhm_cm1) for line in lines)
    return np.arange(low, high + STEP_CM1 / 2, STEP_CM1)


def spectrum(material: str, seed: int = 0, peak_counts: float = PEAK_COUNTS,
             background_counts: float = BACKGROUND_COUNTS) -> RamanItem:
    """A Raman item for ``material``: Poisson counts of its lines on a weak sloping background."""
    lines = LINES[material]
    shift = shift_axis(lines)
    signal = peak_counts * sum((voigt(shift, line) for line in lines), np.zeros_like(shift))
    background = background_counts + SLOPE_COUNTS_PER_CM1 * (shift - shift[0])
    return RamanItem(constraint="raman", id=f"raman:{material}:{seed}", shift_cm1=shift.round(3).tolist(),
                     intensity=poisson_counts(signal + background, seed).tolist(), material=material,
                     resolution_cm1=INSTRUMENT_CM1)
