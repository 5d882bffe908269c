"""Fault-injected variants of the per-backend reference scripts (test fixtures).

Each fault is one exact text replacement in a reference script, the element function it lives in,
and whether the failure must surface in the integration run at that same function.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "fixtures" / "scripts"


@dataclass(frozen=True)
class Fault:
    kind: str
    old: str
    new: str
    function: str
    """The element function the fault must be localised to."""
    integration_fails_at: str | None
    """Where the integration run must fail (None: the unit test alone must catch it)."""

    def apply(self, script: str) -> str:
        assert self.old in script, f"{self.kind}: {self.old!r} is not in the reference script"
        return script.replace(self.old, self.new, 1)


def reference(backend: str) -> str:
    return (SCRIPTS / backend / "reference.py").read_text()


FAULTS: dict[str, list[Fault]] = {
    "tenpy": [
        Fault("misspelled library call", "dmrg.run(psi", "dmrg.rum(psi", "effector_dmrg", "effector_dmrg"),
        Fault("wrong argument type", '"L": L, "S": 0.5', '"L": L, "S": "half"', "hamiltonian_heisenberg",
              "hamiltonian_heisenberg"),
        Fault("wrong return shape", "return [float(value) for value in psi.expectation_value(\"Sz\")]",
              "return [[float(value)] for value in psi.expectation_value(\"Sz\")]", "observable_sz", None),
        Fault("exception inside an observable", 'psi.expectation_value("Sz")', 'psi.expectation_value("Sq")',
              "observable_sz", "observable_sz"),
        Fault("syntax error in one function", '["up", "down"] * (len(sites) // 2), bc="finite")',
              '["up", "down"] * (len(sites) // 2, bc="finite")', "initialstate_neel", None),
    ],
    "qiskit": [
        Fault("misspelled library call", "SparsePauliOp.from_sparse_list(terms, num_qubits=L)",
              "SparsePauliOp.from_sparse_lists(terms, num_qubits=L)", "hamiltonian_tfim", "hamiltonian_tfim"),
        Fault("wrong argument type", "PauliEvolutionGate(hamiltonian, time=time,",
              "PauliEvolutionGate(hamiltonian, time=str(time),", "circuit_trotter",
              "circuit_trotter"),
        Fault("wrong return shape", "return float(state.expectation_value(hamiltonian).real)",
              "return [float(state.expectation_value(hamiltonian).real)]", "observable_energy", None),
        Fault("exception inside an observable", '[("Z", [i], 1.0 / L) for i in range(L)]',
              '[("Z", [i + L], 1.0 / L) for i in range(L)]', "observable_magnetization", "observable_magnetization"),
        Fault("syntax error in one function", "return Statevector(circuit)", "return Statevector(circuit",
              "effector_statevector", None),
    ],
    "pyscf": [
        Fault("misspelled library call", "gto.M(atom=atom", "gto.MM(atom=atom", "item_molecule", "item_molecule"),
        Fault("wrong argument type", "calculation.xc = xc", "calculation.xc = len(xc)", "effector_rks",
              "effector_rks"),
        Fault("wrong return shape", "return float(calculation.e_tot)", "return calculation.mo_energy",
              "observable_total_energy", None),
        Fault("exception inside an observable", "virtual.min() - occupied.max()",
              "virtual.min() - occupied[5].max()", "observable_homo_lumo_gap", "observable_homo_lumo_gap"),
        Fault("syntax error in one function", "axis.hlines(levels, 0, 1)", "axis.hlines(levels, 0, 1",
              "plot_levels", None),
    ],
    "netket": [
        Fault("misspelled library call", "nk.graph.Chain(length=L", "nk.graph.Chian(length=L", "lattice_ring",
              "lattice_ring"),
        Fault("wrong argument type", "nk.hilbert.Spin(s=0.5, N=graph.n_nodes)",
              "nk.hilbert.Spin(s=0.5, N=str(graph.n_nodes))", "hamiltonian_ising", "hamiltonian_ising"),
        Fault("wrong return shape", "return float(state.expect(hamiltonian).mean.real)",
              "return state.expect(hamiltonian)", "observable_energy", None),
        Fault("exception inside an observable", "state.expect(hamiltonian).mean.real",
              "state.expect(hamiltonian.hilbert).mean.real", "observable_energy", "observable_energy"),
        Fault("syntax error in one function", "nk.sampler.MetropolisLocal(hamiltonian.hilbert)",
              "nk.sampler.MetropolisLocal(hamiltonian.hilbert", "sampler_local", None),
    ],
}


@dataclass(frozen=True)
class InterfaceMismatch:
    """Two functions that each pass their unit tests but disagree when composed."""

    replacements: tuple[tuple[str, str], ...]
    producer: str
    consumer: str

    def apply(self, script: str) -> str:
        for old, new in self.replacements:
            assert old in script, f"interface mismatch: {old!r} is not in the reference script"
            script = script.replace(old, new, 1)
        return script


MISMATCHES: dict[str, InterfaceMismatch] = {
    "tenpy": InterfaceMismatch(
        (("def initialstate_neel(model: SpinChain) -> MPS:", "def initialstate_neel(model: SpinChain) -> list[str]:"),
         ('return MPS.from_product_state(sites, ["up", "down"] * (len(sites) // 2), bc="finite")',
          'return ["up", "down"] * (len(sites) // 2)')),
        "initialstate_neel", "effector_dmrg"),
    "qiskit": InterfaceMismatch(
        (("def initialstate_all_up(L: int) -> QuantumCircuit:\n    return QuantumCircuit(L)",
          "def initialstate_all_up(L: int) -> int:\n    return L"),),
        "initialstate_all_up", "circuit_trotter"),
    "pyscf": InterfaceMismatch(
        (("def item_molecule(atom: str, basis: str) -> gto.Mole:\n    return gto.M(atom=atom, basis=basis, verbose=0)",
          "def item_molecule(atom: str, basis: str) -> str:\n    return atom"),),
        "item_molecule", "effector_rks"),
    "netket": InterfaceMismatch(
        (("def sampler_local(hamiltonian: nk.operator.Ising) -> nk.sampler.MetropolisSampler:\n"
          "    return nk.sampler.MetropolisLocal(hamiltonian.hilbert)",
          "def sampler_local(hamiltonian: nk.operator.Ising) -> nk.hilbert.Spin:\n    return hamiltonian.hilbert"),),
        "sampler_local", "effector_vmc"),
}
