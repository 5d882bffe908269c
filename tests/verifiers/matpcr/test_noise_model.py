"""The counting noise model of spectra and patterns (spectra.py): Poisson counts with a floor of one count,
a stated signal-to-noise threshold over a local baseline, cosmic-ray spikes and widths; and the generator
that samples from it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physvec.verifiers.matpcr.corpus import corpus_item
from physvec.verifiers.matpcr.spectra import (
    LINES,
    MIN_WIDTH,
    SNR_MIN,
    Line,
    defect,
    dispersion,
    features,
    poisson_counts,
    spectrum,
    unreadable,
    voigt,
)

AXIS = np.arange(300.0, 800.0, 0.5)
RESOLUTION = 2.0
"""cm^-1: four channels of 0.5"""


def gaussian_line(area: float, centre: float = 550.0, fwhm: float = RESOLUTION) -> np.ndarray:
    """Expected counts of an unresolved line (the instrument's Gaussian) holding ``area`` counts."""
    sigma = fwhm / (2 * math.sqrt(2 * math.log(2)))
    return area * 0.5 / (sigma * math.sqrt(2 * math.pi)) * np.exp(-0.5 * ((AXIS - centre) / sigma) ** 2)


def strongest(counts: np.ndarray):
    return max((f for f in features(AXIS, counts, RESOLUTION) if f.snr is not None), key=lambda f: f.snr)


def test_the_threshold_is_five_standard_deviations():
    assert SNR_MIN == 5.0


def test_a_line_at_about_three_deviations_is_not_certified_and_one_at_about_seven_is():
    # noise-free counts on 100 per channel: a window of 9 channels scatters by sqrt(9 x 100) = 30 and the
    # baseline fitted to 34 band channels adds sqrt(81/34 x 100) = 15, so 120 counts stand ~3 deviations high
    # and 275 counts ~7 (less when the quadratic baseline is the higher one)
    weak, strong = strongest(100.0 + gaussian_line(120.0)), strongest(100.0 + gaussian_line(275.0))
    assert 2.0 < weak.snr < SNR_MIN and defect(weak, RESOLUTION) is not None
    assert strong.snr > SNR_MIN and defect(strong, RESOLUTION) is None


def test_three_counts_in_a_dark_spectrum_are_not_a_line_because_the_floor_is_one_count():
    # without the floor the variance of a dark spectrum is zero and any count is infinitely significant
    dark = np.zeros(AXIS.size)
    dark[500:503] = 1.0
    assert strongest(dark).snr < 1.0


@pytest.mark.parametrize("mean", [0.1, 3.0, 100.0, 5000.0])
def test_flat_poisson_noise_never_reaches_the_threshold(mean):
    for seed in range(20):
        assert all(f.snr is None or f.snr < SNR_MIN for f in features(AXIS, poisson_counts(np.full(AXIS.size, mean),
                                                                                       seed), RESOLUTION))


def test_the_dispersion_of_poisson_counts_is_one_and_of_scaled_counts_their_scale():
    counts = poisson_counts(np.full(20_000, 200.0), 0)
    assert dispersion(counts, 9) == pytest.approx(1.0, abs=0.15)
    assert dispersion(1000 * counts, 9) == pytest.approx(1000.0, rel=0.15)
    sparse = poisson_counts(np.full(20_000, 0.02), 0)
    assert dispersion(1000 * sparse, 9) >= 1000.0, "at least the count quantum where the median spread is zero"


def test_read_noise_raises_the_dispersion():
    # Gaussian read noise of 10 counts on a mean of 100: variance 100 + 100, twice Poisson's
    counts = poisson_counts(np.full(20_000, 100.0), 1) + np.random.default_rng(1).normal(0, 10, 20_000)
    assert dispersion(counts, 1) == pytest.approx(2.0, rel=0.15)


@pytest.mark.parametrize("channels", [1, 2])
def test_a_spike_one_or_two_channels_wide_is_a_cosmic_ray(channels):
    counts = np.full(AXIS.size, 20.0)
    counts[500:500 + channels] += 500.0
    assert "cosmic ray" in str(defect(strongest(counts), RESOLUTION))


def test_a_feature_narrower_than_half_the_resolution_is_not_a_line():
    # at a resolution of 4 cm^-1 (8 channels) a three-channel block is 1.5 cm^-1 wide: no cosmic ray (it
    # survives losing two channels), but narrower than the instrument lets any line be
    counts = np.full(AXIS.size, 20.0)
    counts[500:503] += 2000.0
    feature = max(features(AXIS, counts, 4.0), key=lambda f: f.snr or 0.0)
    assert feature.snr_without_spike > SNR_MIN and "narrower" in str(defect(feature, 4.0))


def test_an_unresolved_line_is_measured_at_the_resolution_width():
    line = strongest(100.0 + gaussian_line(5000.0))
    assert line.position == pytest.approx(550.0, abs=0.1)
    assert line.fwhm == pytest.approx(RESOLUTION, rel=0.2) and line.fwhm >= MIN_WIDTH * RESOLUTION


def test_a_feature_wider_than_the_largest_width_is_a_halo():
    broad = strongest(100.0 + gaussian_line(2e5, fwhm=30.0))
    assert "halo" in str(defect(broad, RESOLUTION, widest=10 * RESOLUTION)) and defect(broad, RESOLUTION) is None


def test_a_curve_sampled_below_nyquist_or_too_short_is_unreadable():
    assert "single-channel spike" in str(unreadable(np.arange(0.0, 100.0, 1.5), 2.0))
    assert "too few channels" in str(unreadable(np.arange(0.0, 20.0, 0.5), 2.0))
    assert unreadable(AXIS, RESOLUTION) is None


# generation ----------------------------------------------------------------------------------------------

def test_poisson_counts_are_seeded_integers_whose_variance_is_their_mean():
    counts = poisson_counts(np.full(100_000, 7.0), 3)
    assert np.array_equal(counts, poisson_counts(np.full(100_000, 7.0), 3))
    assert np.all(counts == np.round(counts)) and counts.var() == pytest.approx(counts.mean(), rel=0.03)


def test_a_voigt_line_has_its_height_and_the_olivero_longbothum_width():
    # J. J. Olivero and R. L. Longbothum, JQSRT 17, 233 (1977): f_V = 0.5346 f_L + sqrt(0.2166 f_L^2 + f_G^2)
    shift = np.arange(400.0, 600.0, 0.001)
    profile = voigt(shift, Line(500.0, 4.0, 3.0, ""), instrument=2.0)
    above = shift[profile >= 1.5]
    assert profile.max() == pytest.approx(3.0, rel=1e-4)
    assert above[-1] - above[0] == pytest.approx(0.5346 * 4 + math.sqrt(0.2166 * 16 + 4), rel=0.01)


def test_the_old_calls_still_make_items():
    assert spectrum("Si").id == "raman:Si:0" and spectrum("Si", seed=3).id == "raman:Si:3"
    assert corpus_item("raman:GaN:2").intensity == spectrum("GaN", 2).intensity
    assert set(LINES) >= {"Si", "Ge", "C-diamond", "TiO2-anatase", "TiO2-rutile"}


def test_a_dark_spectrum_is_generated_with_no_counts():
    dark = spectrum("Si", seed=1, peak_counts=0.0, background_counts=0.0)
    assert max(dark.intensity) <= 10, "only the slope's few counts"
