"""Qiskit background for iterative quantum phase estimation (IQPE) of the ground energy of the Hubbard ring, as in
Mirzakhani and Moon, EPJ Quantum Technol. (2025) (s40507-025-00439-x), Figs. 3-5: the six-site ring (a graphene
hexagon) H = -gamma sum_<ij>,s (a^dag_is a_js + h.c.) + U sum_i n_i,up n_i,down.

Qubit i is site i spin up, qubit L + i site i spin down (the paper's block order), Jordan-Wigner with the string
between the bond's ends (the ring-closing bond (L - 1, 0) included: exact, as the paper's (-1)^(N_f - 1) is).
The initial state is one Slater determinant: the U = 0 orbitals as real standing waves of the ring, lowest first,
spin up taking a degenerate pair's cosine first and spin down its sine (the paper does not say which determinant
it takes where a level is degenerate; both spins in the cosine has no weight on the N = 4 ground state at U = 3).

The paper leaves the evolution time t unstated ("chosen such that E t stays in [0, 2 pi)").  Here it comes from
two bounds that need no answer: U n_up n_down >= 0 gives E_0 >= E_free (the determinant's U = 0 energy) and the
variational principle E_0 <= E_SD (its energy at U).  The circuit evolves by H - c with c = E_SD + margin for
t = 2 pi / (E_SD - E_free + 2 margin), so every E_0 the bounds allow has a phase phi = -(E_0 - c) t / (2 pi) in
(0, 1), and E = c - 2 pi phi / t (the paper's E = -2 pi phi / t, shifted by c).

One first-order Trotter step of dt = t / N_trot is the paper's order: each hopping bond of spin up in bond order,
then of spin down, then the on-site term (its terms commute); every bond's XX + YY pair commutes, so each factor is
an exact product of Pauli rotations.  IQPE reads m bits from the last: iteration k applies controlled-U^(2^(m-k))
to the ancilla in |+>, the feedback phase omega_k = 2 pi 0.0x_(m-k+2)...x_m, and H; the bit is the likelier
outcome (a majority vote over infinitely many shots), P(0) = (1 + Re(exp(-i omega_k) <psi|U^(2^(m-k))|psi>)) / 2,
exact for a noiseless ancilla whatever the state's spread over eigenstates.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library import PauliEvolutionGate
from qiskit.quantum_info import SparsePauliOp, Statevector
from qiskit.synthesis import LieTrotter

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep
from physvec.verifiers.library.qiskit_hubbard_vqe import initialstate_slater_circuits


def lattice_hubbard_ring(L: int) -> dict[str, Any]:
    """Sites 0..L-1 around the ring and its bonds in index order, the closing bond (L - 1, 0) last."""
    if L < 3:
        raise ValueError(f"a ring has at least three sites, got L = {L}")
    return {"sites": list(range(L)), "bonds": [[site, (site + 1) % L] for site in range(L)]}


def lattice_ring_orbitals(lattice: dict[str, Any], gamma: float) -> list[list[list[float]]]:
    """The U = 0 orbitals of spin up and of spin down (columns, energy ascending): real standing waves
    cos(2 pi k j / L) and sin(2 pi k j / L) of energy -2 gamma cos(2 pi k / L), normalised; at equal energy the
    smaller k, then for spin up the cosine and for spin down the sine, so that a half-filled degenerate pair puts
    the two spins in different waves (the lower interaction energy, and the one with weight on the ground state)."""
    L = len(lattice["sites"])
    sites = np.arange(L)
    per_spin = []
    for sine_first in (False, True):
        waves = []
        for k in range(L // 2 + 1):
            energy = -2 * gamma * math.cos(2 * math.pi * k / L)
            forms = [np.cos(2 * np.pi * k * sites / L)] + ([np.sin(2 * np.pi * k * sites / L)] if 0 < 2 * k < L else [])
            waves += [(energy, k, kind != sine_first, form / np.linalg.norm(form)) for kind, form in enumerate(forms)]
        waves.sort(key=lambda wave: wave[:3])
        per_spin.append(np.column_stack([wave[3] for wave in waves]).tolist())
    return per_spin


def hamiltonian_hubbard_ring_terms(lattice: dict[str, Any], gamma: float) -> dict[str, Any]:
    """The Hamiltonian's Trotter factors at U = 1: "hopping", one operator per bond and spin in step order (spin up
    bonds, then spin down), -gamma (X Z..Z X + Y Z..Z Y) / 2; and "onsite", sum_i n_i,up n_i,down."""
    L = len(lattice["sites"])
    hopping = []
    for shift in (0, L):
        for a, b in (sorted(bond) for bond in lattice["bonds"]):
            string = list(range(a + shift + 1, b + shift))
            hopping.append(SparsePauliOp.from_sparse_list(
                [(pauli + "Z" * len(string) + pauli, [a + shift, *string, b + shift], -gamma / 2) for pauli in "XY"],
                num_qubits=2 * L))
    onsite = [("", [], L / 4)] + [term for site in range(L) for term in
                                 (("ZZ", [site, site + L], 0.25), ("Z", [site], -0.25), ("Z", [site + L], -0.25))]
    return {"hopping": hopping, "onsite": SparsePauliOp.from_sparse_list(onsite, num_qubits=2 * L).simplify()}


def effector_iqpe_phases(terms: dict[str, Any], initial_states: list[QuantumCircuit], U: float | list[float],
                         bits: int | list[int], trotter_steps: int | list[int],
                         margin: float) -> list[list[dict[str, Any]]]:
    """Per occupation, per point of the scan (U, bits or trotter_steps, whichever is a list of several values; a
    number is one point), the IQPE result: the bits (x_1 first), the phase 0.x_1...x_m, the evolution time t and
    the offset c."""
    U, bits, trotter_steps = ([value] if isinstance(value, (int, float)) else list(value)
                              for value in (U, bits, trotter_steps))
    scanned = [name for name, values in (("U", U), ("bits", bits), ("trotter_steps", trotter_steps)) if len(values) > 1]
    if len(scanned) > 1:
        raise ValueError(f"scan one of U, bits, trotter_steps at a time, got several values for {scanned}")
    if min(U) < 0 or min(bits) < 1 or min(trotter_steps) < 1 or margin <= 0:
        raise ValueError("the bound E_0 >= E_free needs U >= 0; bits, trotter_steps and margin must be positive")
    count = max(len(U), len(bits), len(trotter_steps))
    points = [(U[i % len(U)], bits[i % len(bits)], trotter_steps[i % len(trotter_steps)]) for i in range(count)]
    hopping = SparsePauliOp.sum(terms["hopping"])
    results = []
    for initial in initial_states:
        state = Statevector(initial)
        free = float(state.expectation_value(hopping).real)
        results.append([])
        for interaction, m, steps in points:
            slater = free + interaction * float(state.expectation_value(terms["onsite"]).real)
            offset, time = slater + margin, 2 * math.pi / (slater - free + 2 * margin)
            step = QuantumCircuit(initial.num_qubits, global_phase=offset * time / steps)
            for factor in [*terms["hopping"], interaction * terms["onsite"]]:
                step.compose(LieTrotter(reps=1).synthesize(PauliEvolutionGate(factor, time=time / steps)), inplace=True)
            overlaps, evolved = {}, state
            for power in range(1, 2 ** (m - 1) + 1):
                for _ in range(steps):
                    evolved = evolved.evolve(step)
                if power & (power - 1) == 0:
                    overlaps[power] = complex(state.inner(evolved))
            found: list[int] = []  # x_m, x_(m-1), ... as read
            for k in range(1, m + 1):
                feedback = 2 * math.pi * sum(bit / 2 ** (j + 2) for j, bit in enumerate(reversed(found)))
                found.append(0 if (np.exp(-1j * feedback) * overlaps[2 ** (m - k)]).real >= 0 else 1)
            read = found[::-1]
            results[-1].append({"bits": read, "phase": sum(bit / 2 ** (j + 1) for j, bit in enumerate(read)),
                                "time": time, "offset": offset})
    return results


def observable_iqpe_energies(phases: list[list[dict[str, Any]]]) -> list[list[float]]:
    """E = c - 2 pi phi / t per occupation and scan point."""
    return [[point["offset"] - 2 * math.pi * point["phase"] / point["time"] for point in row] for row in phases]


def observable_evolution_times(phases: list[list[dict[str, Any]]]) -> list[list[float]]:
    """The evolution time t of each occupation and scan point (chosen from the bounds, not from the answer)."""
    return [[point["time"] for point in row] for row in phases]


HUBBARD_RING_IQPE = BackgroundPipeline(
    backend="qiskit", name="hubbard_ring_iqpe",
    model="fermi_hubbard", lattice="ring", method="iqpe",
    params={"L": 4, "gamma": 1.0, "U": 2.0, "occupations": [1, 2, 3], "bits": 4, "trotter_steps": 4,
            "margin": 1.0},
    steps=(
        BackgroundStep("lattice", lattice_hubbard_ring, "lattice"),
        BackgroundStep("lattice", lattice_ring_orbitals, "orbitals"),
        BackgroundStep("hamiltonian", hamiltonian_hubbard_ring_terms, "terms"),
        BackgroundStep("initialstate", initialstate_slater_circuits, "initial_states"),
        BackgroundStep("effector", effector_iqpe_phases, "phases"),
        BackgroundStep("observable", observable_iqpe_energies, "energies"),
        BackgroundStep("observable", observable_evolution_times, "evolution_times"),
    ),
)
