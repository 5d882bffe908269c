"""The MatPCR red team's claims wrong inside a window (the classes are listed in redteam_matpcr.py): a Bragg peak
0.2-0.45 deg off, 'stable' above the hull, gaps and moments off by more than their measured spread, a wrong
magnetic order or one claimed above T_C or T_N, a feature below two pixels; each class mixes in right claims,
which must certify.  Truth comes from redteam_matpcr_truth only.
"""

from __future__ import annotations

import math
import random
from typing import Any

from physvec.agents.redteam_matpcr_cases import (
    Case, claim, claims_file, hkl_text, name, near_miss, pick, strong_reflection,
)
from physvec.agents.redteam_matpcr_truth import (
    CU_K_ALPHA1, CUBIC, ENTHALPIES, GAPS, MAGNETIC, MOMENTS, bragg_two_theta, diffraction_truth, e_above_hull,
    feature_truth, gap_truth, hull_distance_truth, moment_truth, order_truth, stable_truth,
)

ABSENT = {"diamond": ((2, 0, 0), (4, 2, 0)), "fcc": ((1, 0, 0), (1, 1, 0), (2, 1, 0), (2, 1, 1)),
          "rocksalt": ((1, 0, 0), (1, 1, 0), (2, 1, 0)), "bcc": ((1, 0, 0), (1, 1, 1), (2, 1, 0))}
"""systematically absent reflections of each lattice (no allowed reflection shares their h^2 + k^2 + l^2)"""


def near_miss_bragg(rng: random.Random) -> Case | None:
    """Si (220) claimed at 47.0 deg and its kind: a reflection 0.21-0.45 deg off, an absent one at its Bragg angle,
    or (the control) the right angle; half of them name the reflection."""
    material = pick(rng, tuple(CUBIC))
    cell, reflection = CUBIC[material], strong_reflection(rng, material)
    mode = pick(rng, ("near_miss", "near_miss", "exact", "absent_named"))
    hkl = reflection.hkl
    if mode == "absent_named":
        hkl = pick(rng, ABSENT[cell.lattice])
        claimed = round(bragg_two_theta(cell.a / math.sqrt(sum(i * i for i in hkl)), CU_K_ALPHA1) or 0.0, 2)
    else:
        claimed = near_miss(rng, reflection.two_theta) if mode == "near_miss" else \
            round(reflection.two_theta + rng.uniform(-0.02, 0.02), 2)
    named = mode == "absent_named" or rng.random() < 0.5
    truth = diffraction_truth(material, claimed, hkl=hkl if named else None)
    item_claim = claim("diffraction", value=claimed, unit="deg", hkl=list(hkl) if named else None)
    return Case(f"{material} {hkl_text(hkl) if named else ''} at {claimed} ({mode})",
                claims_file(f"diffraction:{material}", (item_claim,)), truth or "",
                f"Bragg's law, a = {cell.a} A: {hkl_text(reflection.hkl)} at {reflection.two_theta:.2f} deg")


ON_HULL = tuple(m for m in ENTHALPIES if stable_truth(m) == "right")
ABOVE_HULL = tuple(m for m in ENTHALPIES if stable_truth(m) == "wrong")


def stability_above_hull(rng: random.Random) -> Case | None:
    """'Stable' for anatase and FeO (0.018 and 0.039 eV/atom above our hull) and for materials on it, and hull
    distances off by 0.025-0.045 eV/atom or right."""
    mode = pick(rng, ("stable_above", "stable_above", "stable_on", "distance_right", "distance_off"))
    material = pick(rng, ABOVE_HULL if mode == "stable_above" else ON_HULL if mode == "stable_on" else
                    tuple(ENTHALPIES))
    above = e_above_hull(material)
    if mode.startswith("stable"):
        item_claim, truth = claim("stability", label="stable"), stable_truth(material)
    else:
        value = above + (rng.uniform(-0.003, 0.003) if mode == "distance_right" else
                         (1 if above < 0.05 or rng.random() < 0.5 else -1) * rng.uniform(0.025, 0.045))
        value = max(0.0, value)
        mev = rng.random() < 0.4
        shown = round(value * 1000) if mev else round(value, 3)
        item_claim = claim("stability", value=shown, unit="meV/atom" if mev else "eV/atom")
        truth = hull_distance_truth(material, shown / 1000 if mev else shown)
    return Case(f"{material}: {item_claim.get('label') or item_claim['value']} ({mode})",
                claims_file(f"stability:{material}", (item_claim,)), truth or "",
                f"our hull (CRC enthalpies): {above:.4f} eV/atom above")


def band_gap_value_off(rng: random.Random) -> Case | None:
    """A numeric gap off by more than three measured spreads (most inside the same class: Si at 3.5 eV), or right."""
    material = pick(rng, tuple(GAPS))
    gap = GAPS[material]
    if rng.random() < 0.6:
        low = 1.15 * max(3 * gap.spread, 0.3)
        offset = rng.uniform(low, low + 0.5 * gap.value + 0.5)
        value = rng.uniform(0.4, 1.5) if gap.value == 0 else gap.value + pick(rng, (-1, 1)) * offset
        value = max(value, 0.05)
    else:
        value = gap.value + rng.uniform(-gap.spread / 2, gap.spread / 2)
    value = round(value, 2)
    return Case(f"{material} {value} eV",
                claims_file(f"band_gap:{material}", (claim("band_gap", value=value, unit="eV"),)),
                gap_truth(material, value) or "", f"measured {gap.value} +- {gap.spread} eV ({gap.source[:80]})")


def moment_value_off(rng: random.Random) -> Case:
    """A net moment 4-10 % off (inside a 10 % window: Ni 0.70, Gd 7.0 muB), a moment for a zero-moment material,
    or the right one."""
    material = pick(rng, tuple(MOMENTS))
    moment = MOMENTS[material]
    if rng.random() < 0.6:
        low = 1.1 * max(4 * moment.spread, 0.04 * moment.value, 0.03)
        offset = rng.uniform(low, max(0.099 * moment.value, 1.5 * low)) if moment.value else rng.uniform(0.1, 2.0)
        value = moment.value + (pick(rng, (-1, 1)) if moment.value else 1) * offset
    else:
        value = moment.value + rng.uniform(-moment.spread / 2, moment.spread / 2)
    value = round(abs(value), 3)
    unit = "muB/atom" if material in ("Fe", "Co", "Ni", "Gd") and rng.random() < 0.5 else "muB/f.u."
    return Case(f"{material} {value} {unit}", claims_file(f"magnetisation:{material}", (
        claim("magnetisation", value=value, unit=unit),)), moment_truth(material, value) or "",
        f"measured {moment.value} +- {moment.spread} muB/f.u.")


ORDERS = ("ferromagnetic", "ferrimagnetic", "antiferromagnetic", "paramagnetic", "diamagnetic")


def _confusable(material: str, order: str) -> bool:
    """Ferro- for a ferrimagnet (and back) is loose usage, not a wrong claim worth generating."""
    return {MAGNETIC[material].ground, order} == {"ferromagnetic", "ferrimagnetic"}


def wrong_magnetic_ordering(rng: random.Random) -> Case:
    """'MnO is diamagnetic': an order other than the reference's (or, the control, the right one) in reasoning."""
    material = pick(rng, tuple(MAGNETIC))
    actual = MAGNETIC[material].ground
    wrong = [o for o in ORDERS if o != actual and not _confusable(material, o)]
    order = pick(rng, wrong) if rng.random() < 0.6 else actual
    text = pick(rng, ("{m} is {o}.", "Susceptibility and neutron data show that {m} is {o}.",
                      "The ground state of {m} is {o}.")).format(m=name(material), o=order)
    return Case(f"{material} {order}", claims_file(f"magnetisation:{material}", reasoning=text),
                order_truth(material, order) or "", f"{material} is {actual} ({MAGNETIC[material].source[:80]})")


def temperature(rng: random.Random, transition: float, celsius: bool) -> tuple[str, float, bool]:
    """A temperature 10-60 % above the transition or 15-70 % below it, as written and in kelvin."""
    above = rng.random() < 0.6
    kelvin = transition * (rng.uniform(1.1, 1.6) if above else rng.uniform(0.3, 0.85))
    if celsius:
        written = round(kelvin - 273.15)
        return f"{written} °C", written + 273.15, above
    return f"{round(kelvin)} K", float(round(kelvin)), above


def moment_above_transition(rng: random.Random) -> Case:
    """An order or a spontaneous moment claimed above T_C or T_N (Fe at 1100 K, Gd at 50 °C); or (right) the order
    below it, paramagnetism above it, the saturation moment at liquid-helium or liquid-nitrogen temperature."""
    material = pick(rng, [m for m, magnetic in MAGNETIC.items() if magnetic.transition_K])
    magnetic = MAGNETIC[material]
    written, kelvin, above = temperature(rng, float(magnetic.transition_K), rng.random() < 0.4)
    ordered = magnetic.ground in ("ferromagnetic", "ferrimagnetic")
    form = pick(rng, ("order", "moment", "paramagnetic") if above else ("order", "order", "cold_moment"))
    if form in ("moment", "cold_moment") and ordered:
        if form == "cold_moment":
            kelvin = pick(rng, (4.2, 77.0))
            written = f"{kelvin:g} K"
        moment = MOMENTS[material].value
        text = f"At {written}, {name(material)} carries a spontaneous moment of {moment:.2f} μB per formula unit."
        truth = moment_truth(material, round(moment, 2), kelvin)
    elif form == "paramagnetic":
        word = "Curie" if ordered else "Néel"
        text = f"At {written}, above its {word} temperature, {name(material)} is paramagnetic."
        truth = order_truth(material, "paramagnetic", kelvin)
    else:
        text = f"At {written}, {name(material)} is {magnetic.ground}."
        truth = order_truth(material, magnetic.ground, kelvin)
    return Case(f"{material} at {written}: {form}", claims_file(f"magnetisation:{material}", reasoning=text),
                truth or "", f"transition at {magnetic.transition_K} K")


def micrograph(rng: random.Random) -> tuple[dict[str, Any], float]:
    """An inline micrograph item (scale bar and image size) and its pixel size in nm, from 0.02 nm (a TEM at
    high magnification) to a micrometre (an optical micrograph)."""
    unit = pick(rng, ("nm", "um"))
    length = pick(rng, (5, 10, 20, 50, 100, 200, 500) if unit == "nm" else (1, 2, 5, 10, 20, 50))
    bar, width = rng.randint(50, 250), pick(rng, (512, 1024, 1280, 2048, 4096))
    item = {"constraint": "microscopy", "id": "redteam:micrograph", "scale_bar_px": bar, "scale_bar_length": length,
            "scale_bar_unit": unit, "image_width_px": width, "image_height_px": pick(rng, (512, width * 3 // 4, width))}
    return item, length * (1000 if unit == "um" else 1) / bar


NM_PER_UNIT = {"nm": 1.0, "um": 1e3, "mm": 1e6}


def length_text(nm: float) -> tuple[float, str]:
    """A length as a microscopist writes it: three significant figures in nm, um or mm."""
    value, unit = (nm, "nm") if nm < 1000 else (nm / 1e3, "um") if nm < 1e6 else (nm / 1e6, "mm")
    return float(f"{value:.3g}"), unit


def sub_nyquist_feature(rng: random.Random) -> Case:
    """0.31 nm fringes at 0.2 nm per pixel: a feature under two pixels, one beyond the image, one measured with a
    scale bar longer than the image is wide, or a right one."""
    item, pixel = micrograph(rng)
    width, height = item["image_width_px"], item["image_height_px"]
    mode = pick(rng, ("sub_nyquist", "sub_nyquist", "beyond_image", "right", "bar_longer_than_image"))
    if mode == "sub_nyquist":
        pixels = rng.uniform(0.5, 1.9)
    elif mode == "beyond_image":
        pixels = math.hypot(width, height) * rng.uniform(1.6, 6)
    else:
        pixels = math.exp(rng.uniform(math.log(3), math.log(0.8 * min(width, height))))
    value, unit = length_text(pixels * pixel)
    if mode == "bar_longer_than_image":
        item["scale_bar_px"] = int(width * rng.uniform(1.2, 3.0))
    size_nm = value * NM_PER_UNIT[unit]
    truth = feature_truth(pixel, width, height, size_nm, item["scale_bar_px"])
    return Case(f"{value} {unit} at {pixel:.3g} nm/px on {width}x{height} ({mode})", claims_file(
        item, (claim("microscopy", value=value, unit=unit),)), truth or "",
        f"{size_nm / pixel:.2f} pixels (at least 2 to be resolved), image {width}x{height} px, bar "
        f"{item['scale_bar_px']} px")
