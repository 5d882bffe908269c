"""Compact-binary inspiral at leading (quadrupole, Newtonian) order.

Chirp mass Mc = (m1 m2)^(3/5) / (m1 + m2)^(1/5); gravitational-wave frequency at the innermost stable
circular orbit of a Schwarzschild mass M, f_ISCO = c^3 / (6^(3/2) pi G M); strain amplitude of a
circular binary at GW frequency f and distance d, h = (4/d) (G Mc / c^2)^(5/3) (pi f / c)^(2/3);
merger time from orbital separation a (Peters, Phys. Rev. 136, B1224 (1964)),
T = (5/256) c^5 a^4 / (G^3 m1 m2 (m1 + m2)).

These are the equations of an inspiral, which ends at the innermost stable circular orbit (separation
6 G M / c^2, three Schwarzschild radii): a separation inside it or a GW frequency above f_ISCO describes no
inspiral, and the engine declines it (outside its competence) instead of evaluating the formulas there.
"""

from __future__ import annotations

import math

from physvec.verifiers.phact.engines import OutsideCompetence

G_SI = 6.67430e-11
C_SI = 299_792_458.0
SOLAR_MASS_KG = 1.98840987e30
MEGAPARSEC_M = 3.0856775814913673e22


def chirp_mass_msun(m1_msun: float, m2_msun: float) -> float:
    _positive(m1_msun=m1_msun, m2_msun=m2_msun)
    return (m1_msun * m2_msun) ** 0.6 / (m1_msun + m2_msun) ** 0.2


def isco_gw_frequency_Hz(total_mass_msun: float) -> float:
    _positive(total_mass_msun=total_mass_msun)
    return C_SI ** 3 / (6 ** 1.5 * math.pi * G_SI * total_mass_msun * SOLAR_MASS_KG)


def schwarzschild_radius_m(total_mass_msun: float) -> float:
    _positive(total_mass_msun=total_mass_msun)
    return 2 * G_SI * total_mass_msun * SOLAR_MASS_KG / C_SI ** 2


def isco_separation_m(total_mass_msun: float) -> float:
    """6 G M / c^2: where a circular orbit stops being stable and the inspiral ends."""
    return 3 * schwarzschild_radius_m(total_mass_msun)


def inspiral_strain(chirp_mass_msun_: float, gw_frequency_Hz: float, distance_Mpc: float,
                    isco_frequency_Hz: float) -> float:
    """The strain of an inspiral, which exists only up to f_ISCO."""
    if gw_frequency_Hz > isco_frequency_Hz:
        raise OutsideCompetence(f"GW frequency {gw_frequency_Hz:.4g} Hz is above f_ISCO {isco_frequency_Hz:.4g} Hz:"
                                " no inspiral is there")
    return strain_amplitude(chirp_mass_msun_, gw_frequency_Hz, distance_Mpc)


def strain_amplitude(chirp_mass_msun_: float, gw_frequency_Hz: float, distance_Mpc: float) -> float:
    _positive(chirp_mass_msun=chirp_mass_msun_, gw_frequency_Hz=gw_frequency_Hz, distance_Mpc=distance_Mpc)
    length = G_SI * chirp_mass_msun_ * SOLAR_MASS_KG / C_SI ** 2
    return 4 / (distance_Mpc * MEGAPARSEC_M) * length ** (5 / 3) * (math.pi * gw_frequency_Hz / C_SI) ** (2 / 3)


def merger_time_s(m1_msun: float, m2_msun: float, separation_m: float) -> float:
    _positive(m1_msun=m1_msun, m2_msun=m2_msun, separation_m=separation_m)
    innermost = isco_separation_m(m1_msun + m2_msun)
    if separation_m < innermost:
        raise OutsideCompetence(f"separation {separation_m:.4g} m is inside the innermost stable orbit"
                                f" {innermost:.4g} m (three Schwarzschild radii): no inspiral is there")
    m1, m2 = m1_msun * SOLAR_MASS_KG, m2_msun * SOLAR_MASS_KG
    return 5 / 256 * C_SI ** 5 * separation_m ** 4 / (G_SI ** 3 * m1 * m2 * (m1 + m2))


def _positive(**values: float) -> None:
    for name, value in values.items():
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value}")
