"""The MatPCR red team's ground truth: physics written here, from values stated here with their sources.

Nothing here asks a MatPCR oracle, its tables or its parser (tests/agents/test_redteam_matpcr.py reads the
imports).  Diffraction: Bragg's law on the lattice constants below, selection rules written here.  Stability:
our lower convex hull of the enthalpies below.  Spectra: Poisson counts on lines this module puts there.  Gaps,
moments, orders and transition temperatures: the cited table below.  A judgement is right, wrong or None (not
decided: the generator draws again); the margin between right and wrong is one any defensible tolerance agrees with.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.spatial import ConvexHull

Truth = Literal["right", "wrong"] | None

# -- diffraction: Bragg's law on cubic cells, and corundum's strong lines ---------------------------------

CU_K_ALPHA1 = 1.54056
"""Angstrom: J. A. Bearden, Rev. Mod. Phys. 39, 78 (1967)"""
RIGHT_DEG = 0.05
WRONG_DEG = 0.2
"""A 2theta within 0.05 deg of an allowed reflection is right; one at least 0.2 deg (twice issue 35's 0.1 deg
instrument resolution) from every allowed reflection is wrong.  Claims stay below 2theta = 90 deg with Cu
K-alpha1, where a 0.02 % difference in the lattice constant moves a peak by less than 0.03 deg."""
NBS = "H. E. Swanson et al., Standard X-ray Diffraction Powder Patterns, NBS Circular 539"


@dataclass(frozen=True)
class Cubic:
    lattice: Literal["diamond", "fcc", "bcc", "rocksalt"]
    a: float
    """Angstrom, at room temperature"""
    source: str


CUBIC: dict[str, Cubic] = {
    "Si": Cubic("diamond", 5.4310, "Y. Okada and Y. Tokumaru, J. Appl. Phys. 56, 314 (1984): 5.4310 A at 300 K"),
    "Ge": Cubic("diamond", 5.6575, "M. E. Straumanis and E. Z. Aka, J. Appl. Phys. 23, 330 (1952): 5.6575 A at 25 C"),
    "C-diamond": Cubic("diamond", 3.567, "C. Kittel, Introduction to Solid State Physics, 8th ed. (2005), ch. 1"),
    "NaCl": Cubic("rocksalt", 5.6402, NBS + ", vol. 2 (1953): halite 5.6402 A at 26 C"),
    "MgO": Cubic("rocksalt", 4.213, NBS + ", vol. 1 (1953): periclase 4.213 A at 26 C"),
    "Cu": Cubic("fcc", 3.6150, NBS + ", vol. 1 (1953): 3.6150 A at 26 C"),
    "Al": Cubic("fcc", 4.0494, NBS + ", vol. 1 (1953): 4.0494 A at 25 C"),
    "Fe-bcc": Cubic("bcc", 2.8665, "Z. S. Basinski, W. Hume-Rothery and A. L. Sutton, Proc. R. Soc. A 229, 459 "
                                    "(1955): alpha-Fe 2.8665 A at 20 C"),
}
CORUNDUM = "Al2O3-corundum"
CORUNDUM_CELL = (4.758, 12.991)
"""a, c in Angstrom (hexagonal axes): NBS Circular 539, vol. 2 (1953)"""
CORUNDUM_STRONG = ((0, 1, 2), (1, 0, 4), (1, 1, 0), (1, 1, 3), (0, 2, 4), (1, 1, 6))
"""the six strongest powder lines of corundum (the NBS pattern above; ICDD card 10-173)"""


def allowed(lattice: str, hkl: tuple[int, int, int]) -> bool:
    """Whether a reflection survives the lattice's systematic absences: fcc and rock salt need h, k, l unmixed (all
    odd or all even); diamond also needs h + k + l = 4n when all are even (its d-glide); bcc needs h + k + l even."""
    h, k, l = hkl
    if hkl == (0, 0, 0):
        return False
    if lattice == "bcc":
        return (h + k + l) % 2 == 0
    unmixed = h % 2 == k % 2 == l % 2
    if lattice == "diamond":
        return unmixed and (h % 2 == 1 or (h + k + l) % 4 == 0)
    return unmixed


def bragg_two_theta(d: float, wavelength: float) -> float | None:
    """2theta in degrees from lambda = 2 d sin(theta); None when the plane spacing is below lambda / 2."""
    ratio = wavelength / (2 * d)
    return math.degrees(2 * math.asin(ratio)) if ratio <= 1 else None


@dataclass(frozen=True)
class Reflection:
    hkl: tuple[int, int, int]
    two_theta: float
    strong: bool
    """False for rock salt's all-odd reflections, which scatter with the difference of the two ions' factors"""


def cubic_reflections(material: str, wavelength: float = CU_K_ALPHA1, up_to_deg: float = 180.0) -> list[Reflection]:
    """Every allowed reflection up to ``up_to_deg``, one per h^2 + k^2 + l^2 = N (d = a / sqrt N), by angle."""
    cell = CUBIC[material]
    n_max = (2 * cell.a * math.sin(math.radians(min(up_to_deg, 180.0) / 2)) / wavelength) ** 2
    found: dict[int, Reflection] = {}
    for h in range(math.isqrt(int(n_max)) + 1):
        for k in range(h + 1):
            for l in range(k + 1):
                n = h * h + k * k + l * l
                two_theta = bragg_two_theta(cell.a / math.sqrt(n), wavelength) if 0 < n <= n_max else None
                if two_theta is None or not allowed(cell.lattice, (h, k, l)):
                    continue
                strong = not (cell.lattice == "rocksalt" and h % 2 == 1)
                if n not in found or strong and not found[n].strong:
                    found[n] = Reflection((h, k, l), two_theta, strong)
    return sorted(found.values(), key=lambda r: r.two_theta)


def hexagonal_d(a: float, c: float, hkl: tuple[int, int, int]) -> float:
    """The plane spacing of a hexagonal cell: 1/d^2 = 4/3 (h^2 + hk + k^2) / a^2 + l^2 / c^2."""
    h, k, l = hkl
    return 1 / math.sqrt(4 / 3 * (h * h + h * k + k * k) / a ** 2 + l * l / c ** 2)


def _verdict(distance: float, right: float = RIGHT_DEG, wrong: float = WRONG_DEG) -> Truth:
    return "right" if distance <= right else "wrong" if distance >= wrong else None


def diffraction_truth(material: str, two_theta: float, wavelength: float = CU_K_ALPHA1,
                      hkl: tuple[int, int, int] | None = None) -> Truth:
    """A claimed peak against Bragg's law: the named reflection when ``hkl`` is given (wrong when it is absent),
    else the nearest allowed one.  Corundum is judged only by its strong lines (right) and by the smallest angle
    any reflection can have, the (001) spacing c (wrong below it)."""
    if material == CORUNDUM:
        a, c = CORUNDUM_CELL
        lines = [bragg_two_theta(hexagonal_d(a, c, line), wavelength) for line in CORUNDUM_STRONG]
        lowest = bragg_two_theta(c, wavelength)
        if lowest is None or two_theta < lowest - WRONG_DEG:
            return "wrong"
        near = min((abs(t - two_theta) for t in lines if t is not None), default=math.inf)
        return "right" if near <= RIGHT_DEG else None
    cell = CUBIC[material]
    if hkl is not None:
        expected = bragg_two_theta(cell.a / math.sqrt(sum(i * i for i in hkl)), wavelength)
        if expected is None or not allowed(cell.lattice, hkl):
            return "wrong"
        return _verdict(abs(expected - two_theta))
    reflections = cubic_reflections(material, wavelength, two_theta + 1.0)
    return _verdict(min((abs(r.two_theta - two_theta) for r in reflections), default=math.inf))


# -- stability: our own lower convex hull of formation enthalpies ----------------------------------------

KJ_PER_MOL_PER_EV = 96.485332
"""the Faraday constant over 1000 (CODATA 2018): kJ/mol per formula unit over this is eV per formula unit"""
CRC = "CRC Handbook of Chemistry and Physics, 'Standard Thermodynamic Properties of Chemical Substances', DfH(298.15 K)"
ENTHALPIES: dict[str, tuple[str, float]] = {
    "MgO": ("MgO", -601.6), "CaO": ("CaO", -634.9), "Li2O": ("Li2O", -597.9), "Li2O2": ("Li2O2", -634.3),
    "NaCl": ("NaCl", -411.2), "Al2O3-corundum": ("Al2O3", -1675.7), "SiO2-quartz": ("SiO2", -910.7),
    "TiO2-rutile": ("TiO2", -944.0), "TiO2-anatase": ("TiO2", -938.7), "FeO": ("FeO", -272.0),
    "Fe3O4": ("Fe3O4", -1118.4), "Fe2O3-hematite": ("Fe2O3", -824.2), "Cu2O": ("Cu2O", -168.6),
    "CuO": ("CuO", -157.3), "ZnO": ("ZnO", -350.5), "NiO": ("NiO", -239.7), "MnO": ("MnO", -385.2),
    "Mn3O4": ("Mn3O4", -1387.8), "Mn2O3": ("Mn2O3", -959.0), "MnO2": ("MnO2", -520.0),
}
"""material -> (formula, kJ/mol per formula unit), every value from CRC above; elements are zero by definition"""
ON_HULL_EV = 0.005
ABOVE_HULL_EV = 0.015
"""eV/atom.  The CODATA key values among these (J. D. Cox, D. D. Wagman and V. A. Medvedev, 1989: MgO +-0.3,
corundum +-1.3, rutile +-0.8, ZnO +-0.3 kJ/mol) are uncertain by under 1.5 kJ/mol per formula unit, under 0.005
eV/atom: within that a material is on the hull ("stable"); from three times that it is above ("stable" is
wrong, "metastable" right).  Between, this truth does not decide."""


def composition(formula: str) -> dict[str, int]:
    return {element: int(count or 1) for element, count in re.findall(r"([A-Z][a-z]?)(\d*)", formula)}


def formation_energy_per_atom(material: str) -> float:
    """eV/atom from kJ/mol per formula unit."""
    formula, enthalpy = ENTHALPIES[material]
    return enthalpy / KJ_PER_MOL_PER_EV / sum(composition(formula).values())


def e_above_hull(material: str) -> float:
    """eV/atom above the lower convex hull of every tabulated phase in the material's chemical system (elements
    at zero): the hull's height at the material's composition is the highest of the lower facets' planes there."""
    elements = sorted(composition(ENTHALPIES[material][0]))

    def point(counts: dict[str, int], energy: float) -> list[float]:
        atoms = sum(counts.values())
        return [counts.get(e, 0) / atoms for e in elements[1:]] + [energy]
    points = [point({e: 1}, 0.0) for e in elements]
    points += [point(composition(formula), formation_energy_per_atom(name))
               for name, (formula, _) in ENTHALPIES.items() if set(composition(formula)) <= set(elements)]
    hull = ConvexHull(np.asarray(points))
    lower = hull.equations[hull.equations[:, -2] < -1e-12]
    *where, energy = point(composition(ENTHALPIES[material][0]), formation_energy_per_atom(material))
    heights = -(lower[:, :-2] @ np.asarray(where) + lower[:, -1]) / lower[:, -2]
    return float(energy - heights.max())


def stable_truth(material: str) -> Truth:
    """'stable' (on the hull) against our hull."""
    above = e_above_hull(material)
    return "right" if above <= ON_HULL_EV else "wrong" if above >= ABOVE_HULL_EV else None


def metastable_truth(material: str) -> Truth:
    above = e_above_hull(material)
    return "right" if above >= ABOVE_HULL_EV else "wrong" if above <= ON_HULL_EV else None


def hull_distance_truth(material: str, claimed_ev: float) -> Truth:
    """A claimed energy above the hull (eV/atom): right within 0.005, wrong from 0.02 away."""
    return _verdict(abs(claimed_ev - e_above_hull(material)), ON_HULL_EV, 0.02)


# -- band gaps, moments and magnetic order: a literature table --------------------------------------------

@dataclass(frozen=True)
class Measured:
    value: float
    spread: float
    """the spread of measured values (or the stated error): within it a claim is right"""
    source: str


KITTEL = "C. Kittel, Introduction to Solid State Physics, 8th ed. (Wiley, 2005)"
SZE = "S. M. Sze and K. K. Ng, Physics of Semiconductor Devices, 3rd ed. (Wiley, 2007), appendix G"
METAL = Measured(0.0, 0.0, KITTEL + ", ch. 7: a partly filled band, no gap")
GAPS: dict[str, Measured] = {
    "Si": Measured(1.12, 0.02, SZE + ": 1.12 eV at 300 K (Kittel, Table 8.1: 1.11 eV)"),
    "Ge": Measured(0.66, 0.02, SZE + ": 0.66 eV at 300 K"), "GaAs": Measured(1.42, 0.02, SZE + ": 1.424 eV at 300 K"),
    "CdS": Measured(2.42, 0.05, KITTEL + ", Table 8.1: 2.42 eV at 300 K"),
    "GaN": Measured(3.4, 0.05, "H. P. Maruska and J. J. Tietjen, Appl. Phys. Lett. 15, 327 (1969): 3.39 eV"),
    "TiO2-rutile": Measured(3.03, 0.05, "J. Pascual, J. Camassel and H. Mathieu, Phys. Rev. B 18, 5606 (1978)"),
    "TiO2-anatase": Measured(3.2, 0.05, "H. Tang et al., J. Appl. Phys. 75, 2042 (1994)"),
    "MgO": Measured(7.8, 0.2, "D. M. Roessler and W. C. Walker, Phys. Rev. 159, 733 (1967)"),
    "NaCl": Measured(8.5, 0.5, "R. T. Poole et al., Phys. Rev. B 11, 5179 (1975): 8.5 eV; optical 8.75-9.0 eV"),
    "Al2O3-corundum": Measured(8.8, 0.3, "R. H. French, J. Am. Ceram. Soc. 73, 477 (1990)"),
    "Al": METAL, "Cu": METAL, "Fe": METAL, "Ni": METAL,
}
GAP_CLASSES = {"metal": ("Al", "Cu", "Fe", "Co", "Ni", "Gd"), "semiconductor": ("Si", "Ge", "GaAs", "CdS"),
               "insulator": ("MgO", "NaCl", "Al2O3-corundum")}
"""materials whose class no common convention disputes (gaps below 2.5 eV or above 7 eV, or none)"""
FERRO = KITTEL + ", ch. 11, table of ferromagnetic crystals (n_B at 0 K, Curie temperature)"
MOMENTS: dict[str, Measured] = {
    "Fe": Measured(2.22, 0.01, FERRO + ": 2.22"), "Co": Measured(1.72, 0.02, FERRO + ": 1.72"),
    "Ni": Measured(0.606, 0.01, FERRO + ": 0.606 (others 0.616)"), "Gd": Measured(7.63, 0.08, FERRO + ": 7.63 (7.55)"),
    "Fe3O4": Measured(4.1, 0.1, FERRO + ": 4.1 per formula unit"),
    "MnO": Measured(0.0, 0.01, "C. G. Shull, W. A. Strauser and E. O. Wollan, Phys. Rev. 83, 333 (1951): "
                               "antiferromagnet, no net moment"),
    "NiO": Measured(0.0, 0.01, "W. L. Roth, Phys. Rev. 110, 1333 (1958): antiferromagnet, no net moment"),
    **{name: Measured(0.0, 0.01, KITTEL + ", ch. 11: closed shells, no spontaneous moment")
       for name in ("Si", "Ge", "Cu", "MgO", "NaCl", "GaAs")},
}
"""net spontaneous moment per formula unit (Bohr magnetons), at low temperature"""
MAGNETIC_ATOMS = {"Fe": ("Fe", 1), "Co": ("Co", 1), "Ni": ("Ni", 1), "Gd": ("Gd", 1), "Fe3O4": ("Fe", 3)}

Order = Literal["ferromagnetic", "ferrimagnetic", "antiferromagnetic", "paramagnetic", "diamagnetic"]


@dataclass(frozen=True)
class Magnetic:
    ground: Order
    transition_K: float | None
    """Curie or Neel temperature; above it the order is paramagnetic"""
    spread_K: float
    """the spread of measured transition temperatures"""
    source: str


ORDERS_BELOW_K = 400.0
"""Without a temperature a claim is read at the ground state, except for a material whose order is lost below
400 K (Gd at 292 K, MnO at 118 K): at room temperature it is paramagnetic, so there only an order or a
moment wrong at every temperature is decided ('MnO is diamagnetic', 'Gd has 7.0 muB')."""
MAGNETIC: dict[str, Magnetic] = {
    "Fe": Magnetic("ferromagnetic", 1043, 2, FERRO + " (others 1044 K)"),
    "Co": Magnetic("ferromagnetic", 1388, 6, FERRO + " (others 1394 K)"),
    "Ni": Magnetic("ferromagnetic", 627, 4, FERRO + " (others 631 K)"),
    "Gd": Magnetic("ferromagnetic", 292, 2, FERRO + " (others 293-294 K)"),
    "Fe3O4": Magnetic("ferrimagnetic", 858, 5, FERRO + "; L. Neel, Ann. Phys. 3, 137 (1948): a ferrimagnet"),
    "NiO": Magnetic("antiferromagnetic", 523, 3, "W. L. Roth, Phys. Rev. 110, 1333 (1958): T_N 523 K (others 525 K)"),
    "MnO": Magnetic("antiferromagnetic", 118, 4, "C. G. Shull, W. A. Strauser and E. O. Wollan, Phys. Rev. 83, 333 "
                                                 "(1951): T_N near 120 K (Kittel 116 K)"),
    "Al": Magnetic("paramagnetic", None, 0, KITTEL + ", ch. 11: Pauli paramagnetism of the conduction electrons"),
    **{name: Magnetic("diamagnetic", None, 0, KITTEL + ", ch. 11: closed shells (Cu: core diamagnetism outweighs "
                                                  "the Pauli term)")
       for name in ("Si", "Ge", "Cu", "MgO", "NaCl", "GaAs")},
}


def orders_below_room_temperature(material: str) -> bool:
    return material in MAGNETIC and (MAGNETIC[material].transition_K or ORDERS_BELOW_K) < ORDERS_BELOW_K


def gap_truth(material: str, claimed_ev: float) -> Truth:
    """Right within the measured spread, wrong beyond three spreads and at least 0.3 eV."""
    gap = GAPS[material]
    return _verdict(abs(claimed_ev - gap.value), gap.spread, max(3 * gap.spread, 0.3))


def gap_class_truth(material: str, label: str, negated: bool = False) -> Truth:
    """'M is (not) a <label>' for a material whose class is undisputed."""
    actual = next((name for name, members in GAP_CLASSES.items() if material in members), None)
    return None if actual is None else "right" if (actual == label) != negated else "wrong"


def moment_truth(material: str, per_formula_unit: float, kelvin: float | None = None) -> Truth:
    """A net spontaneous moment per formula unit: right within the spread of the expected one, wrong from max(4
    spreads, 4 %, 0.03 muB) away.  Expected: none where the order at ``kelvin`` is paramagnetic, the saturation
    moment up to a tenth of the transition temperature (undecided between), or without a temperature the
    saturation moment (undecided when right for a material that orders below 400 K: ORDERS_BELOW_K)."""
    moment, transition = MOMENTS[material], MAGNETIC[material].transition_K if material in MAGNETIC else None
    expected = moment.value
    if kelvin is not None and transition:
        if order_at(material, kelvin) == "paramagnetic":
            expected = 0.0
        elif kelvin > 0.1 * transition:
            return None
    verdict = _verdict(abs(abs(per_formula_unit) - expected), moment.spread,
                       max(4 * moment.spread, 0.04 * expected, 0.03))
    undecided = kelvin is None and verdict == "right" and expected and orders_below_room_temperature(material)
    return None if undecided else verdict


def order_at(material: str, kelvin: float | None = None) -> Order | None:
    """The order at ``kelvin`` (the ground state when None): paramagnetic from two spreads above the transition,
    the ground order up to two spreads below it, undecided between."""
    magnetic = MAGNETIC[material]
    if kelvin is None or magnetic.transition_K is None or kelvin <= magnetic.transition_K - 2 * magnetic.spread_K:
        return magnetic.ground
    return "paramagnetic" if kelvin >= magnetic.transition_K + 2 * magnetic.spread_K else None


def order_truth(material: str, claimed: Order, kelvin: float | None = None, negated: bool = False) -> Truth:
    """'M is (not) <claimed>' at ``kelvin``; without one, see ORDERS_BELOW_K."""
    if kelvin is None and orders_below_room_temperature(material):
        if claimed in (MAGNETIC[material].ground, "paramagnetic"):
            return None
        return "right" if negated else "wrong"
    actual = order_at(material, kelvin)
    return None if actual is None else "right" if (actual == claimed) != negated else "wrong"


# -- microscopy: what a micrograph can show ---------------------------------------------------------------

NYQUIST_PX = 2.0
"""a feature narrower than two pixels is below the sampling limit of the image"""


def feature_truth(pixel_nm: float, width_px: int, height_px: int, size_nm: float, bar_px: float = 0.0) -> Truth:
    """Wrong below two pixels, beyond 1.5 image diagonals, or read from a scale bar longer than the image is wide
    (no such bar is in the image); right from three pixels up to 0.8 of the shorter side."""
    pixels = size_nm / pixel_nm
    if pixels < NYQUIST_PX or pixels > 1.5 * math.hypot(width_px, height_px) or bar_px > width_px:
        return "wrong"
    return "right" if 3 <= pixels <= 0.8 * min(width_px, height_px) else None


# -- spectra and patterns: Poisson counts with lines put there --------------------------------------------

@dataclass(frozen=True)
class Line:
    position: float
    fwhm: float
    height: float
    """expected counts at the maximum, above the background"""
    shape: Literal["lorentzian", "gaussian"] = "lorentzian"


@dataclass(frozen=True)
class Spectrum:
    axis: np.ndarray
    counts: np.ndarray
    background: np.ndarray
    """expected background counts per channel (a halo is background: it is not a line)"""
    lines: tuple[Line, ...]


MIN_SNR = 20.0
"""a line counts as shown by the data when its height is 20 Poisson deviations of the counts at its maximum"""


def profile(axis: np.ndarray, line: Line) -> np.ndarray:
    offset = (axis - line.position) / (line.fwhm / 2)
    shape = 1 / (1 + offset ** 2) if line.shape == "lorentzian" else np.exp(-math.log(2) * offset ** 2)
    return line.height * shape


def poisson_spectrum(rng: np.random.Generator, axis: np.ndarray, background: np.ndarray,
                     lines: tuple[Line, ...] = ()) -> Spectrum:
    """Counts drawn from Poisson(background + lines) channel by channel."""
    expected = background + sum((profile(axis, line) for line in lines), np.zeros_like(axis))
    return Spectrum(axis, rng.poisson(expected).astype(float), background, lines)


def snr(spectrum: Spectrum, line: Line) -> float:
    at = int(np.argmin(np.abs(spectrum.axis - line.position)))
    return line.height / math.sqrt(spectrum.background[at] + line.height)


def line_truth(spectrum: Spectrum, claimed: float) -> Truth:
    """Right within half a width of a line the data show; wrong when no line lies within ten widths (or ten
    channels); None outside the measured range, where the data can say nothing."""
    if not spectrum.axis[0] <= claimed <= spectrum.axis[-1]:
        return None
    step = float(spectrum.axis[1] - spectrum.axis[0])
    if any(abs(line.position - claimed) <= line.fwhm / 2 and snr(spectrum, line) >= MIN_SNR for line in spectrum.lines):
        return "right"
    return "wrong" if all(abs(line.position - claimed) >= max(10 * line.fwhm, 10 * step) for line in spectrum.lines) \
        else None
