"""Differential unit tests: a script's element function against the library's of the same role, same inputs.

The attacks are the cheapest wrong functions that pass today's unit tests (they run, return the annotated
type, finite and Hermitian); the honest controls are right functions written otherwise than the library's.
All sandboxed cases run in one parallel batch (the ``judged`` fixture).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from physvec.taskfiles.task import ProposerSpec
from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.isolation import ALLOW_REDUCED_VARIABLE, probe
from physvec.verifiers.library import pipeline_named
from physvec.verifiers.library.composer import compose_script
from physvec.verifiers.programming import verify_script
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.programming.differential import (
    COMPARED_ROLES, DIFFERENTIAL_TOLERANCE, differential_obligation, generic_couplings, plan_differential,
)
from physvec.verifiers.programming.differential_forms import compare, operator_form, spectrum, state_form
from physvec.verifiers.programming.unit_tests import UnitTest, unit_obligation, unit_test_program
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool


def spec_of(backend: str, name: str, **parameters: object) -> ProposerSpec:
    """The spec of a library pipeline at its own parameters (updated by ``parameters``), relying on every result,
    so that its composed script holds every step."""
    pipeline = pipeline_named(backend, name)
    results = [step.output for step in pipeline.steps if step.role in ("effector", "observable")]
    return ProposerSpec(model=pipeline.model, lattice=pipeline.lattice, method=pipeline.method,
                        parameters={**pipeline.params, **parameters}, observables=results)


def edited(script: str, edits: tuple[tuple[str, str], ...]) -> str:
    for old, new in edits:
        assert old in script, old
        script = script.replace(old, new)
    return script


@dataclass(frozen=True)
class Case:
    id: str
    backend: str
    pipeline: str
    function: str
    edits: tuple[tuple[str, str], ...]
    outcome: Outcome
    says: str
    parameters: tuple[tuple[str, float], ...] = ()

    def spec(self) -> ProposerSpec:
        return spec_of(self.backend, self.pipeline, **dict(self.parameters))


HEISENBERG_TERMS = '"Jx": J, "Jy": J, "Jz": J'
NEEL = '["up", "down"] * (L // 2)'
SZ = '[float(value) for value in psi.expectation_value("Sz")]'
TFI = 'return TFIChain({"L": L, "J": J, "g": g, "bc_MPS": "finite", "conserve": None})'
TFIM_TERMS = 'terms = [("ZZ", [i, i + 1], -J) for i in range(L - 1)] + [("X", [i], -h) for i in range(L)]'
TFIM_BY_LABELS = '''labels = [("I" * (L - i - 2) + "ZZ" + "I" * i, -J) for i in range(L - 1)]
    labels += [("I" * (L - i - 1) + "X" + "I" * i, -h) for i in range(L)]
    return SparsePauliOp.from_list(labels[::-1])
    terms = []'''
TFIM_DENSE = '''def hamiltonian_tfim(L: int, J: float, h: float) -> np.ndarray:
    x, z, one = np.array([[0, 1], [1, 0]]), np.diag([1, -1]), np.eye(2)
    def on(ops: dict) -> np.ndarray:
        matrix = np.eye(1)
        for site in range(L):
            matrix = np.kron(matrix, ops.get(site, one))
        return matrix
    return (-J * sum(on({i: z, i + 1: z}) for i in range(L - 1)) - h * sum(on({i: x}) for i in range(L))
            ).astype(complex)


def _unused(L: int, J: float, h: float) -> SparsePauliOp:'''
MARSHALL_FREE = '''def hamiltonian_heisenberg(graph: nk.graph.Graph, J: float, total_sz: int
                           ) -> nk.operator.LocalOperator:
    hilbert = nk.hilbert.Spin(s=0.5, N=graph.n_nodes, total_sz=total_sz)
    x, y, z = nk.operator.spin.sigmax, nk.operator.spin.sigmay, nk.operator.spin.sigmaz
    return sum(J * (x(hilbert, i) * x(hilbert, j) + y(hilbert, i) * y(hilbert, j) + z(hilbert, i) * z(hilbert, j))
               for i, j in graph.edges())


def _unused(graph: nk.graph.Graph, J: float, total_sz: int) -> nk.operator.Heisenberg:'''

ATTACKS = [
    Case("heisenberg_wrong_sign_of_J", "tenpy", "heisenberg_chain", "hamiltonian_heisenberg_chain",
         ((HEISENBERG_TERMS, '"Jx": -J, "Jy": -J, "Jz": -J'),), Outcome.FAILED, "a different spectrum"),
    Case("neel_off_by_a_site", "tenpy", "heisenberg_chain", "initialstate_neel",
         ((NEEL, '["down", "up"] * (L // 2)'),), Outcome.FAILED, "overlap 0"),
    Case("sz_as_pauli_z", "tenpy", "heisenberg_chain", "observable_sz_profile",
         ((SZ, '[2 * float(value) for value in psi.expectation_value("Sz")]'),), Outcome.FAILED,
         "on the state before effector_dmrg"),
    Case("tfi_missing_field", "tenpy", "tfi_chain", "hamiltonian_tfi_chain",
         (('"g": g', '"g": 0.0'),), Outcome.FAILED, "a different spectrum"),
    Case("tfi_bulk_sites_only", "tenpy", "tfi_chain", "observable_sigmaz_profile",
         (('psi.expectation_value("Sigmaz")]', 'psi.expectation_value("Sigmaz")[1:-1]]'),), Outcome.FAILED,
         "shape (6,)"),
    Case("trap_wrong_prefactor_at_A_zero", "tenpy", "trapped_hubbard_ladder", "lattice_harmonic_trap",
         (("4 * A / L**2", "2 * A / L**2"),), Outcome.FAILED, "differs from the library's", (("A", 0.0),)),
    Case("ladder_trap_dropped_at_A_zero", "tenpy", "trapped_hubbard_ladder", "hamiltonian_trapped_hubbard_ladder",
         (('"mu": -np.asarray(trap, dtype=float),\n', '"mu": 0.0,\n'),), Outcome.FAILED, "a different spectrum",
         (("A", 0.0),)),
    Case("tfim_wrong_sign_of_J_same_spectrum", "qiskit", "tfim_trotter", "hamiltonian_tfim",
         (('("ZZ", [i, i + 1], -J)', '("ZZ", [i, i + 1], J)'),), Outcome.FAILED, "another operator in the same basis"),
    Case("tfim_J_and_h_swapped_at_J_equal_h", "qiskit", "tfim_trotter", "hamiltonian_tfim",
         ((TFIM_TERMS, TFIM_TERMS.replace("-J)", "-@").replace("-h)", "-J)").replace("-@", "-h)")),), Outcome.FAILED,
         "differ"),
    Case("tfim_field_typed_at_the_task_point", "qiskit", "tfim_trotter", "hamiltonian_tfim",
         (('("X", [i], -h)', '("X", [i], -1.0)'),), Outcome.FAILED, "differ"),
    Case("magnetization_of_the_edge_qubit", "qiskit", "tfim_trotter", "observable_magnetization",
         (('[("Z", [i], 1 / L) for i in range(L)]', '[("Z", [0], 1.0)]'),), Outcome.FAILED, "differs"),
    Case("domain_wall_off_by_a_site", "qiskit", "xx_domain_wall_trotter", "initialstate_domain_wall",
         (("for qubit in range(L // 2):", "for qubit in range(L // 2 + 1):"),), Outcome.FAILED, "another state"),
    Case("geometry_read_in_bohr", "pyscf", "molecule_rhf", "item_molecule",
         (("charge=charge, verbose=0)", 'charge=charge, verbose=0, unit="Bohr")'),), Outcome.FAILED, "differs"),
    Case("energy_without_nuclear_repulsion", "pyscf", "molecule_rhf", "observable_total_energy",
         (("float(calculation.e_tot)", "float(calculation.e_tot - calculation.energy_nuc())"),), Outcome.FAILED,
         "differs"),
    Case("ising_missing_field", "netket", "ising_rbm", "hamiltonian_ising",
         (("graph=graph, h=h, J=J)", "graph=graph, h=0.0, J=J)"),), Outcome.FAILED, "a different spectrum"),
]
HONEST = [
    Case("library_hamiltonian", "tenpy", "heisenberg_chain", "hamiltonian_heisenberg_chain", (), Outcome.CERTIFIED,
         "equal"),
    Case("neel_by_other_labels", "tenpy", "heisenberg_chain", "initialstate_neel",
         ((NEEL, '["0.5", "-0.5"] * (L // 2)'),), Outcome.CERTIFIED, "equal"),
    Case("sz_term_by_term", "tenpy", "heisenberg_chain", "observable_sz_profile",
         ((SZ, '[float(psi.expectation_value_term([("Sz", i)])) for i in range(psi.L)]'),), Outcome.CERTIFIED,
         "on the state before effector_dmrg"),
    Case("tfi_as_a_spin_chain", "tenpy", "tfi_chain", "hamiltonian_tfi_chain",
         ((TFI, 'return SpinChain({"L": L, "S": 0.5, "Jx": -4 * J, "Jy": 0.0, "Jz": 0.0, "hz": 2 * g, '
                '"bc_MPS": "finite", "conserve": None})'),), Outcome.CERTIFIED, "equal"),
    Case("tfim_by_pauli_labels", "qiskit", "tfim_trotter", "hamiltonian_tfim",
         ((TFIM_TERMS, TFIM_BY_LABELS),), Outcome.CERTIFIED, "equal"),
    Case("tfim_as_a_dense_matrix", "qiskit", "tfim_trotter", "hamiltonian_tfim",
         (("import json\n", "import json\nimport numpy as np\n"),
          ("def hamiltonian_tfim(L: int, J: float, h: float) -> SparsePauliOp:", TFIM_DENSE)),
         Outcome.CERTIFIED, "compared by spectrum only"),
    Case("energy_recomputed_from_the_density", "pyscf", "molecule_rhf", "observable_total_energy",
         (("float(calculation.e_tot)", "float(calculation.energy_tot())"),), Outcome.CERTIFIED, "equal"),
    Case("heisenberg_without_the_marshall_sign", "netket", "heisenberg_rbm", "hamiltonian_heisenberg",
         (("def hamiltonian_heisenberg(graph: nk.graph.Graph, J: float, total_sz: int) -> nk.operator.Heisenberg:",
           MARSHALL_FREE),), Outcome.CERTIFIED, "compared by spectrum only"),
    Case("xxz_with_a_parameter_the_library_lacks", "tenpy", "heisenberg_chain", "hamiltonian_heisenberg_chain",
         (("(L: int, J: float) -> SpinChain", "(L: int, J: float, Delta: float) -> SpinChain"),
          ('"Jz": J', '"Jz": Delta * J'), ("PARAMS = {", "PARAMS = {'Delta': 1.0, ")),
         Outcome.NOT_APPLICABLE, "line up with the library's hamiltonian_heisenberg_chain: Delta"),
    Case("raises_on_the_library_inputs", "pyscf", "molecule_rhf", "observable_orbital_energies",
         (("calculation.mo_energy]", "calculation.mo_energies]"),), Outcome.NOT_APPLICABLE, "raised"),
]


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Obligation, Obligation]]:
    """(differential, unit) obligation of every case, from one parallel batch of unit-test programs."""
    root = tmp_path_factory.mktemp("differential")
    tests = []
    for case in ATTACKS + HONEST:
        spec = case.spec()
        contract = analyse_script(edited(compose_script(spec, case.backend).script, case.edits))
        function = contract.elements[case.function]
        plan = plan_differential(function, contract, spec, case.backend)
        assert isinstance(plan, dict), (case.id, plan)
        program = unit_test_program(contract, function, case.backend, differential=plan)
        tests.append((case, UnitTest(function, program, root / case.id, differential=plan)))
    with pytest.MonkeyPatch.context() as patch:
        if not probe().full:
            patch.setenv(ALLOW_REDUCED_VARIABLE, "1")
        results = SandboxPool().run_all([test.job(SandboxLimits(wall_s=240)) for _, test in tests])
    return {case.id: (differential_obligation(test.function, test.differential, test.workdir, result),
                      unit_obligation(test, result)) for (case, test), result in zip(tests, results)}


@pytest.mark.parametrize("case", ATTACKS, ids=lambda case: case.id)
def test_a_wrong_function_that_passes_its_unit_test_fails_the_differential_test(judged, case):
    differential, unit = judged[case.id]
    assert unit.outcome is Outcome.CERTIFIED, f"today's unit test should pass it: {unit.message}"
    assert differential.outcome is case.outcome, differential.message
    assert case.says in differential.message, differential.message


@pytest.mark.parametrize("case", HONEST, ids=lambda case: case.id)
def test_an_honest_function_written_otherwise_never_fails(judged, case):
    differential, _ = judged[case.id]
    assert differential.outcome is case.outcome, differential.message
    assert case.says in differential.message, differential.message


def test_a_mismatch_shows_where_and_by_how_much(judged):
    differential, _ = judged["tfim_wrong_sign_of_J_same_spectrum"]
    assert "16 of 256 matrix entries differ, the largest by 6.85" in differential.message
    assert "first at matrix entry [0, 0]: script 3.424264069, library -3.424264069" in differential.message
    facts = differential.evidence["facts"]["comparisons"][0]
    first = facts["entries"]["first"]
    assert facts["spectrum"]["differing"] == 0 and first["library"] == -first["script"]
    assert differential.evidence["library"] == "tfim_trotter.hamiltonian_tfim"


def test_the_attacker_script_fails_the_programming_certificate_only_with_the_spec(tmp_path):
    """End to end: a TFIM with +J ZZ passes every programming check today; with the task's spec, its
    differential test fails the certificate, right after its (certified) unit test."""
    spec = spec_of("qiskit", "tfim_trotter").model_copy(update={"observables": ["energy", "magnetization"]})
    script = tmp_path / "script.py"
    script.write_text(edited(compose_script(spec, "qiskit").script, ATTACKS[7].edits))
    pool, limits = SandboxPool(), SandboxLimits(wall_s=120)
    without = verify_script(script, "qiskit", tmp_path / "without", pool, limits)
    assert without.verdict.value == "certified" and not [o for o in without.obligations if o.category == "differential"]
    certificate = verify_script(script, "qiskit", tmp_path / "with", pool, limits, spec=spec)
    names = [o.name for o in certificate.obligations]
    assert names[names.index("unit:hamiltonian_tfim") + 1] == "differential:hamiltonian_tfim"
    assert [o.name for o in certificate.failed()] == ["differential:hamiltonian_tfim"]
    assert certificate.verdict.value == "failed"


# --- planning, without a sandbox ----------------------------------------------------------------------------

def _function(source: str, name: str):
    contract = analyse_script(source)
    return contract.elements[name], contract


def test_no_spec_no_differential_and_effectors_are_never_compared():
    spec = spec_of("tenpy", "heisenberg_chain")
    function, contract = _function(compose_script(spec, "tenpy").script, "hamiltonian_heisenberg_chain")
    assert plan_differential(function, contract, None, "tenpy") is None
    effector, contract = _function(compose_script(spec, "tenpy").script, "effector_dmrg")
    assert plan_differential(effector, contract, spec, "tenpy") is None


def test_an_observable_the_library_lacks_is_not_applicable_never_compared_with_another():
    spec = spec_of("tenpy", "tfi_chain")
    source = compose_script(spec, "tenpy").script.replace("def observable_sigmaz_profile(", "def observable_entropy(")
    function, contract = _function(source, "observable_entropy")
    plan = plan_differential(function, contract, spec, "tenpy")
    assert plan.outcome is Outcome.NOT_APPLICABLE and "observable_sigmaz_profile" in plan.message


def test_a_hamiltonian_matches_by_role_alone_only_when_it_is_the_only_one():
    spec = spec_of("tenpy", "tfi_chain")
    source = compose_script(spec, "tenpy").script.replace("def hamiltonian_tfi_chain(", "def hamiltonian_ising(")
    function, contract = _function(source, "hamiltonian_ising")
    assert plan_differential(function, contract, spec, "tenpy")["trusted"] == "hamiltonian_tfi_chain"
    source += "\n\ndef hamiltonian_bond(J: float) -> float:\n    return J\n"
    function, contract = _function(source, "hamiltonian_ising")
    assert plan_differential(function, contract, spec, "tenpy").outcome is Outcome.NOT_APPLICABLE


def test_monte_carlo_observables_and_uncovered_specs_are_not_applicable():
    spec = spec_of("netket", "ising_rbm")
    function, contract = _function(compose_script(spec, "netket").script, "observable_energy")
    assert "Monte Carlo" in plan_differential(function, contract, spec, "netket").message
    uncovered = spec.model_copy(update={"model": "kitaev"})
    assert "does not cover" in plan_differential(function, contract, uncovered, "netket").message


def test_couplings_are_the_tasks_made_generic():
    couplings = generic_couplings(spec_of("qiskit", "tfim_trotter"), pipeline_named("qiskit", "tfim_trotter"))
    assert set(couplings) == {"J", "h"} and len(set(couplings.values())) == 2 and 1.0 not in couplings.values()
    trap = generic_couplings(spec_of("tenpy", "trapped_hubbard_ladder", A=0.0),
                             pipeline_named("tenpy", "trapped_hubbard_ladder"))
    assert trap["A"] > 0.1 and "L" not in trap and "chi_max" not in trap


def test_one_tolerance_per_compared_role():
    assert set(DIFFERENTIAL_TOLERANCE) == set(COMPARED_ROLES)


# --- canonical forms, without a sandbox ---------------------------------------------------------------------

def test_the_contracted_mpo_is_the_heisenberg_hamiltonian():
    from physvec.verifiers.library.tenpy_background import hamiltonian_heisenberg_chain

    form = operator_form(hamiltonian_heisenberg_chain(6, 1.0))
    assert form.array.shape == (64, 64)
    assert math.isclose(spectrum(form.array)[0], -2.4935771338879, abs_tol=1e-10)


def test_states_compare_up_to_a_global_phase_and_only_in_one_basis():
    from physvec.verifiers.library.tenpy_background import hamiltonian_heisenberg_chain, initialstate_neel

    form = state_form(initialstate_neel(hamiltonian_heisenberg_chain(4, 1.0)))
    phased = form.__class__(**{**form.__dict__, "array": form.array * np.exp(0.7j)})
    facts = compare(phased, form, 0.0, 1e-9)
    assert facts["entries"]["differing"] == 0 and math.isclose(facts["overlap"], 1.0)
    other = form.__class__(**{**form.__dict__, "basis": "elsewhere"})
    assert "entries" not in compare(other, form, 0.0, 1e-9)


def test_the_differential_report_is_missing_when_the_program_died(tmp_path):
    spec = spec_of("qiskit", "tfim_trotter")
    function, contract = _function(compose_script(spec, "qiskit").script, "hamiltonian_tfim")
    plan = plan_differential(function, contract, spec, "qiskit")
    from physvec.verifiers.sandbox import SandboxResult

    died = SandboxResult(argv=(), returncode=-9, stdout="", stderr="", wall_s=1.0, timed_out=True, threads=1)
    obligation = differential_obligation(function, plan, Path(tmp_path), died)
    assert obligation.outcome is Outcome.UNKNOWN and "did not finish" in obligation.message


def test_a_failed_differential_test_blames_its_function_for_repair(judged):
    from physvec.verifiers.certificate import Certificate
    from physvec.verifiers.programming.repair import repair_items

    differential, unit = judged["neel_off_by_a_site"]
    certificate = Certificate(verifier="programming", subject_digest="sha256:0", obligations=(unit, differential))
    (item,) = repair_items(certificate)
    assert item.function == "initialstate_neel" and "another state" in item.problems[0]
    assert item.evidence[0]["library"] == "heisenberg_chain.initialstate_neel"
