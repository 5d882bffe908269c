"""Microscopy oracle: a claimed feature size must be one the micrograph, as its scale bar describes it, can show.

The scale is the bar's physical length over its length in pixels; the bar is drawn in the image, so a bar
longer than the image is wide describes no micrograph and nothing is read from it.  The image is width x
height pixels, so no feature wholly inside it is longer than its diagonal (the bound used here: a feature
lying along the diagonal is legitimately longer than the width).  A feature must span at least
NYQUIST_PIXELS pixels (tolerances.py): lattice fringes 0.31 nm apart cannot be seen at 0.2 nm per pixel.
These are necessary conditions only: a size that passes may still be wrong.
"""

from __future__ import annotations

import math

from physvec.verifiers.matpcr.judgement import Judgement, passes, refused
from physvec.verifiers.matpcr.schema import Claim, MicroscopyItem
from physvec.verifiers.matpcr.tolerances import NYQUIST_PIXELS

NM_PER_UNIT = {"nm": 1.0, "um": 1e3, "mm": 1e6}


def field_of_view_nm(item: MicroscopyItem) -> dict[str, float]:
    """The pixel size, the image's width, height and diagonal, all in nanometres."""
    pixel = item.scale_bar_length * NM_PER_UNIT[item.scale_bar_unit] / item.scale_bar_px
    width, height = item.image_width_px * pixel, item.image_height_px * pixel
    return {"pixel_nm": pixel, "width_nm": width, "height_nm": height, "diagonal_nm": math.hypot(width, height)}


def judge(item: MicroscopyItem, claim: Claim) -> Judgement:
    """Whether the claimed size lies between the Nyquist limit (two pixels) and the image diagonal, on a scale
    bar that fits in the image."""
    size = float(claim.value) * NM_PER_UNIT[str(claim.unit)]  # type: ignore[arg-type]
    evidence = {"claimed_size_nm": size,
                "condition": f"{NYQUIST_PIXELS:g} pixels <= size <= the image diagonal, scale bar within the image"}
    if size <= 0:
        return refused("a feature size must be positive", evidence)
    if item.scale_bar_px > item.image_width_px:
        return refused(f"the scale bar ({item.scale_bar_px:g} px) is longer than the image is wide "
                       f"({item.image_width_px} px): no scale can be read from it", evidence)
    view = field_of_view_nm(item)
    if size < NYQUIST_PIXELS * view["pixel_nm"]:
        return refused(f"the feature spans fewer than {NYQUIST_PIXELS:g} pixels of the micrograph (Nyquist): it "
                       "cannot be resolved", evidence, view)
    return passes(size <= view["diagonal_nm"], "the feature fits in the field of view",
                  "the feature is larger than the field of view implied by the scale bar", evidence, view)
