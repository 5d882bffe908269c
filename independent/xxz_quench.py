"""Quenches of the open XXZ chain with on-site fields in plain numpy and scipy, no Qiskit: the same product
formula by exact matrix exponentials of each commuting group, and exact continuous-time evolution.

H = -J sum_j (X_j X_{j+1} + Y_j Y_{j+1}) + U sum_j Z_j Z_{j+1} + sum_j h_j Z_j (Pauli operators), open chain.
Site 0 is the leftmost tensor factor, so site i is bit L - 1 - i of a basis index; a 1 bit is spin down.
The fields of a curve are the definition the library uses (Smith et al., npj Quantum Inf. 5, 106 (2019)):
h_j = slope * j + disorder * w_j, j = 1..L, w_j uniform in [-1, 1] from numpy's default_rng(seed), an
(realisations x L) block per disordered curve in curve order, one realisation for a curve without disorder.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.linalg import expm
from scipy.sparse.linalg import expm_multiply

from physvec.independent.spin_chains import site_operator


def curve_fields(L: int, disorder: list[float], slope: list[float], realisations: int,
                 seed: int) -> list[list[np.ndarray]]:
    """h_j per curve and realisation (see the module note)."""
    rng = np.random.default_rng(seed)
    curves = []
    for width, tilt in zip(disorder, slope, strict=True):
        draws = rng.uniform(-1.0, 1.0, size=(realisations, L)) if width else np.zeros((1, L))
        curves.append([tilt * np.arange(1, L + 1) + width * draw for draw in draws])
    return curves


def _bond(L: int, i: int, J: float, U: float) -> np.ndarray:
    pair = (site_operator("X", i, L) @ site_operator("X", i + 1, L) + site_operator("Y", i, L)
            @ site_operator("Y", i + 1, L))
    return (-J * pair + U * site_operator("Z", i, L) @ site_operator("Z", i + 1, L)).real.toarray()


def group_hamiltonians(L: int, J: float, U: float, fields: np.ndarray) -> dict[str, np.ndarray]:
    """The fields, the bonds (j, j + 1) with j odd, and with j even (j counted from 1), dense."""
    size = 2**L
    groups = {"fields": np.zeros((size, size)), "odd": np.zeros((size, size)), "even": np.zeros((size, size))}
    for i in range(L):
        groups["fields"] += fields[i] * site_operator("Z", i, L).real.toarray()
    for i in range(L - 1):
        groups["odd" if (i + 1) % 2 == 1 else "even"] += _bond(L, i, J, U)
    return groups


def initial_vector(L: int, initial: str) -> np.ndarray:
    """Domain wall: sites 1..L/2 down; Neel: sites 1, 3, 5, ... down."""
    down = range(L // 2) if initial == "domain_wall" else range(0, L, 2)
    vector = np.zeros(2**L, dtype=complex)
    vector[sum(2 ** (L - 1 - i) for i in down)] = 1.0
    return vector


def trotter_states(groups: dict[str, np.ndarray], start: np.ndarray, dt: float, times: list[float],
                   order: int) -> list[np.ndarray]:
    """U(dt)^M U(t - M dt) applied to ``start`` at each time; a step multiplies the groups' exact exponentials:
    order 1 odd, even, fields; order 2 fields/2, even/2, odd, even/2, fields/2 (rightmost acts first)."""
    sequence = {1: (("odd", 1.0), ("even", 1.0), ("fields", 1.0)),
                2: (("fields", 0.5), ("even", 0.5), ("odd", 1.0), ("even", 0.5), ("fields", 0.5))}[order]

    def step(duration: float) -> np.ndarray:
        product = np.eye(len(start), dtype=complex)
        for group, fraction in sequence:
            product = expm(-1j * fraction * duration * groups[group]) @ product
        return product

    full_step = step(dt)
    states = []
    for time in times:
        count = math.floor(time / dt + 1e-9)
        rest = time - count * dt
        state = step(rest) @ start if rest > 1e-12 else start.copy()
        for _ in range(count):
            state = full_step @ state
        states.append(state)
    return states


def exact_states(groups: dict[str, np.ndarray], start: np.ndarray, times: list[float]) -> list[np.ndarray]:
    """exp(-i H t) applied to ``start`` at each time (continuous time, no product formula)."""
    hamiltonian = groups["fields"] + groups["odd"] + groups["even"]
    return [expm_multiply(-1j * time * hamiltonian, start) for time in times]


def _spins(L: int) -> np.ndarray:
    """Z_i of every basis state: +1 where bit L - 1 - i is 0."""
    return 1 - 2 * ((np.arange(2**L)[:, None] >> (L - 1 - np.arange(L))[None, :]) & 1)


def observables(states: list[np.ndarray], L: int) -> dict[str, Any]:
    """Magnetisations, N_half, C_1j and F_Q / L (s = +1 left half, -1 right half) of each state."""
    spins = _spins(L)
    staggered = spins @ np.where(np.arange(L) < L // 2, 1.0, -1.0)
    found: dict[str, list] = {"magnetizations": [], "half_chain_occupation": [], "connected_correlations": [],
                              "fisher_density": []}
    for state in states:
        p = np.abs(state) ** 2
        z = p @ spins
        found["magnetizations"].append(z)
        found["half_chain_occupation"].append(float(np.sum((1 + z[: L // 2]) / 2)))
        found["connected_correlations"].append(p @ (spins[:, :1] * spins) - z[0] * z)
        found["fisher_density"].append(float(p @ staggered**2 - (p @ staggered) ** 2) / L)
    return found


def quench_curves(params: dict[str, Any], exact: bool = False) -> dict[str, list]:
    """Every observable per curve and time (and site), averaged over each curve's realisations, for the library's
    parameters (L, J, U, disorder, slope, realisations, seed, initial, dt, times, order); with ``exact``,
    continuous-time evolution instead of the product formula."""
    L = params["L"]
    start = initial_vector(L, params["initial"])
    curves: dict[str, list] = {}
    fields = curve_fields(L, params["disorder"], params["slope"], params["realisations"], params["seed"])
    for coupling, realisations in zip(params["U"], fields, strict=True):
        runs = []
        for field in realisations:
            groups = group_hamiltonians(L, params["J"], coupling, field)
            states = exact_states(groups, start, params["times"]) if exact else \
                trotter_states(groups, start, params["dt"], params["times"], params["order"])
            runs.append(observables(states, L))
        for name in runs[0]:
            averaged = np.mean([np.asarray(run[name], dtype=float) for run in runs], axis=0)
            curves.setdefault(name, []).append(averaged.tolist())
    return curves
