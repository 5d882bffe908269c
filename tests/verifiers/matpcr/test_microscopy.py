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
    (3.2, "um", Outcome.CERTIFIED), (3.21, "um", Outcome.FAILED), (2.5, "nm", Outcome.CERTIFIED),
    (0.0032, "mm", Outcome.CERTIFIED), (0.004, "mm", Outcome.FAILED), (50, "nm", Outcome.CERTIFIED)])
def test_a_size_passes_between_one_pixel_and_the_diagonal(value, unit, outcome):
    assert judge(SEM, claim("microscopy", value, unit)).outcome is outcome


@pytest.mark.parametrize("value", [0.0, -10.0, 1e-6, 2.4])
def test_attack_zero_negative_and_sub_pixel_sizes_are_refused(value):
    assert judge(SEM, claim("microscopy", value, "nm")).outcome is Outcome.FAILED


def test_a_refusal_shows_the_condition_not_the_field_of_view():
    judgement = judge(SEM, claim("microscopy", 10, "um"))
    assert "3200" not in str(judgement.evidence) and judgement.sealed["diagonal_nm"] == 3200.0
