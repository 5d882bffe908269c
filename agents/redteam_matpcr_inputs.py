"""The MatPCR red team's crash and hang classes: ids and numbers `matpcr check` must refuse (exit 2) or judge,
never answer with a traceback; texts a backtracking pattern stalls on, control characters and lone surrogates;
wavelengths at the ends of the schema's range.  Truth comes from redteam_matpcr_truth only.
"""

from __future__ import annotations

import json
import random

import numpy as np

from physvec.agents.redteam_matpcr_cases import Case, claim, claims_file, pick, strong_reflection
from physvec.agents.redteam_matpcr_truth import (
    CORUNDUM, CORUNDUM_CELL, CORUNDUM_STRONG, CUBIC, bragg_two_theta, cubic_reflections, diffraction_truth, gap_truth,
    hexagonal_d, hull_distance_truth, moment_truth,
)

MALFORMED_IDS = ("raman:Si:²", "raman:Si:¹²", "raman:Si:٣", "raman:Si:１２", "raman:Si:𝟗", "raman:Si:-1",
                 "raman:Si:+3", "raman:Si: 7", "raman:Si:1.5", "raman:Si:0x1f", "raman:Si:1_0", "raman:Si:3:4",
                 "raman:", "diffraction:", "diffraction:Si:1", "diffraction:si", "", ":", "stability:",
                 "band_gap:Unobtainium", "microscopy:")
"""ids off the documented grammar CONSTRAINT:NAME[:SEED] (a seed of ASCII digits), or naming nothing"""
POISONS = ("NaN", "Infinity", "-Infinity", "1e400", "true", "1" + "0" * 400, '"28.44"', "null")
WRONG_CLAIM = {"raman": claim("raman", value=470.0, unit="cm-1"),
               "diffraction": claim("diffraction", value=40.0, unit="deg"),
               "stability": claim("stability", value=0.5, unit="eV/atom"),
               "band_gap": claim("band_gap", value=9.0, unit="eV"),
               "microscopy": claim("microscopy", value=1e-3, unit="nm"), "": claim("raman", value=470.0, unit="cm-1")}
"""a claim no item of the kind supports (Si has no first-order Raman line at 470 cm^-1, no reflection at 40 deg)"""


SHAPES = ('{"item": ["diffraction:Si"], "claims": []}', '{"item": "diffraction:Si", "claims": {"value": 28.44}}',
          '{"item": "diffraction:Si", "reasoning": 28.44}', '[]', '"diffraction:Si"', '{}', '',
          '{"item": "diffraction:Si", "claims": ' + "[" * 5000 + "]" * 5000 + "}")
"""claims files of the wrong shape: an item that is a list, claims that are an object, reasoning that is a number,
no object at all, an empty file, lists nested 5000 deep"""
EXTREMES = (1e308, -1e308, 5e-324, 1e-300)
EXTREME_ITEMS = {"diffraction:Si": ("diffraction", "deg", lambda v: diffraction_truth("Si", v)),
                 "band_gap:Si": ("band_gap", "eV", lambda v: gap_truth("Si", v)),
                 "magnetisation:Fe": ("magnetisation", "muB/atom", lambda v: moment_truth("Fe", v)),
                 "stability:FeO": ("stability", "eV/atom", lambda v: hull_distance_truth("FeO", v))}
"""finite numbers at the ends of the double range, each judged by the truth (all wrong: Si has no peak at 1e308
deg or 5e-324 deg, FeO is 0.039 eV/atom above the hull)"""


def malformed_inputs(rng: random.Random) -> Case:
    """`raman:Si:²`, a 5000-digit seed, NaN and 1e400 in place of a number, a 101st Miller index, a wavelength of
    0.05 A, a file of the wrong shape: each must be refused (exit 2) or judged, never a traceback, and never
    certified; and 1e308 or 5e-324 where a number goes, which must be judged."""
    mode = pick(rng, ("id", "id", "huge_seed", "poisoned_number", "out_of_range", "shape", "extreme_finite"))
    if mode in ("id", "huge_seed"):
        seed = str(rng.randint(1, 9)) * pick(rng, (30, 400, 5000))
        item = pick(rng, MALFORMED_IDS) if mode == "id" else f"raman:Si:{seed}"
        text = claims_file(item, (WRONG_CLAIM.get(item.partition(":")[0], WRONG_CLAIM[""]),))
        return Case(f"{mode}: {item[:40]}", text, "malformed" if mode == "id" else "wrong",
                    "off the id grammar" if mode == "id" else "a Si spectrum has no line at 470 cm^-1")
    if mode == "shape":
        text = pick(rng, SHAPES)
        return Case(f"shape: {text[:40]}", text, "malformed", "not a claims file")
    if mode == "extreme_finite":
        item, value = pick(rng, tuple(EXTREME_ITEMS)), pick(rng, EXTREMES)
        constraint, unit, judged = EXTREME_ITEMS[item]
        return Case(f"{item} = {value:g} {unit}", claims_file(item, (claim(constraint, value=value, unit=unit),)),
                    judged(value) or "", "a value hundreds of orders of magnitude from any physical one")
    if mode == "poisoned_number":
        return _poisoned(rng)
    item = {"constraint": "diffraction", "id": "redteam:range", "material": "Si", "wavelength_angstrom": 1.54056}
    fields = {"value": 28.44, "unit": "deg"}
    spot = pick(rng, ("wavelength", "hkl", "unit", "field"))
    if spot == "wavelength":
        item["wavelength_angstrom"] = pick(rng, (0.05, 0.0, -1.54, 1e-300, 11.0))
    elif spot == "hkl":
        fields["hkl"] = pick(rng, ([101, 1, 1], [1, 1], [1, 1, 1, 1, 1], [1.5, 1, 1]))
    elif spot == "unit":
        fields["unit"] = pick(rng, ("rad", "", "°C", "deg2"))
    else:
        fields["valeu"] = 28.44
    return Case(f"out of range: {spot}", claims_file(item, (claim("diffraction", **fields),)), "malformed",
                "outside the documented range or schema")


def _poisoned(rng: random.Random) -> Case:
    """NaN, Infinity, 1e400, a boolean, a 401-digit integer, a string or null where a number goes."""
    where = pick(rng, ("value", "wavelength", "hkl"))
    item = {"constraint": "diffraction", "id": "redteam:poison", "material": "Si",
            "wavelength_angstrom": "__POISON__" if where == "wavelength" else 1.54056}
    fields: dict = {"value": "__POISON__" if where == "value" else 28.44, "unit": "deg"}
    if where == "hkl":
        fields["hkl"] = [1, 1, "__POISON__"]
    token = pick(rng, POISONS)
    text = claims_file(item, (claim("diffraction", **fields),)).replace('"__POISON__"', token)
    return Case(f"{where} = {token[:12]}", text, "malformed", "not a finite number")


JUNK_WRONG_TOKEN = {"diffraction": "1° ", "raman": "1 cm-1 ", "magnetisation": "9 μB ", "stability": "1 eV/atom ",
                    "band_gap": "9 eV "}
TAILS = {"diffraction": (" Si (111) at 28.44°.", " Si (220) at 47.0°."),
         "raman": (" The Si line lies at 520.7 cm-1.", " The Si line lies at 470.0 cm-1."),
         "magnetisation": (" Fe carries 2.22 μB per atom.", " Fe carries 0.50 μB per atom."),
         "stability": (" MgO lies on the convex hull.", " MgO lies 0.04 eV/atom above the hull."),
         "band_gap": (" Si is a semiconductor.", " Si is a metal.")}
"""per constraint: a right and a wrong closing statement (items diffraction:Si, raman:Si, magnetisation:Fe,
stability:MgO, band_gap:Si; Si's Raman line: Parker et al., Phys. Rev. 155, 712 (1967))"""
ITEMS = {"diffraction": "diffraction:Si", "raman": "raman:Si", "magnetisation": "magnetisation:Fe",
         "stability": "stability:MgO", "band_gap": "band_gap:Si"}


CONTROLS = "\u0000\u202e\u0301\ufeff\u200b\u2028\x1b[2J(1) "
"""NUL, a right-to-left override, a combining accent, a byte-order mark, a zero-width space, a line separator, a
terminal escape"""
SURROGATES = "\ud800\udfff\udbff(1) "
"""lone UTF-16 surrogates: legal as JSON escapes, not encodable as UTF-8"""


def _junk(rng: random.Random, constraint: str, size: int) -> tuple[str, bool]:
    """Text a backtracking pattern stalls on, and whether it may hold a (wrong) claim or be refused."""
    shape = pick(rng, ("spaces", "open_hkl", "parens", "hkl_run", "digits", "two_theta_run", "dots", "random", "units",
                       "controls", "surrogates"))
    if shape in ("units", "surrogates"):
        token = JUNK_WRONG_TOKEN[constraint] if shape == "units" else SURROGATES
        return (token * (size // len(token) + 1))[:size], True
    if shape == "controls":
        return "".join(rng.choice(CONTROLS) for _ in range(size)), False
    return {"spaces": "(1 1 1)" + " " * size, "open_hkl": "(1 1 1" + " " * size, "parens": "(" * size,
            "hkl_run": "(1,1,1) " * (size // 8), "digits": "1 " * (size // 2), "two_theta_run": "2θ = " * (size // 5),
            "dots": "1." * (size // 2), "random": "".join(rng.choice("()-,. 0123456789θ2") for _ in range(size)),
            }[shape][:size], False


def pathological_text(rng: random.Random) -> Case:
    """'(1 1 1)' and 250-990 spaces, runs of parentheses and digits, 1 kB of noise, control characters or lone
    surrogates (the file escapes them as JSON allows), or 20 kB: answered within the bound; a right closing
    statement must still certify (where no junk could hold a claim or be refused), and no text without one may."""
    constraint = pick(rng, tuple(TAILS))
    right, wrong = TAILS[constraint]
    long = rng.random() < 0.1
    junk, holds_claims = _junk(rng, constraint, 20_000 if long else rng.randint(250, 960))
    tail = pick(rng, ("", wrong) if holds_claims or long else ("", right, wrong))
    truth = "right" if tail == right else "wrong" if tail == wrong else "no_claim"
    text = (junk + tail) if long else (junk + tail)[:1000]
    return Case(f"{constraint}: {len(text)} chars, {junk[:12]!r}..., tail {tail.strip()[:30]!r}",
                json.dumps({"item": ITEMS[constraint], "reasoning": text}), truth,
                "the closing statement is the only claim" if tail else "no right claim in the text")


def extreme_wavelength(rng: random.Random) -> Case:
    """Al2O3 and cubic cells at 0.1-0.2 A (hundreds of thousands of reflections to 180 deg) and at 5-10 A (none
    reachable): claims at and between the reflections Bragg's law gives."""
    mode = pick(rng, ("short_cubic", "short_corundum", "long_cubic"))
    material = CORUNDUM if mode == "short_corundum" else pick(rng, tuple(CUBIC))
    hkl = None
    if mode == "long_cubic":
        longest = max(CUBIC[material].a / np.sqrt(r.hkl[0] ** 2 + r.hkl[1] ** 2 + r.hkl[2] ** 2)
                      for r in cubic_reflections(material, up_to_deg=90))
        wavelength = round(rng.uniform(max(5.0, 2 * longest + 0.1), 10.0), 3)
        claimed = round(strong_reflection(rng, material).two_theta, 2)
    elif mode == "short_corundum":
        wavelength = pick(rng, (0.1, 0.15, 0.2))
        lowest = bragg_two_theta(CORUNDUM_CELL[1], wavelength) or 0.0
        line = pick(rng, CORUNDUM_STRONG)
        claimed = round(bragg_two_theta(hexagonal_d(*CORUNDUM_CELL, line), wavelength) or 0.0, 3) \
            if rng.random() < 0.5 else round(lowest * rng.uniform(0.1, 0.35), 3)
    else:
        wavelength = round(rng.uniform(0.1, 0.2), 3)
        reflections = cubic_reflections(material, wavelength, 12.0)
        index = rng.randrange(min(4, len(reflections) - 1))
        this, after = reflections[index], reflections[index + 1]
        if rng.random() < 0.5:
            claimed, hkl = round(this.two_theta, 3), this.hkl if rng.random() < 0.5 else None
        else:
            claimed = round((this.two_theta + after.two_theta) / 2, 3)
    item = {"constraint": "diffraction", "id": "redteam:wavelength", "material": material,
            "wavelength_angstrom": wavelength}
    truth = diffraction_truth(material, claimed, wavelength, hkl)
    return Case(f"{material} at {wavelength} A: {claimed} deg ({mode})", claims_file(item, (claim(
        "diffraction", value=claimed, unit="deg", hkl=list(hkl) if hkl else None),)), truth or "",
        f"Bragg's law at {wavelength} A")
