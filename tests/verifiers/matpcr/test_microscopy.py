"""Microscopy oracle against a scale bar computed by hand."""

from __future__ import annotations

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.microscopy import field_of_view_nm, judge
from physvec.verifiers.matpcr.schema import MicroscopyItem
from tests.verifiers.matpcr.conftest import claim

# a 200-pixel bar is 500 nm: 2.5 nm per pixel; 1024 x 768 pixels are 2560 nm x 1920 nm, diagonal 3200 nm
SEM = MicroscopyItem(constraint="microscopy", id="sem", scale_bar_px=200, scale_bar_length=500, scale_bar_unit="nm",
                     image_width_px=1024, image_height_px=768)


def test_the_field_of_view_is_the_hand_computed_one():
    assert field_of_view_nm(SEM) == pytest.approx(
        {"pixel_nm": 2.5, "width_nm": 2560.0, "height_nm": 1920.0, "diagonal_nm": 3200.0})


@pytest.mark.parametrize(("value", "unit", "outcome"), [
    (3.2, "um", Outcome.CERTIFIED), (3.21, "um", Outcome.FAILED), (5.0, "nm", Outcome.CERTIFIED),
    (0.0032, "mm", Outcome.CERTIFIED), (0.004, "mm", Outcome.FAILED), (50, "nm", Outcome.CERTIFIED)])
def test_a_size_passes_between_two_pixels_and_the_diagonal(value, unit, outcome):
    assert judge(SEM, claim("microscopy", value, unit)).outcome is outcome


@pytest.mark.parametrize("value", [0.0, -10.0, 1e-6, 2.4, 2.5, 4.9])
def test_attack_zero_negative_and_sub_nyquist_sizes_are_refused(value):
    # 2.5 nm per pixel: a feature needs two pixels, 5 nm, to be resolved (Shannon 1949)
    assert judge(SEM, claim("microscopy", value, "nm")).outcome is Outcome.FAILED


def test_attack_lattice_fringes_below_the_nyquist_limit_are_refused():
    # the red team's case: 0.31 nm fringes at 0.2 nm per pixel (a 20 nm bar over 100 px) span 1.55 pixels
    tem = MicroscopyItem(constraint="microscopy", id="tem", scale_bar_px=100, scale_bar_length=20,
                         scale_bar_unit="nm", image_width_px=2048, image_height_px=2048)
    judgement = judge(tem, claim("microscopy", 0.31, "nm"))
    assert judgement.outcome is Outcome.FAILED and "Nyquist" in judgement.message
    assert judge(tem, claim("microscopy", 0.4, "nm")).outcome is Outcome.CERTIFIED


def test_attack_a_scale_bar_longer_than_the_image_is_refused():
    # a 2000-pixel bar cannot be drawn in a 1024-pixel-wide image; the claim would fit its implied scale
    wide_bar = SEM.model_copy(update={"scale_bar_px": 2000.0})
    judgement = judge(wide_bar, claim("microscopy", 50, "nm"))
    assert judgement.outcome is Outcome.FAILED and "longer than the image is wide" in judgement.message
    assert judge(SEM.model_copy(update={"scale_bar_px": 1024.0}), claim("microscopy", 50, "nm")).outcome is \
        Outcome.CERTIFIED


def test_a_refusal_shows_the_condition_not_the_field_of_view():
    judgement = judge(SEM, claim("microscopy", 10, "um"))
    assert "3200" not in str(judgement.evidence) and judgement.sealed["diagonal_nm"] == 3200.0
