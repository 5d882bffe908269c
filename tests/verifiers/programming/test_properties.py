"""Property checks on element functions' return values."""

from __future__ import annotations

import netket as nk
from qiskit.quantum_info import SparsePauliOp

from physvec.verifiers.programming.properties import hermiticity_problem


def test_a_qiskit_hamiltonian_with_an_imaginary_field_is_not_hermitian():
    real = SparsePauliOp.from_sparse_list([("ZZ", [0, 1], -1.0), ("X", [0], -1.0)], num_qubits=3)
    imaginary = SparsePauliOp.from_sparse_list([("ZZ", [0, 1], -1.0), ("X", [0], -1j)], num_qubits=3)
    assert hermiticity_problem(real) is None
    assert "not Hermitian" in hermiticity_problem(imaginary)


def test_netket_operators_answer_for_themselves_and_other_values_are_not_judged():
    graph = nk.graph.Chain(4, pbc=True)
    assert hermiticity_problem(nk.operator.Heisenberg(nk.hilbert.Spin(0.5, N=4), graph)) is None
    assert hermiticity_problem([1.0, 2.0]) is None
