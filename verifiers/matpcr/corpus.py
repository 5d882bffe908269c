"""Items by id, so a claims file can name the item it is about instead of carrying it.

Ids are CONSTRAINT:NAME: diffraction:<structure id> (Cu K-alpha1), raman:<material> or raman:<material>:<seed>
(a generated spectrum), microscopy:<name> (the scale bars below), and stability:, band_gap:, magnetisation:
followed by a material id of the reference provider.  An item named by id is data the model cannot write.
A seed is read only as ASCII digits of bounded length: str.isdigit accepts '²' and other digits int() refuses,
and int() refuses more than 4300 digits, so either would otherwise end in a traceback instead of exit 2.
"""

from __future__ import annotations

import re

from physvec.verifiers.matpcr.schema import DiffractionItem, MalformedInput, MaterialItem, MicroscopyItem, RamanItem
from physvec.verifiers.matpcr.spectra import LINES, spectrum
from physvec.verifiers.matpcr.structures import STRUCTURES

MICROSCOPY: dict[str, MicroscopyItem] = {item.id: item for item in (
    MicroscopyItem(constraint="microscopy", id="microscopy:sem-500nm", scale_bar_px=200, scale_bar_length=500,
                   scale_bar_unit="nm", image_width_px=1024, image_height_px=768),
    MicroscopyItem(constraint="microscopy", id="microscopy:tem-20nm", scale_bar_px=100, scale_bar_length=20,
                   scale_bar_unit="nm", image_width_px=2048, image_height_px=2048),
    MicroscopyItem(constraint="microscopy", id="microscopy:optical-50um", scale_bar_px=250, scale_bar_length=50,
                   scale_bar_unit="um", image_width_px=1600, image_height_px=1200),
)}

Item = DiffractionItem | MicroscopyItem | RamanItem | MaterialItem
SEED = re.compile(r"[0-9]{1,18}")
"""a spectrum's seed: at most 18 ASCII digits (below 10**18, so within numpy's 64-bit seeds)"""


def raman_seed(text: str) -> int:
    """The seed of a raman:<material>:<seed> id (none given: 0); MalformedInput naming the item otherwise."""
    if text == "":
        return 0
    if SEED.fullmatch(text) is None:
        shown = text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
        raise MalformedInput(f"item: the seed of a raman item must be 1 to 18 ASCII digits, not {shown!r}")
    return int(text)


def corpus_item(item_id: str) -> Item:
    """The item with this id (MalformedInput naming what is known when there is none)."""
    kind, _, name = item_id.partition(":")
    if kind == "diffraction" and name in STRUCTURES:
        return DiffractionItem(constraint="diffraction", id=item_id, material=name)
    if kind == "raman":
        material, _, seed = name.partition(":")
        if material in LINES:
            return spectrum(material, raman_seed(seed))
    if item_id in MICROSCOPY:
        return MICROSCOPY[item_id]
    if kind in ("stability", "band_gap", "magnetisation") and name:
        return MaterialItem(constraint=kind, id=item_id, material=name)  # type: ignore[arg-type]
    raise MalformedInput(f"item: no corpus item {item_id!r} (ids are diffraction:<structure>, raman:<material>[:seed], "
                         f"{', '.join(MICROSCOPY)}, or stability:/band_gap:/magnetisation:<material>)")
