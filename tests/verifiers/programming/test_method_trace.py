"""What a circuit handed to a simulator holds, as the simulator applies it: qiskit's Statevector takes a gate's
own matrix before its definition, so a PauliEvolutionGate left whole is exact evolution whatever synthesis it
names, while the gates a product formula synthesises are rotations."""

from __future__ import annotations

import numpy as np
import pytest
from qiskit import QuantumCircuit
from qiskit.circuit import Gate
from qiskit.circuit.library import PauliEvolutionGate, RZGate, UnitaryGate
from qiskit.quantum_info import SparsePauliOp, Statevector
from qiskit.synthesis import LieTrotter, MatrixExponential, SuzukiTrotter

from physvec.verifiers.programming.method_trace import call_facts, circuit_facts

L = 3
TFIM = SparsePauliOp.from_sparse_list([("ZZ", [i, i + 1], -1.0) for i in range(L - 1)]
                                      + [("X", [i], -1.0) for i in range(L)], num_qubits=L)


def whole(gate: Gate) -> QuantumCircuit:
    circuit = QuantumCircuit(gate.num_qubits)
    circuit.append(gate, range(gate.num_qubits))
    return circuit


def kinds(circuit: QuantumCircuit) -> list[str]:
    return [finding["kind"] for finding in circuit_facts(circuit)["findings"]]


@pytest.mark.parametrize("synthesis", [MatrixExponential(), LieTrotter(reps=4), SuzukiTrotter(reps=2)],
                         ids=["matrix_exponential", "lie_trotter", "suzuki_trotter"])
def test_a_whole_evolution_of_non_commuting_terms_is_exact_whatever_its_synthesis(synthesis):
    circuit = whole(PauliEvolutionGate(TFIM, time=0.5, synthesis=synthesis))
    facts = circuit_facts(circuit)
    assert facts["findings"] == [{"kind": "whole_evolution", "gate": "PauliEvolution", "qubits": L,
                                  "synthesis": type(synthesis).__name__, "count": 1}]
    exact = Statevector(QuantumCircuit(L)).evolve(PauliEvolutionGate(TFIM, time=0.5, synthesis=MatrixExponential()))
    assert Statevector(circuit).equiv(exact)  # what the finding says: the simulator ignores the synthesis


def test_the_gates_a_product_formula_synthesises_are_rotations():
    gate = PauliEvolutionGate(TFIM, time=0.5)
    for circuit in (LieTrotter(reps=3).synthesize(gate), whole(PauliEvolutionGate(TFIM, 0.5, synthesis=LieTrotter(
            reps=3))).decompose()):
        facts = circuit_facts(circuit)
        assert facts["findings"] == [] and facts["ops"] == {"rx": 9, "rzz": 6}


def test_a_whole_evolution_of_commuting_terms_is_a_product_formulas_factor():
    zz = SparsePauliOp.from_sparse_list([("ZZ", [i, i + 1], -1.0) for i in range(L - 1)], num_qubits=L)
    facts = circuit_facts(whole(PauliEvolutionGate(zz, time=0.5)))
    assert facts["findings"] == [] and facts["ops"] == {"PauliEvolution": 1}


def test_matrices_the_simulator_would_apply_are_found_inside_definitions_too():
    class ScriptGate(Gate):
        def __init__(self) -> None:
            super().__init__("evolution", 2, [])

        def __array__(self, dtype=None, copy=None):
            return np.eye(4)

    class ShiftedRZ(RZGate):
        def to_matrix(self):
            return np.eye(2)

    inner = QuantumCircuit(2)
    inner.append(UnitaryGate(np.eye(4)), [0, 1])
    circuit = QuantumCircuit(2)
    circuit.append(ScriptGate(), [0, 1])
    circuit.append(ShiftedRZ(0.1), [0])
    circuit.append(inner.to_gate(label="block"), [0, 1])
    circuit.cx(0, 1)
    assert sorted((f["class"], f["qubits"]) for f in circuit_facts(circuit)["findings"]) == [
        ("ScriptGate", 2), ("ShiftedRZ", 1), ("UnitaryGate", 2)]


def test_a_state_given_as_numbers_is_found_and_a_basis_state_is_not():
    numbers, label = QuantumCircuit(2), QuantumCircuit(2)
    numbers.initialize(np.ones(4) / 2, [0, 1])
    label.initialize("01", [0, 1])
    assert kinds(numbers) == ["prepared_state"] and kinds(label) == []


def test_a_call_records_its_synthesis_circuits_and_square_matrices():
    facts = call_facts((LieTrotter(reps=7), PauliEvolutionGate(TFIM, time=0.5)), {"A": np.eye(8), "v": np.ones(8)})
    assert facts["synthesis"] == {"class": "qiskit.synthesis.evolution.lie_trotter.LieTrotter", "reps": 7, "order": 1}
    assert facts["matrices"] == [8] and [c["qubits"] for c in facts["circuits"]] == [L]
