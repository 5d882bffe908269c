"""Closed-shell Hartree-Fock in s-type Gaussian basis sets, from the textbook closed-form Gaussian integrals.

Enough for molecules of H and He in STO-3G (one contracted 1s function of three primitives per atom;
Hehre, Stewart & Pople 1969) and 6-31G (an inner 1s of three primitives and an outer one of one;
Ditchfield, Hehre & Pople 1971): both bases hold only s functions on these atoms.  Contractions are
left unnormalised, which scales basis functions and changes no energy.  The integrals over s Gaussians (overlap, kinetic, nuclear attraction and electron repulsion through the
Boys function F0) and the SCF with symmetric orthogonalisation follow Szabo & Ostlund, Modern Quantum
Chemistry (1996), chapter 3 and appendix A.  Lengths in bohr, energies in hartree.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from itertools import product

import numpy as np
from scipy.special import erf

Shell = tuple[tuple[float, float], ...]
"""One contracted s function: (exponent, coefficient of the normalised primitive) pairs."""

_STO3G_COEFFICIENTS = (0.15432897, 0.53532814, 0.44463454)
BASIS_SETS: dict[str, dict[str, tuple[Shell, ...]]] = {
    "sto-3g": {
        "H": (tuple(zip((3.42525091, 0.62391373, 0.16885540), _STO3G_COEFFICIENTS)),),
        "He": (tuple(zip((6.36242139, 1.15892300, 0.31364979), _STO3G_COEFFICIENTS)),),
    },
    "6-31g": {
        "H": (((18.7311370, 0.03349460), (2.8253937, 0.23472695), (0.6401217, 0.81375733)),
              ((0.1612778, 1.0),)),
        "He": (((38.4216340, 0.0237660), (5.7780300, 0.1546790), (1.2417740, 0.4696300)),
               ((0.2979640, 1.0),)),
    },
}
NUCLEAR_CHARGE = {"H": 1, "He": 2}
BOHR_IN_ANGSTROM = 0.529177210903


@dataclass(frozen=True)
class Primitive:
    exponent: float
    coefficient: float
    centre: np.ndarray

    @property
    def norm(self) -> float:
        return (2 * self.exponent / np.pi) ** 0.75


def _boys0(t: float) -> float:
    return 1.0 if t < 1e-12 else 0.5 * np.sqrt(np.pi / t) * erf(np.sqrt(t))


def _pair(a: Primitive, b: Primitive) -> tuple[float, float, np.ndarray, float]:
    """Gaussian product rule: total exponent, reduced exponent, product centre, prefactor."""
    p = a.exponent + b.exponent
    reduced = a.exponent * b.exponent / p
    gaussian = float(np.exp(-reduced * np.sum((a.centre - b.centre) ** 2)))
    return p, reduced, (a.exponent * a.centre + b.exponent * b.centre) / p, gaussian


def _overlap(a: Primitive, b: Primitive) -> float:
    p, _, _, gaussian = _pair(a, b)
    return (np.pi / p) ** 1.5 * gaussian


def _kinetic(a: Primitive, b: Primitive) -> float:
    p, reduced, _, gaussian = _pair(a, b)
    distance2 = np.sum((a.centre - b.centre) ** 2)
    return reduced * (3 - 2 * reduced * distance2) * (np.pi / p) ** 1.5 * gaussian


def _attraction(a: Primitive, b: Primitive, charge: int, nucleus: np.ndarray) -> float:
    p, _, centre, gaussian = _pair(a, b)
    return -2 * np.pi / p * charge * gaussian * _boys0(p * np.sum((centre - nucleus) ** 2))


def _repulsion(a: Primitive, b: Primitive, c: Primitive, d: Primitive) -> float:
    p, _, P, gab = _pair(a, b)
    q, _, Q, gcd = _pair(c, d)
    return 2 * np.pi**2.5 / (p * q * np.sqrt(p + q)) * gab * gcd * _boys0(p * q / (p + q) * np.sum((P - Q) ** 2))


def _basis(atoms: list[tuple[str, np.ndarray]], basis: str) -> list[list[Primitive]]:
    return [[Primitive(alpha, d, centre) for alpha, d in shell]
            for element, centre in atoms for shell in BASIS_SETS[basis][element]]


def _contracted(function: list[Primitive], *others: list[Primitive], integral: Callable[..., float]) -> float:
    total = 0.0
    for primitives in product(function, *others):
        weight = np.prod([g.coefficient * g.norm for g in primitives])
        total += weight * integral(*primitives)
    return total


@dataclass(frozen=True)
class HartreeFock:
    energy: float
    orbital_energies: list[float]


def restricted_hartree_fock(atoms: list[tuple[str, tuple[float, float, float]]], basis: str = "sto-3g",
                            charge: int = 0, tolerance: float = 1e-12, max_iterations: int = 200) -> HartreeFock:
    """Closed-shell RHF of the molecule ``atoms`` (element, position in bohr) with net ``charge``."""
    placed = [(element, np.asarray(position, dtype=float)) for element, position in atoms]
    functions = _basis(placed, basis)
    n = len(functions)
    electrons = sum(NUCLEAR_CHARGE[element] for element, _ in placed) - charge
    if electrons % 2:
        raise ValueError("closed-shell RHF needs an even number of electrons")
    S = np.array([[_contracted(functions[i], functions[j], integral=_overlap) for j in range(n)] for i in range(n)])
    T = np.array([[_contracted(functions[i], functions[j], integral=_kinetic) for j in range(n)] for i in range(n)])
    V = sum(np.array([[_contracted(functions[i], functions[j], integral=lambda a, b: _attraction(a, b, NUCLEAR_CHARGE[el], R))
                       for j in range(n)] for i in range(n)]) for el, R in placed)
    eri = np.zeros((n, n, n, n))
    for i, j, k, l in product(range(n), repeat=4):
        eri[i, j, k, l] = _contracted(functions[i], functions[j], functions[k], functions[l], integral=_repulsion)
    core = T + V
    values, vectors = np.linalg.eigh(S)
    X = vectors @ np.diag(values**-0.5) @ vectors.T
    density, energy = np.zeros((n, n)), 0.0
    for _ in range(max_iterations):
        fock = core + np.einsum("kl,ijlk->ij", density, eri) - 0.5 * np.einsum("kl,ilkj->ij", density, eri)
        orbital_energies, rotated = np.linalg.eigh(X.T @ fock @ X)
        coefficients = X @ rotated
        occupied = coefficients[:, :electrons // 2]
        new_density = 2 * occupied @ occupied.T
        new_energy = 0.5 * float(np.sum(new_density * (core + fock)))
        converged = abs(new_energy - energy) < tolerance and np.abs(new_density - density).max() < 1e-10
        density, energy = new_density, new_energy
        if converged:
            break
    else:
        raise RuntimeError(f"the SCF did not converge in {max_iterations} iterations")
    fock = core + np.einsum("kl,ijlk->ij", density, eri) - 0.5 * np.einsum("kl,ilkj->ij", density, eri)
    electronic = 0.5 * float(np.sum(density * (core + fock)))
    return HartreeFock(electronic + _nuclear_repulsion(placed), [float(e) for e in np.linalg.eigh(X.T @ fock @ X)[0]])


def _nuclear_repulsion(atoms: list[tuple[str, np.ndarray]]) -> float:
    return sum(NUCLEAR_CHARGE[a] * NUCLEAR_CHARGE[b] / float(np.linalg.norm(Ra - Rb))
               for index, (a, Ra) in enumerate(atoms) for b, Rb in atoms[index + 1:])
