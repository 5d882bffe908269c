"""The MatPCR red team's parser classes: reasoning as a physicist writes it, whose truth is that of the statements
it makes (the temperatures, widths, errors, working distances and negated statements in it are read as what
they are).  Truth comes from redteam_matpcr_truth only.
"""

from __future__ import annotations

import random

import numpy as np

from physvec.agents.redteam_matpcr_cases import (
    RAMAN_LINES, Case, claims_file, hkl_text, name, near_miss, pick, raman_spectrum, spectrum_item,
    strong_reflection,
)
from physvec.agents.redteam_matpcr_truth import (
    CU_K_ALPHA1, CUBIC, GAP_CLASSES, GAPS, MAGNETIC, MAGNETIC_ATOMS, MOMENTS, Truth, bragg_two_theta,
    cubic_reflections, diffraction_truth, e_above_hull, feature_truth, formation_energy_per_atom, gap_class_truth,
    gap_truth, hull_distance_truth, line_truth, metastable_truth, moment_truth, order_truth, stable_truth,
)
from physvec.agents.redteam_matpcr_values import (
    ABOVE_HULL, ABSENT, NM_PER_UNIT, ON_HULL, length_text, micrograph, temperature,
)


def combined(*truths: Truth) -> str:
    """A text is wrong when any statement is, right when all are; '' (undecided) otherwise."""
    if "wrong" in truths:
        return "wrong"
    return "right" if truths and all(t == "right" for t in truths) else ""


def negated(truth: Truth) -> Truth:
    """The truth of 'not S' from that of S."""
    return "wrong" if truth == "right" else "right" if truth == "wrong" else None


def _text_case(variant: str, item: dict | str, text: str, truth: str, why: str) -> Case:
    return Case(f"{variant}: {text[:120]}", claims_file(item, reasoning=text), truth, why)


def _bragg(rng: random.Random) -> tuple[str, tuple[int, int, int], float]:
    material = pick(rng, tuple(CUBIC))
    reflection = strong_reflection(rng, material)
    return material, reflection.hkl, reflection.two_theta


def parser_temperature(rng: random.Random) -> Case | None:
    """Temperatures in °C beside a 2theta (one of them at a real peak's number), and magnetic order at a °C."""
    material, hkl, angle = _bragg(rng)
    mode = pick(rng, ("anneal_right", "anneal_wrong", "temperature_at_a_peak", "order_in_celsius"))
    item = f"diffraction:{material}"
    if mode in ("anneal_right", "anneal_wrong"):
        claimed = round(angle, 2) if mode == "anneal_right" else near_miss(rng, angle)
        text = (f"The film was annealed at {pick(rng, (300, 450, 600, 900))} °C and measured at 25 °C. The "
                f"{hkl_text(hkl)} reflection of {name(material)} appears at 2θ = {claimed:.2f}°.")
        truth = diffraction_truth(material, claimed, hkl=hkl) or ""
    elif mode == "temperature_at_a_peak":
        peaks = [r for r in cubic_reflections(material, up_to_deg=45) if r.two_theta >= 20 and r.strong]
        if not peaks:
            return None
        other = strong_reflection(rng, material)
        theta = round(other.two_theta / 2 + pick(rng, (-1, 1)) * rng.uniform(0.15, 0.3), 2)
        text = (f"Measured at {peaks[0].two_theta:.1f} °C, the Bragg angle θ of the {hkl_text(other.hkl)} "
                f"reflection is {theta:.2f}°.")
        truth = diffraction_truth(material, 2 * theta, hkl=other.hkl) or ""
    else:
        material = pick(rng, [m for m, magnetic in MAGNETIC.items() if (magnetic.transition_K or 0) > 250])
        written, kelvin, _ = temperature(rng, float(MAGNETIC[material].transition_K), celsius=True)
        item, ground = f"magnetisation:{material}", MAGNETIC[material].ground
        text = f"At {written}, {name(material)} is {ground}."
        truth = order_truth(material, ground, kelvin) or ""
    return _text_case(mode, item, text, truth, "temperatures are not angles; °C + 273.15 = K")


def parser_uncertainty_and_width(rng: random.Random) -> Case:
    """'± 0.05°', a FWHM in degrees or cm^-1 and a range beside the claimed position."""
    mode = pick(rng, ("xrd_right", "xrd_wrong", "xrd_range", "raman_right", "raman_wrong"))
    if mode.startswith("raman"):
        material = pick(rng, tuple(RAMAN_LINES))
        spectrum = raman_spectrum(rng, material)
        line = max(spectrum.lines, key=lambda line: line.height)
        position = line.position if mode == "raman_right" else \
            float(spectrum.axis[rng.randrange(10, spectrum.axis.size - 10)])
        text = (f"The {name(material)} band at {position:.1f} ± 0.5 cm⁻¹ has a FWHM of {line.fwhm:.1f} cm⁻¹ "
                f"and a width uncertainty of 0.3 cm⁻¹.")
        item = spectrum_item(spectrum, True, material)
        return _text_case(mode, item, text, line_truth(spectrum, round(position, 1)) or "",
                          f"lines put there: {[round(x.position, 1) for x in spectrum.lines]}")
    material, hkl, angle = _bragg(rng)
    claimed = round(angle, 2) if mode != "xrd_wrong" else near_miss(rng, angle)
    if mode == "xrd_range":
        text = (f"The {hkl_text(hkl)} peak of {name(material)} lies between {claimed - 0.03:.2f} and "
                f"{claimed + 0.03:.2f}°.")
    else:
        text = (f"{name(material)} shows its {hkl_text(hkl)} reflection at 2θ = {claimed:.2f} ± 0.05°, with a FWHM "
                f"of "
                f"{rng.uniform(0.08, 0.2):.2f}°.")
    return _text_case(mode, f"diffraction:{material}", text, diffraction_truth(material, claimed, hkl=hkl) or "",
                      f"Bragg's law: {hkl_text(hkl)} at {angle:.2f} deg")


def parser_theta_vs_two_theta(rng: random.Random) -> Case:
    """theta written for the Bragg angle (right and wrong), '2-θ = 60°' beside a right peak, '2-theta = ...', and
    the degree as '°2θ', 'º', 'deg', after a no-break space or 'approximately'."""
    material, hkl, angle = _bragg(rng)
    mode = pick(rng, ("theta_right", "both_right", "dashed_two_theta_wrong", "theta_wrong", "two_theta_words",
                      "degree_forms"))
    if mode == "theta_right":
        theta = round(angle / 2, 2)
        text, truth = f"The Bragg angle θ of the {name(material)} {hkl_text(hkl)} reflection is {theta:.2f}°.", \
            diffraction_truth(material, 2 * theta, hkl=hkl)
    elif mode == "both_right":
        text, truth = (f"For {name(material)} {hkl_text(hkl)}: 2θ = {angle:.2f}°, so θ = {angle / 2:.2f}°.",
                       diffraction_truth(material, round(angle, 2), hkl=hkl))
    elif mode == "dashed_two_theta_wrong":
        bad = rng.randint(25, 88)
        text = f"{name(material)} shows {hkl_text(hkl)} at {angle:.2f}° and a second reflection at 2-θ = {bad}°."
        truth = combined(diffraction_truth(material, round(angle, 2), hkl=hkl), diffraction_truth(material, bad))
    elif mode == "theta_wrong":
        text = f"The {hkl_text(hkl)} reflection of {name(material)} lies at θ = {angle:.2f}°."
        truth = diffraction_truth(material, 2 * round(angle, 2), hkl=hkl)
    elif mode == "two_theta_words":
        text = f"At 2-theta = {angle:.2f} degrees we index the {hkl_text(hkl)} reflection of {name(material)}."
        truth = diffraction_truth(material, round(angle, 2), hkl=hkl)
    else:
        claimed = round(angle, 2) if rng.random() < 0.5 else near_miss(rng, angle)
        form = pick(rng, ("{v} °2θ", "{v}\u00a0°", "{v}º", "{v} deg", "approximately {v}°", "~{v}°",
                          "{v} degrees two-theta"))
        text = f"The {hkl_text(hkl)} reflection of {name(material)} appears at {form.format(v=f'{claimed:.2f}')}."
        truth = diffraction_truth(material, claimed, hkl=hkl)
    return _text_case(mode, f"diffraction:{material}", text, truth or "",
                      f"Bragg's law: {hkl_text(hkl)} at {angle:.2f} deg")


def _comma(value: float, digits: int) -> str:
    return f"{value:.{digits}f}".replace(".", ",")


def parser_number_formats(rng: random.Random) -> Case:
    """Decimal commas ('47,30°', '1,12 eV') and exponents ('1e-3 eV/atom', '5.207e2 cm-1')."""
    mode = pick(rng, ("comma_angle", "comma_gap", "exponent_hull", "exponent_raman"))
    if mode == "comma_angle":
        material, hkl, angle = _bragg(rng)
        claimed = round(angle, 2) if rng.random() < 0.5 else near_miss(rng, angle)
        return _text_case(mode, f"diffraction:{material}", f"{name(material)}: Reflex {hkl_text(hkl)} bei 2θ = "
                          f"{_comma(claimed, 2)}°.", diffraction_truth(material, claimed, hkl=hkl) or "",
                          f"Bragg's law: {angle:.2f} deg")
    if mode == "comma_gap":
        material = pick(rng, [m for m in GAPS if GAPS[m].value > 0])
        gap = GAPS[material]
        value = round(gap.value if rng.random() < 0.5 else gap.value * pick(rng, (0.6, 1.5)) + 0.3, 2)
        return _text_case(mode, f"band_gap:{material}", f"{name(material)} has a band gap of {_comma(value, 2)} eV.",
                          gap_truth(material, value) or "", f"measured {gap.value} +- {gap.spread} eV")
    if mode == "exponent_hull":
        material = pick(rng, ("TiO2-anatase", "FeO", "MgO", "ZnO", "Al2O3-corundum"))
        above = e_above_hull(material)
        value = float(f"{above:.1e}") if above > 0.01 and rng.random() < 0.6 else pick(rng, (1e-3, 4e-2))
        written = pick(rng, (f"{value:.1e}", f"{value:g}"))
        return _text_case(mode, f"stability:{material}",
                          f"{name(material)} lies {written} eV/atom above the convex hull.",
                          hull_distance_truth(material, value) or "", f"our hull: {above:.4f} eV/atom")
    material = pick(rng, tuple(RAMAN_LINES))
    spectrum = raman_spectrum(rng, material)
    line = max(spectrum.lines, key=lambda line: line.height)
    claimed = line.position if rng.random() < 0.6 else line.position + pick(rng, (-1, 1)) * rng.uniform(40, 80)
    return _text_case(mode, spectrum_item(spectrum, True, material),
                      f"The strongest band of {name(material)} lies at {claimed:.4e} cm-1.",
                      line_truth(spectrum, float(f"{claimed:.4e}")) or "", f"line put at {line.position}")


def parser_per_atom(rng: random.Random) -> Case:
    """Moments per Fe atom of magnetite (4.1 muB per formula unit is 1.37 per Fe) and per atom of the elements."""
    material = pick(rng, tuple(MAGNETIC_ATOMS))
    atom, count = MAGNETIC_ATOMS[material]
    moment = MOMENTS[material].value
    per_atom = round(moment / count * (1 if rng.random() < 0.5 else pick(rng, (count if count > 1 else 1.12, 0.88))), 2)
    form = pick(rng, ("per {a} atom", "per {a}", "μB/{a}"))
    text = f"{name(material)} carries {per_atom:.2f} {'' if form.startswith('μB') else 'μB '}{form.format(a=atom)}."
    if rng.random() < 0.4:
        text += f" That is {per_atom * count:.2f} Bohr magnetons per formula unit."
    return _text_case("per_atom", f"magnetisation:{material}", text, moment_truth(material, per_atom * count) or "",
                      f"{moment} muB per formula unit ({count} {atom} atoms)")


def parser_formation_vs_hull(rng: random.Random) -> Case:
    """A formation energy per atom (-3.12 eV/atom for MgO) beside a hull statement."""
    mode = pick(rng, ("on_hull_right", "metastable_right", "stable_wrong", "distance_wrong"))
    material = pick(rng, ABOVE_HULL if mode in ("metastable_right", "stable_wrong") else ON_HULL)
    formation, above = formation_energy_per_atom(material), e_above_hull(material)
    written = name(material)
    if mode == "on_hull_right":
        text = f"The formation energy of {written} is {formation:.2f} eV/atom, and it lies on the convex hull."
        truth = stable_truth(material)
    elif mode == "metastable_right":
        text = (f"{written} (formation enthalpy {formation:.2f} eV/atom) is metastable, {above * 1000:.0f} meV/atom "
                "above the hull.")
        truth = combined(metastable_truth(material), hull_distance_truth(material, round(above * 1000) / 1000))
    elif mode == "stable_wrong":
        text, truth = f"With a formation energy of {formation:.2f} eV/atom, {written} is thermodynamically stable.", \
            stable_truth(material)
    else:
        distance = round(rng.uniform(0.03, 0.045), 3)
        text = (f"{written} has a formation energy of {formation:.2f} eV/atom and lies {distance} eV/atom above "
                "the hull.")
        truth = hull_distance_truth(material, distance)
    return _text_case(mode, f"stability:{material}", text, truth or "", f"our hull: {above:.4f} eV/atom above")


def parser_negation(rng: random.Random) -> Case:
    """'never an insulator', 'not a metal but a semiconductor', 'not antiferromagnetic', 'a band gap is absent',
    'there is no band at 480 cm-1', 'the forbidden (200) reflection is absent'."""
    mode = pick(rng, ("never_insulator", "not_metal_but", "never_semiconductor", "not_insulator", "gap_absent",
                      "not_ferromagnetic", "not_antiferromagnetic", "never_ferromagnetic", "no_band",
                      "absent_reflection"))
    if mode in ("no_band", "absent_reflection"):
        return _negated_line(rng, mode == "no_band")
    metals, semis, insulators = GAP_CLASSES["metal"], GAP_CLASSES["semiconductor"], GAP_CLASSES["insulator"]
    if mode in ("never_insulator", "gap_absent"):
        material = pick(rng, [m for m in metals if m in GAPS])
        text = (f"{name(material)} is never an insulator; it is a metal." if mode == "never_insulator" else
                f"A band gap is absent in {name(material)}: it is a metal.")
        truth = combined(gap_class_truth(material, "insulator", negated=True), gap_class_truth(material, "metal"))
    elif mode == "not_metal_but":
        material = pick(rng, semis)
        text = f"{name(material)} is not a metal but a semiconductor."
        truth = combined(gap_class_truth(material, "metal", negated=True), gap_class_truth(material, "semiconductor"))
    elif mode == "never_semiconductor":
        material = pick(rng, semis)
        text, truth = f"{name(material)} is never a semiconductor.", gap_class_truth(material, "semiconductor", True)
    elif mode == "not_insulator":
        material = pick(rng, insulators)
        text, truth = f"{name(material)} is not an insulator.", gap_class_truth(material, "insulator", True)
    else:
        order = {"not_ferromagnetic": "ferromagnetic", "never_ferromagnetic": "ferromagnetic",
                 "not_antiferromagnetic": "antiferromagnetic"}[mode]
        pool = {"not_ferromagnetic": ("Si", "Cu", "NaCl", "MgO", "NiO"), "never_ferromagnetic": ("Fe", "Co", "Ni"),
                "not_antiferromagnetic": ("NiO", "MnO", "Fe", "Cu")}[mode]
        material = pick(rng, pool)
        word = "never" if mode.startswith("never") else "not"
        text = f"{name(material)} is {word} {order}."
        truth = order_truth(material, order, negated=True) or ""
        return _text_case(mode, f"magnetisation:{material}", text, truth, f"{material} is {MAGNETIC[material].ground}")
    return _text_case(mode, f"band_gap:{material}", text, truth or "", f"{material} is undisputedly in its class")


def _negated_line(rng: random.Random, raman: bool) -> Case:
    """A line or reflection said to be absent where there is none (right) or where there is one (wrong), beside a
    right one."""
    if raman:
        material = pick(rng, tuple(RAMAN_LINES))
        spectrum = raman_spectrum(rng, material)
        line = max(spectrum.lines, key=lambda line: line.height)
        empty = float(round(spectrum.axis[rng.randrange(10, spectrum.axis.size - 10)]))
        empty = line.position if rng.random() < 0.25 else empty
        text = f"There is no band at {empty:.0f} cm-1; the {name(material)} line lies at {line.position:.1f} cm-1."
        truth = combined(negated(line_truth(spectrum, round(empty))), line_truth(spectrum, round(line.position, 1)))
        return _text_case("no_band", spectrum_item(spectrum, True, material), text, truth,
                          f"lines put there: {[round(x.position, 1) for x in spectrum.lines]}")
    material, hkl, angle = _bragg(rng)
    cell = CUBIC[material]
    absent = pick(rng, ABSENT[cell.lattice]) if rng.random() < 0.75 else strong_reflection(rng, material).hkl
    at = round(bragg_two_theta(cell.a / sum(i * i for i in absent) ** 0.5, CU_K_ALPHA1) or 0.0, 2)
    text = (f"The forbidden {hkl_text(absent)} reflection of {name(material)} at {at:.2f}° is absent, while "
            f"{hkl_text(hkl)} appears at {angle:.2f}°.")
    truth = combined(negated(diffraction_truth(material, at, hkl=absent)), diffraction_truth(material, round(angle, 2)))
    return _text_case("absent_reflection", f"diffraction:{material}", text, truth,
                      f"Bragg's law and the {cell.lattice} selection rules")


def parser_microscopy_lengths(rng: random.Random) -> Case:
    """A working distance in mm, a scale bar's own length and a feature within 60 characters after it."""
    item, pixel = micrograph(rng)
    width, height = item["image_width_px"], item["image_height_px"]
    small, small_unit = length_text(pixel * rng.uniform(0.5, 1.9))
    fits, fits_unit = length_text(pixel * np.exp(rng.uniform(np.log(4), np.log(0.7 * min(width, height)))))
    huge, huge_unit = length_text(pixel * np.hypot(width, height) * rng.uniform(2, 6))
    bar = f"{item['scale_bar_length']} {'µm' if item['scale_bar_unit'] == 'um' else 'nm'}"
    mode = pick(rng, ("working_distance_right", "scale_bar_then_small", "scale_bar_right", "fringes_small",
                      "working_distance_huge"))
    sentences = {
        "working_distance_right": (f"Imaged at a working distance of {rng.randint(4, 15)} mm, the particles measure "
                                   f"{fits} {fits_unit} across.", [(fits, fits_unit)]),
        "scale_bar_then_small": (f"With the {bar} scale bar, grains of {small} {small_unit} are resolved, and the "
                                 f"largest particle measures {fits} {fits_unit}.",
                                 [(small, small_unit), (fits, fits_unit)]),
        "scale_bar_right": (f"The scale bar is {bar} long; the particles are {fits} {fits_unit} in diameter.",
                            [(fits, fits_unit)]),
        "fringes_small": (f"Periodic features with a spacing of {small} {small_unit} are resolved.",
                          [(small, small_unit)]),
        "working_distance_huge": (f"At a working distance of {rng.randint(4, 15)} mm, one grain of {huge} {huge_unit} "
                                  f"spans the image.", [(huge, huge_unit)]),
    }
    text, sizes = sentences[mode]
    truths = [feature_truth(pixel, width, height, value * NM_PER_UNIT[unit]) for value, unit in sizes]
    return _text_case(mode, item, text.replace(" um", " µm"), combined(*truths),
                      f"{pixel:.3g} nm per pixel, image {width}x{height} px (at least 2 px to be resolved)")
