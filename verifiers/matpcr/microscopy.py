"""Microscopy oracle: a claimed feature size must fit inside the field of view the scale bar implies.

The scale is the bar's physical length over its length in pixels; the image is width x height pixels, so
no feature wholly inside it is longer than its diagonal (the bound used here: a feature lying along the
diagonal is legitimately longer than the width).  A feature is also at least one pixel across, or the
micrograph cannot show it.  Both are necessary conditions only: a size that passes may still be wrong.
"""

from __future__ import annotations

import math

from physvec.verifiers.matpcr.judgement import Judgement, passes, refused
from physvec.verifiers.matpcr.schema import Claim, MicroscopyItem

NM_PER_UNIT = {"nm": 1.0, "um": 1e3, "mm": 1e6}


def field_of_view_nm(item: MicroscopyItem) -> dict[str, float]:
    """The pixel size, the image's width, height and diagonal, all in nanometres."""
    pixel = item.scale_bar_length * NM_PER_UNIT[item.scale_bar_unit] / item.scale_bar_px
    width, height = item.image_width_px * pixel, item.image_height_px * pixel
    return {"pixel_nm": pixel, "width_nm": width, "height_nm": height, "diagonal_nm": math.hypot(width, height)}


def judge(item: MicroscopyItem, claim: Claim) -> Judgement:
    """Whether the claimed size lies between one pixel and the image diagonal."""
    size = float(claim.value) * NM_PER_UNIT[str(claim.unit)]  # type: ignore[arg-type]
    evidence = {"claimed_size_nm": size, "condition": "one pixel <= size <= the image diagonal"}
    if size <= 0:
        return refused("a feature size must be positive", evidence)
    view = field_of_view_nm(item)
    if size < view["pixel_nm"]:
        return refused("the feature is smaller than one pixel of the micrograph", evidence, view)
    return passes(size <= view["diagonal_nm"], "the feature fits in the field of view",
                  "the feature is larger than the field of view implied by the scale bar", evidence, view)
