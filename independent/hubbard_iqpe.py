"""Iterative phase estimation of the Hubbard ring's ground energy (Mirzakhani and Moon 2025) in plain numpy and
scipy, no Qiskit: the (N_up, N_down) sector on occupation bit strings with its own fermion signs
(independent/hubbard_vqe.py), the determinant of the ring's standing waves, each Trotter factor exponentiated
exactly in the sector, powers of the Trotter evolution by matrix products, and the ancilla's outcome
probabilities of each IQPE iteration; plus exact diagonalisation of the sector.

The definitions follow the library's (qiskit_hubbard_iqpe.py): time and offset from the bounds E_free <= E_0 <=
E_SD, the paper's first-order step order, the likelier outcome per iteration.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.linalg import expm

from physvec.independent.hubbard_vqe import Sector


def ring_standing_waves(L: int, gamma: float, sine_first: bool = False) -> np.ndarray:
    """Columns: cos and sin(2 pi k j / L), normalised, energy -2 gamma cos(2 pi k / L) ascending, smaller k first,
    the cosine before the sine (or the sine first)."""
    j = np.arange(L)
    waves = []
    for k in range(L // 2 + 1):
        angle = 2 * np.pi * k * j / L
        waves.append((-2 * gamma * np.cos(2 * np.pi * k / L), k, int(sine_first), np.cos(angle)))
        if 0 < 2 * k < L:
            waves.append((-2 * gamma * np.cos(2 * np.pi * k / L), k, int(not sine_first), np.sin(angle)))
    waves.sort(key=lambda wave: wave[:3])
    return np.column_stack([wave[3] / np.linalg.norm(wave[3]) for wave in waves])


def ring_sector(L: int, gamma: float, occupation: int) -> tuple[Sector, list[np.ndarray], np.ndarray, np.ndarray]:
    """The sector of N_up = ceil(N/2), N_down = floor(N/2); the hopping factors in step order (bonds (i, i + 1 mod L)
    of spin up, then of spin down); the double occupancy; the determinant (spin up fills a degenerate pair's cosine
    first, spin down its sine)."""
    sector = Sector(L, (occupation + 1) // 2, occupation // 2)
    bonds = [(site, (site + 1) % L) for site in range(L)]
    factors = [sector.hopping([bond], gamma, spins=(spin,)).toarray() for spin in (0, 1) for bond in bonds]
    return sector, factors, sector.double_occupancy().toarray(), sector.determinant(
        ring_standing_waves(L, gamma), (occupation + 1) // 2, occupation // 2, ring_standing_waves(L, gamma, True))


def iqpe_point(L: int, gamma: float, occupation: int, U: float, bits: int, trotter_steps: int,
               margin: float) -> dict[str, Any]:
    """One IQPE run: its bits (x_1 first), energy, time and offset, and the sector's exact ground energy."""
    _, factors, double, psi = ring_sector(L, gamma, occupation)
    free = float(np.vdot(psi, sum(factors) @ psi).real)
    slater = free + U * float(np.vdot(psi, double @ psi).real)
    offset, time = slater + margin, 2 * math.pi / (slater - free + 2 * margin)
    dt = time / trotter_steps
    step = np.exp(1j * offset * dt) * np.eye(len(psi))
    for factor in [*factors, U * double]:
        step = expm(-1j * dt * factor) @ step
    evolution = np.linalg.matrix_power(step, trotter_steps)
    overlaps, power = {}, evolution
    for exponent in range(bits):
        overlaps[2 ** exponent] = complex(np.vdot(psi, power @ psi))
        power = power @ power
    digits: dict[int, int] = {}  # x_l by l
    for k in range(1, bits + 1):
        omega = 2 * math.pi * sum(digits[l] * 2.0 ** -(l - (bits - k)) for l in range(bits - k + 2, bits + 1))
        p_zero = (1 + (np.exp(-1j * omega) * overlaps[2 ** (bits - k)]).real) / 2
        digits[bits - k + 1] = 0 if p_zero >= 0.5 else 1
    phase = sum(digits[l] * 2.0 ** -l for l in range(1, bits + 1))
    hamiltonian = sum(factors) + U * double
    return {"bits": [digits[l] for l in range(1, bits + 1)], "energy": offset - 2 * math.pi * phase / time,
            "time": time, "offset": offset, "exact": float(np.linalg.eigvalsh(hamiltonian)[0])}


def iqpe_results(params: dict[str, Any]) -> dict[str, Any]:
    """energies, evolution_times and the exact ground energies per occupation and scan point, for the library's
    parameters (L, gamma, U, occupations, bits, trotter_steps, margin; U, bits, trotter_steps a number, or a list
    for the one scanned)."""
    U, bits, steps = ([params[name]] if isinstance(params[name], (int, float)) else params[name]
                      for name in ("U", "bits", "trotter_steps"))
    count = max(len(U), len(bits), len(steps))
    found: dict[str, list] = {"energies": [], "evolution_times": [], "exact_energies": []}
    for occupation in params["occupations"]:
        row = [iqpe_point(params["L"], params["gamma"], occupation, U[i % len(U)], bits[i % len(bits)],
                          steps[i % len(steps)], params["margin"]) for i in range(count)]
        found["energies"].append([point["energy"] for point in row])
        found["evolution_times"].append([point["time"] for point in row])
        found["exact_energies"].append([point["exact"] for point in row])
    return found
