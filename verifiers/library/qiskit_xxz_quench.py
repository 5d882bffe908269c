"""Qiskit background for quenches of the open XXZ chain with on-site fields, as in Smith, Kim, Pollmann and
Knolle, npj Quantum Inf. 5, 106 (2019), Figs. 2-5: disorder, interaction and a linear potential, from a domain
wall or a Neel state, by first-order or symmetric Trotter circuits on the paper's time grid; local
magnetisations, the half-chain occupation, connected correlators and the quantum Fisher information.

H = -J sum_j (X_j X_{j+1} + Y_j Y_{j+1}) + U sum_j Z_j Z_{j+1} + sum_j h_j Z_j on an open chain of qubits (Pauli
operators, no factor 1/2).  Qubit q is site j = q + 1 counted from 1; |0> is spin up, <Z> = +1.

A figure draws several curves, so U, disorder and slope are lists with one entry per curve: curve c has
interaction U[c] and fields h_j = slope[c] * j + disorder[c] * w_j, w_j uniform in [-1, 1] per disorder
realisation; observables average over a curve's realisations.  Times follow the paper's grid: a time t is M
full steps of dt (M = floor(t / dt)) after one shorter step t - M dt, U(dt)^M U(t - M dt), so the points between
whole steps carry the Trotter error of the step size dt, as the published curves do.
"""

from __future__ import annotations

import math

import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library import PauliEvolutionGate
from qiskit.quantum_info import SparsePauliOp, Statevector
from qiskit.synthesis import LieTrotter

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep


def lattice_xxz_fields(L: int, disorder: list[float], slope: list[float], realisations: int,
                       seed: int) -> list[list[list[float]]]:
    """On-site fields per curve, per realisation, per site j = 1..L: slope * j + disorder * w_j.

    The w_j are numpy's default_rng(seed) uniform draws on [-1, 1], an (realisations x L) block for each
    disordered curve in curve order; a curve without disorder has one realisation and draws nothing."""
    if len(disorder) != len(slope):
        raise ValueError(f"disorder ({len(disorder)} curves) and slope ({len(slope)}) differ in length")
    if realisations < 1:
        raise ValueError(f"realisations must be at least 1, got {realisations}")
    rng = np.random.default_rng(seed)
    fields = []
    for width, tilt in zip(disorder, slope):
        draws = rng.uniform(-1.0, 1.0, size=(realisations, L)) if width else np.zeros((1, L))
        fields.append([[float(tilt * (j + 1) + width * draw[j]) for j in range(L)] for draw in draws])
    return fields


def hamiltonian_xxz_chains(L: int, J: float, U: list[float],
                           fields: list[list[list[float]]]) -> list[list[SparsePauliOp]]:
    """H per curve and realisation: -J (XX + YY) + U[c] ZZ on every bond, h_j Z_j on every site."""
    if len(U) != len(fields):
        raise ValueError(f"U has {len(U)} curves and the fields {len(fields)}")
    chains = []
    for coupling, realisations in zip(U, fields):
        bonds = [(pauli, [q, q + 1], -J) for q in range(L - 1) for pauli in ("XX", "YY")]
        bonds += [("ZZ", [q, q + 1], coupling) for q in range(L - 1) if coupling]
        chains.append([SparsePauliOp.from_sparse_list(bonds + [("Z", [q], h[q]) for q in range(L) if h[q]],
                                                      num_qubits=L) for h in realisations])
    return chains


def initialstate_spin_pattern(L: int, initial: str) -> QuantumCircuit:
    """'domain_wall': sites 1..L/2 down and the rest up; 'neel': down, up, down, ... from site 1 (X flips |0>)."""
    patterns = {"domain_wall": range(L // 2), "neel": range(0, L, 2)}
    if initial not in patterns:
        raise ValueError(f"initial must be one of {sorted(patterns)}, got {initial!r}")
    circuit = QuantumCircuit(L)
    for qubit in patterns[initial]:
        circuit.x(qubit)
    return circuit


def circuit_trotter_steps(hamiltonians: list[list[SparsePauliOp]], dt: float, times: list[float],
                          order: int) -> list[list[dict[float, QuantumCircuit]]]:
    """Per curve and realisation, one Trotter step circuit for the full step dt and for each shorter step the
    times need, keyed by the duration rounded to 1e-12.

    Terms group by where they act: fields (one qubit), bonds (j, j + 1) with j odd, and with j even, j counted
    from 1.  Each group's terms commute (disjoint bonds; XX, YY, ZZ of one bond), so each group's exponential is
    an exact product of Pauli rotations.  order 1 (the paper's basic step): odd bonds, even bonds, fields.
    order 2 (symmetric): fields tau/2, even tau/2, odd tau, even tau/2, fields tau/2, error O(tau^3) per step.
    """
    if order not in (1, 2):
        raise ValueError(f"order must be 1 or 2, got {order}")
    if dt <= 0 or any(time < 0 for time in times):
        raise ValueError(f"dt must be positive and every time non-negative: dt = {dt}, times = {times}")
    durations = {round(dt, 12)} | {round(time - math.floor(time / dt + 1e-9) * dt, 12) for time in times}
    durations.discard(0.0)
    sequence = {1: (("odd", 1.0), ("even", 1.0), ("fields", 1.0)),
                2: (("fields", 0.5), ("even", 0.5), ("odd", 1.0), ("even", 0.5), ("fields", 0.5))}[order]
    steps = []
    for curve in hamiltonians:
        per_curve = []
        for hamiltonian in curve:
            L = hamiltonian.num_qubits
            terms = [term for term in hamiltonian.to_sparse_list() if len(term[1]) > 0]
            groups = {"fields": [t for t in terms if len(t[1]) == 1],
                      "odd": [t for t in terms if len(t[1]) == 2 and (min(t[1]) + 1) % 2 == 1],
                      "even": [t for t in terms if len(t[1]) == 2 and (min(t[1]) + 1) % 2 == 0]}
            circuits = {}
            for duration in durations:
                step = QuantumCircuit(L)
                for group, fraction in sequence:
                    if groups[group]:
                        evolution = PauliEvolutionGate(SparsePauliOp.from_sparse_list(groups[group], num_qubits=L),
                                                       time=fraction * duration)
                        step.compose(LieTrotter(reps=1).synthesize(evolution), inplace=True)
                circuits[duration] = step
            per_curve.append(circuits)
        steps.append(per_curve)
    return steps


def effector_trotter_states(initial_state: QuantumCircuit, steps: list[list[dict[float, QuantumCircuit]]],
                            times: list[float], dt: float) -> list[list[list[Statevector]]]:
    """The state at each time, per curve and realisation: the shorter step t - M dt first, then M full steps of
    dt, U(dt)^M U(t - M dt) (each chain of full steps is walked once)."""
    states = []
    for curve in steps:
        per_curve = []
        for step in curve:
            chains: dict[float, list[Statevector]] = {}
            at_times = []
            for time in times:
                full = math.floor(time / dt + 1e-9)
                rest = round(time - full * dt, 12)
                chain = chains.setdefault(rest, [Statevector(initial_state) if rest == 0.0
                                                 else Statevector(initial_state).evolve(step[rest])])
                while len(chain) <= full:
                    chain.append(chain[-1].evolve(step[round(dt, 12)]))
                at_times.append(chain[full])
            per_curve.append(at_times)
        states.append(per_curve)
    return states


def observable_site_magnetizations(states: list[list[list[Statevector]]]) -> list[list[list[float]]]:
    """<Z_j> per curve, per time, per site j = 1..L, averaged over the curve's realisations."""
    result = []
    for curve in states:
        L = curve[0][0].num_qubits
        signs = 1 - 2 * ((np.arange(2**L)[:, None] >> np.arange(L)[None, :]) & 1)  # bit q of an index is qubit q
        result.append([[float(v) for v in np.mean([run[t].probabilities() @ signs for run in curve], axis=0)]
                       for t in range(len(curve[0]))])
    return result


def observable_half_chain_occupation(states: list[list[list[Statevector]]]) -> list[list[float]]:
    """N_half = sum over sites j = 1..L/2 of <(Z_j + 1) / 2>: up spins in the left half, per curve and time."""
    result = []
    for curve in states:
        L = curve[0][0].num_qubits
        up_left = ((np.arange(2**L)[:, None] >> np.arange(L // 2)[None, :]) & 1) == 0
        counts = up_left.sum(axis=1)
        result.append([float(np.mean([run[t].probabilities() @ counts for run in curve]))
                       for t in range(len(curve[0]))])
    return result


def observable_connected_correlations(states: list[list[list[Statevector]]]) -> list[list[list[float]]]:
    """C_1j = <Z_1 Z_j> - <Z_1><Z_j> for j = 1..L per curve and time, each realisation's then averaged."""
    result = []
    for curve in states:
        L = curve[0][0].num_qubits
        signs = 1 - 2 * ((np.arange(2**L)[:, None] >> np.arange(L)[None, :]) & 1)
        per_time = []
        for t in range(len(curve[0])):
            values = []
            for run in curve:
                p = run[t].probabilities()
                z = p @ signs
                values.append(p @ (signs[:, :1] * signs) - z[0] * z)
            per_time.append([float(v) for v in np.mean(values, axis=0)])
        result.append(per_time)
    return result


def observable_fisher_density(states: list[list[list[Statevector]]]) -> list[list[float]]:
    """F_Q / L with F_Q = <S^2> - <S>^2, S = sum_j s_j Z_j, s_j = +1 on the left half and -1 on the right
    (four times the variance of S / 2: the pure state's quantum Fisher information), per curve and time."""
    result = []
    for curve in states:
        L = curve[0][0].num_qubits
        signs = 1 - 2 * ((np.arange(2**L)[:, None] >> np.arange(L)[None, :]) & 1)
        staggered = signs @ np.array([1.0 if q < L // 2 else -1.0 for q in range(L)])
        result.append([float(np.mean([run[t].probabilities() @ staggered**2 - (run[t].probabilities() @ staggered)**2
                                      for run in curve])) / L for t in range(len(curve[0]))])
    return result


XXZ_QUENCH_TROTTER = BackgroundPipeline(
    backend="qiskit", name="xxz_quench_trotter",
    model="xxz", lattice="chain", method="trotter",
    params={"L": 4, "J": 1.0, "U": [0.0, 0.5], "disorder": [0.0, 1.0], "slope": [0.0, 0.5], "realisations": 2,
            "seed": 7, "initial": "domain_wall", "dt": 0.5, "times": [0.0, 0.25, 0.5, 1.0], "order": 2},
    steps=(
        BackgroundStep("lattice", lattice_xxz_fields, "fields"),
        BackgroundStep("hamiltonian", hamiltonian_xxz_chains, "hamiltonians"),
        BackgroundStep("initialstate", initialstate_spin_pattern, "initial_state"),
        BackgroundStep("circuit", circuit_trotter_steps, "steps"),
        BackgroundStep("effector", effector_trotter_states, "states"),
        BackgroundStep("observable", observable_site_magnetizations, "magnetizations"),
        BackgroundStep("observable", observable_half_chain_occupation, "half_chain_occupation"),
        BackgroundStep("observable", observable_connected_correlations, "connected_correlations"),
        BackgroundStep("observable", observable_fisher_density, "fisher_density"),
    ),
)
