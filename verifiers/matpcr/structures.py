"""Reference crystal structures, each from its space group, Wyckoff positions and measured lattice constants.

Diffraction peaks are computed from these, never looked up, so each record carries only what a
crystallographer would cite: the space group (Hermann-Mauguin symbol, in the International Tables' first
setting: origin choice 1, rhombohedral groups in hexagonal axes), one representative coordinate per Wyckoff
orbit, the lattice constants and where they were measured.  The orbits are generated from spglib's table of
symmetry operations (pymatgen's own generator rebuilds each group and takes seconds per group).  The Wyckoff letter's multiplicity is checked against the number of
sites the space group generates (tests/verifiers/matpcr/test_structures.py), which catches a coordinate
written for another origin choice.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from pymatgen.core import Structure

KITTEL = "C. Kittel, Introduction to Solid State Physics, 8th ed. (Wiley, 2005), ch. 1 tables of lattice constants"
NBS_539 = "Swanson et al., Standard X-ray Diffraction Powder Patterns, NBS Circular 539 (1953-1960)"


@dataclass(frozen=True)
class Site:
    species: str
    wyckoff: str
    """multiplicity and letter, e.g. 8a: the multiplicity is checked against the generated orbit"""
    coords: tuple[float, float, float]


@dataclass(frozen=True)
class ReferenceStructure:
    id: str
    formula: str
    space_group: str
    crystal_system: str
    a: float
    c: float | None
    """None for cubic cells (c = a)"""
    sites: tuple[Site, ...]
    source: str
    """where the lattice constants (and internal coordinates, if any) were measured"""


def _cubic(id_: str, formula: str, group: str, a: float, sites: tuple[Site, ...], source: str) -> ReferenceStructure:
    return ReferenceStructure(id_, formula, group, "cubic", a, None, sites, source)


DIAMOND = (Site("X", "8a", (0.0, 0.0, 0.0)),)
ROCKSALT = (Site("A", "4a", (0.0, 0.0, 0.0)), Site("B", "4b", (0.5, 0.5, 0.5)))
ZINCBLENDE = (Site("A", "4a", (0.0, 0.0, 0.0)), Site("B", "4c", (0.25, 0.25, 0.25)))
CSCL = (Site("A", "1a", (0.0, 0.0, 0.0)), Site("B", "1b", (0.5, 0.5, 0.5)))
HCP = (Site("X", "2c", (1 / 3, 2 / 3, 0.25)),)


def _with(template: tuple[Site, ...], *species: str) -> tuple[Site, ...]:
    """A structure type's sites with its placeholder species (X, or A and B) named."""
    return tuple(Site(name, site.wyckoff, site.coords) for name, site in zip(species, template))


def _wurtzite(u: float, *species: str) -> tuple[Site, ...]:
    return (Site(species[0], "2b", (1 / 3, 2 / 3, 0.0)), Site(species[1], "2b", (1 / 3, 2 / 3, u)))


STRUCTURES: dict[str, ReferenceStructure] = {s.id: s for s in (
    _cubic("Si", "Si", "Fd-3m", 5.4310, _with(DIAMOND, "Si"),
           "Y. Okada and Y. Tokumaru, J. Appl. Phys. 56, 314 (1984): a = 5.4310 A at 300 K"),
    _cubic("Ge", "Ge", "Fd-3m", 5.658, _with(DIAMOND, "Ge"), KITTEL + ": Ge 5.658 A"),
    _cubic("C-diamond", "C", "Fd-3m", 3.567, _with(DIAMOND, "C"), KITTEL + ": diamond 3.567 A"),
    _cubic("NaCl", "NaCl", "Fm-3m", 5.6402, _with(ROCKSALT, "Na", "Cl"), NBS_539 + ", vol. 2: halite a = 5.6402 A"),
    _cubic("KCl", "KCl", "Fm-3m", 6.29, _with(ROCKSALT, "K", "Cl"), KITTEL + ": KCl 6.29 A"),
    _cubic("MgO", "MgO", "Fm-3m", 4.213, _with(ROCKSALT, "Mg", "O"),
           NBS_539 + ", vol. 1 (Swanson and Tatge): periclase a = 4.213 A at 26 C, as on ICDD card 04-0829 "
           "(seen in a public copy of the card); Kittel's rounded 4.20 A put (200) 0.13 deg too high"),
    _cubic("PbS", "PbS", "Fm-3m", 5.936, _with(ROCKSALT, "Pb", "S"),
           "galena a = 5.936 A, the value of ICDD card 05-0592 (an NBS powder pattern) as quoted by secondary "
           "sources; the card itself not checked (Kittel's rounded 5.92 A is 0.3 % short)"),
    _cubic("Cu", "Cu", "Fm-3m", 3.6150, (Site("Cu", "4a", (0.0, 0.0, 0.0)),), NBS_539 + ", vol. 1: Cu a = 3.6150 A"),
    _cubic("Al", "Al", "Fm-3m", 4.0494, (Site("Al", "4a", (0.0, 0.0, 0.0)),), NBS_539 + ", vol. 1: Al a = 4.0494 A"),
    _cubic("Fe-bcc", "Fe", "Im-3m", 2.8664, (Site("Fe", "2a", (0.0, 0.0, 0.0)),),
           NBS_539 + ", vol. 4: alpha-Fe a = 2.8664 A at 25 C (ICDD card 06-0696), from recollection, not checked "
           "against the original; room-temperature values in the literature lie at 2.865-2.867 A"),
    _cubic("CsCl", "CsCl", "Pm-3m", 4.123, _with(CSCL, "Cs", "Cl"),
           "a = 4.123 A at room temperature, the NBS powder-pattern value (ICDD card 05-0607) as quoted by "
           "secondary sources; original not checked (Kittel's rounded 4.11 A is 0.3 % short)"),
    _cubic("CuZn", "CuZn", "Pm-3m", 2.94, _with(CSCL, "Cu", "Zn"),
           KITTEL + ": beta-brass CuZn 2.94 A (suspect: ordered beta'-CuZn near 50 at.% Zn is usually reported "
           "near 2.95 A and depends on composition; not corrected for want of a checked source)"),
    _cubic("ZnS", "ZnS", "F-43m", 5.41, _with(ZINCBLENDE, "Zn", "S"), KITTEL + ": sphalerite ZnS 5.41 A"),
    _cubic("SiC-3C", "SiC", "F-43m", 4.3596, _with(ZINCBLENDE, "Si", "C"),
           "a = 4.3596 A at room temperature, the value tabulated for 3C-SiC in Landolt-Boernstein and the "
           "Ioffe NSM database (from recollection, originals not checked; Kittel's rounded 4.35 A is 0.2 % short)"),
    _cubic("CaF2", "CaF2", "Fm-3m", 5.4626, (Site("Ca", "4a", (0.0, 0.0, 0.0)), Site("F", "8c", (0.25, 0.25, 0.25))),
           NBS_539 + ", vol. 1: fluorite a = 5.4626 A"),
    _cubic("SrTiO3", "SrTiO3", "Pm-3m", 3.905,
           (Site("Sr", "1a", (0.0, 0.0, 0.0)), Site("Ti", "1b", (0.5, 0.5, 0.5)), Site("O", "3c", (0.0, 0.5, 0.5))),
           "F. W. Lytle, J. Appl. Phys. 35, 2212 (1964): a = 3.905 A at room temperature"),
    ReferenceStructure("Mg", "Mg", "P6_3/mmc", "hexagonal", 3.21, 5.21, _with(HCP, "Mg"),
                       KITTEL + ": hcp Mg a = 3.21 A, c = 5.21 A"),
    ReferenceStructure("Zn", "Zn", "P6_3/mmc", "hexagonal", 2.6649, 4.9468, _with(HCP, "Zn"),
                       NBS_539 + ", vol. 1 (Swanson and Tatge): Zn a = 2.6649 A, c = 4.9468 A at 25 C (ICDD card "
                       "04-0831), from recollection, original not checked; Kittel's rounded 2.66/4.95 A moved (100) "
                       "by +0.08 deg"),
    ReferenceStructure("ZnO", "ZnO", "P6_3mc", "hexagonal", 3.2498, 5.2066, _wurtzite(0.3819, "Zn", "O"),
                       "E. H. Kisi and M. M. Elcombe, Acta Cryst. C45, 1867 (1989): a = 3.2498 A, c = 5.2066 A, "
                       "u = 0.3819"),
    ReferenceStructure("GaN", "GaN", "P6_3mc", "hexagonal", 3.1890, 5.1864, _wurtzite(0.377, "Ga", "N"),
                       "M. Leszczynski et al., Appl. Phys. Lett. 69, 73 (1996): a = 3.1890 A, c = 5.1864 A; "
                       "u = 0.377 as commonly quoted for GaN"),
    ReferenceStructure("C-graphite", "C", "P6_3/mmc", "hexagonal", 2.464, 6.711,
                       (Site("C", "2b", (0.0, 0.0, 0.25)), Site("C", "2c", (1 / 3, 2 / 3, 0.25))),
                       "P. Trucano and R. Chen, Nature 258, 136 (1975): a = 2.464 A, c = 6.711 A"),
    ReferenceStructure("MoS2", "MoS2", "P6_3/mmc", "hexagonal", 3.1604, 12.295,
                       (Site("Mo", "2c", (1 / 3, 2 / 3, 0.25)), Site("S", "4f", (1 / 3, 2 / 3, 0.621))),
                       "B. Schoenfeld, J. J. Huang and S. C. Moss, Acta Cryst. B39, 404 (1983): a = 3.1604 A, "
                       "c = 12.295 A, z(S) = 0.621"),
    ReferenceStructure("TiO2-rutile", "TiO2", "P4_2/mnm", "tetragonal", 4.5937, 2.9587,
                       (Site("Ti", "2a", (0.0, 0.0, 0.0)), Site("O", "4f", (0.3048, 0.3048, 0.0))),
                       "J. K. Burdett et al., J. Am. Chem. Soc. 109, 3639 (1987): a = 4.5937 A, c = 2.9587 A, "
                       "x(O) = 0.3048"),
    ReferenceStructure("TiO2-anatase", "TiO2", "I4_1/amd", "tetragonal", 3.7845, 9.5143,
                       (Site("Ti", "4a", (0.0, 0.0, 0.0)), Site("O", "8e", (0.0, 0.0, 0.2081))),
                       "J. K. Burdett et al., J. Am. Chem. Soc. 109, 3639 (1987): a = 3.7845 A, c = 9.5143 A, "
                       "z(O) = 0.2081 (origin choice 1)"),
    ReferenceStructure("Al2O3-corundum", "Al2O3", "R-3c", "trigonal", 4.758, 12.991,
                       (Site("Al", "12c", (0.0, 0.0, 0.35216)), Site("O", "18e", (0.30624, 0.0, 0.25))),
                       NBS_539 + ", vol. 2: a = 4.758 A, c = 12.991 A (hexagonal axes); J. Lewis, D. Schwarzenbach "
                       "and H. D. Flack, Acta Cryst. A38, 733 (1982): z(Al) = 0.35216, x(O) = 0.30624"),
)}


def multiplicity(site: Site) -> int:
    """The multiplicity written in a Wyckoff label (8a -> 8)."""
    return int(site.wyckoff.rstrip("abcdefghijklmnopqrstuvwxyz"))


@cache
def hall_number(space_group: str) -> int:
    """The first Hall setting of a Hermann-Mauguin symbol in spglib's table: ITA's standard setting, origin
    choice 1 and hexagonal axes where there is a choice (ValueError for an unknown symbol)."""
    for number in range(1, 531):
        if _spglib("get_spacegroup_type", number).international_short == space_group:
            return number
    raise ValueError(f"no space group {space_group!r}")


def orbit(space_group: str, coords: tuple[float, float, float]) -> list[tuple[float, float, float]]:
    """The distinct images of one fractional coordinate under the space group's operations, in the unit cell."""
    operations = _spglib("get_symmetry_from_database", hall_number(space_group))
    images: list[tuple[float, float, float]] = []
    for rotation, translation in zip(operations["rotations"], operations["translations"]):
        image = np.mod(rotation @ np.asarray(coords) + translation, 1.0)
        if not any(np.allclose(_wrapped(image - np.asarray(seen)), 0.0, atol=1e-6) for seen in images):
            images.append(tuple(float(x) for x in image))
    return images


def _spglib(function: str, hall: int) -> Any:
    """A spglib table lookup, without the deprecation notice spglib 2.x prints about its error handling."""
    import spglib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return getattr(spglib, function)(hall)


def _wrapped(difference: np.ndarray) -> np.ndarray:
    """A difference of fractional coordinates taken to the nearest lattice translation."""
    return difference - np.round(difference)


@cache
def build(structure_id: str) -> Structure:
    """The conventional cell of a reference structure: every Wyckoff orbit generated by the space group's
    operations (spglib's database), on the cited lattice (KeyError for an unknown id)."""
    from pymatgen.core import Lattice, Structure

    record = STRUCTURES[structure_id]
    if record.crystal_system == "cubic":
        lattice = Lattice.cubic(record.a)
    elif record.crystal_system == "tetragonal":
        lattice = Lattice.tetragonal(record.a, record.c)
    else:
        lattice = Lattice.hexagonal(record.a, record.c)
    species, positions = [], []
    for site in record.sites:
        images = orbit(record.space_group, site.coords)
        species += [site.species] * len(images)
        positions += images
    return Structure(lattice, species, positions)
