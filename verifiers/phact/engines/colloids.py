"""Colloidal stability of two equal spheres in an aqueous 1:1 electrolyte (DLVO).

- Debye length: 1/kappa = sqrt(eps_r eps_0 k_B T / (2 N_A e^2 I)), I the ionic strength in mol/m^3.
- Hamaker constant of material 1 across water 3, from the Lifshitz theory in the Tabor-Winterton
  approximation (Israelachvili, Intermolecular and Surface Forces, 3rd ed., ch. 13):
  A = 3/4 k_B T ((e1 - e3)/(e1 + e3))^2 + 3 h nu_e (n1^2 - n3^2)^2 / (16 sqrt(2) (n1^2 + n3^2)^(3/2)),
  with static dielectric constants e, refractive indices n and UV absorption frequency nu_e = 3.0e15 Hz.
- Van der Waals attraction of spheres of radius a at surface gap h << a: V_A = -A a / (12 h).
- Double-layer repulsion at constant, low surface potential psi (Derjaguin approximation):
  V_R = 2 pi eps_r eps_0 a psi^2 ln(1 + exp(-kappa h)).
The barrier is the maximum of V_A + V_R over gaps from 0.3 nm (closest approach) outwards, in k_B T.
A material without dielectric data is outside the engine's competence, and so is a particle below 1 nm
in radius: that is a molecule, not a colloid, and the Derjaguin approximation (gap << radius) fails at the
0.3 nm closest approach.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from physvec.verifiers.phact.engines import OutsideCompetence

if TYPE_CHECKING:
    import numpy as np

BOLTZMANN_J_PER_K = 1.380649e-23
AVOGADRO_PER_MOL = 6.02214076e23
ELEMENTARY_CHARGE_C = 1.602176634e-19
VACUUM_PERMITTIVITY_F_PER_M = 8.8541878128e-12
PLANCK_J_S = 6.62607015e-34
UV_ABSORPTION_HZ = 3.0e15
CLOSEST_APPROACH_M = 0.3e-9
SMALLEST_COLLOID_M = 1e-9

MATERIALS = {
    # static dielectric constant, refractive index (visible), as tabulated in Israelachvili 3rd ed., ch. 13
    "water": (80.0, 1.333),
    "polystyrene": (2.55, 1.557),
    "fused_silica": (3.8, 1.448),
    "alumina": (9.3, 1.75),
    "hydrocarbon": (2.0, 1.40),
}


def water_permittivity(temperature_K: float) -> float:
    """Relative permittivity of water, Malmberg and Maryott (1956): 87.74 - 0.40008 T + 9.398e-4 T^2 - 1.41e-6 T^3 (T in C)."""
    celsius = temperature_K - 273.15
    if not 0 <= celsius <= 100:
        raise OutsideCompetence(f"water permittivity is tabulated for 0-100 C, not {celsius:.1f} C")
    return 87.740 - 0.40008 * celsius + 9.398e-4 * celsius ** 2 - 1.410e-6 * celsius ** 3


def debye_length_m(ionic_strength_M: float, temperature_K: float) -> float:
    if ionic_strength_M <= 0:
        raise ValueError("ionic strength must be positive")
    permittivity = water_permittivity(temperature_K) * VACUUM_PERMITTIVITY_F_PER_M
    density = 2 * AVOGADRO_PER_MOL * ELEMENTARY_CHARGE_C ** 2 * ionic_strength_M * 1000
    return math.sqrt(permittivity * BOLTZMANN_J_PER_K * temperature_K / density)


def hamaker_in_water_J(material: str, temperature_K: float) -> float:
    if material not in MATERIALS or material == "water":
        raise OutsideCompetence(f"no dielectric data for {material!r} (known: {', '.join(sorted(MATERIALS))})")
    (e1, n1), (e3, n3) = MATERIALS[material], MATERIALS["water"]
    static = 0.75 * BOLTZMANN_J_PER_K * temperature_K * ((e1 - e3) / (e1 + e3)) ** 2
    dispersion = (3 * PLANCK_J_S * UV_ABSORPTION_HZ * (n1 ** 2 - n3 ** 2) ** 2
                  / (16 * math.sqrt(2) * (n1 ** 2 + n3 ** 2) ** 1.5))
    return static + dispersion


def interaction_J(gap_m: np.ndarray, radius_m: float, hamaker_J: float, zeta_V: float,
                  ionic_strength_M: float, temperature_K: float) -> np.ndarray:
    """V_A + V_R at surface gaps ``gap_m``."""
    import numpy as np  # only where a colloid is judged: every phact command loads this engine

    kappa = 1 / debye_length_m(ionic_strength_M, temperature_K)
    permittivity = water_permittivity(temperature_K) * VACUUM_PERMITTIVITY_F_PER_M
    attraction = -hamaker_J * radius_m / (12 * gap_m)
    repulsion = 2 * math.pi * permittivity * radius_m * zeta_V ** 2 * np.log1p(np.exp(-kappa * gap_m))
    return attraction + repulsion


def barrier_kT(radius_m: float, material: str, zeta_V: float, ionic_strength_M: float, temperature_K: float) -> float:
    """Height of the energy barrier against aggregation, in k_B T (0 when the interaction is attractive)."""
    if not radius_m >= SMALLEST_COLLOID_M:
        raise OutsideCompetence(f"radius {radius_m:.3g} m is below {SMALLEST_COLLOID_M:g} m: a molecule, not a colloid,"
                                " and the Derjaguin approximation needs gaps far below the radius")
    if abs(zeta_V) > 0.075:
        raise OutsideCompetence("the linear double-layer repulsion holds for |zeta| below about 75 mV")
    hamaker = hamaker_in_water_J(material, temperature_K)
    import numpy as np

    reach = 20 * debye_length_m(ionic_strength_M, temperature_K) + 50e-9
    gaps = np.geomspace(CLOSEST_APPROACH_M, CLOSEST_APPROACH_M + reach, 4000)
    energy = interaction_J(gaps, radius_m, hamaker, zeta_V, ionic_strength_M, temperature_K)
    return max(0.0, float(energy.max())) / (BOLTZMANN_J_PER_K * temperature_K)
