"""Repair lists blame the right functions; edits replace only what was asked."""

from __future__ import annotations

from physvec.verifiers.certificate import Certificate, Obligation, Outcome
from physvec.verifiers.programming.repair import apply_edits, repair_items
from tests.verifiers.programming.test_contract import SIX_CALLS


def failed(name: str, category: str, **evidence) -> Obligation:
    return Obligation(name=name, category=category, outcome=Outcome.FAILED, message=f"{name} failed",
                      evidence=evidence)


def certificate(*obligations: Obligation) -> Certificate:
    return Certificate(verifier="programming", subject_digest="d", obligations=obligations)


def test_unit_failures_blame_their_function_and_merge_evidence():
    items = repair_items(certificate(
        failed("unit:effector_square", "unit", error="TypeError", line=21),
        failed("integration:run_chain", "integration", failing_function="effector_square",
               interface=["hamiltonian_diagonal", "effector_square"], error="TypeError"),
    ))
    assert [item.function for item in items] == ["effector_square"]
    assert len(items[0].problems) == 2


def test_an_integration_failure_of_functions_that_pass_alone_blames_the_interface():
    items = repair_items(certificate(failed("integration:run_chain", "integration", failing_function="effector_square",
                                            interface=["hamiltonian_diagonal", "effector_square"])))
    assert [item.function for item in items] == ["hamiltonian_diagonal", "effector_square"]


def test_contract_breaches_blame_functions_params_or_main():
    items = repair_items(certificate(
        failed("contract:run_work:run_chain", "contract", function="run_chain"),
        failed("contract:params_keys", "contract", missing=["seed"]),
        failed("contract:main", "contract"),
    ))
    assert [item.function for item in items] == ["run_chain", "PARAMS", "main"]


def test_a_failure_outside_every_function_blames_main():
    items = repair_items(certificate(failed("script_executes", "execution", stderr_tail="ImportError")))
    assert [item.function for item in items] == ["main"]


def test_nothing_to_repair_in_a_passing_certificate():
    passing = Obligation(name="unit:x", category="unit", outcome=Outcome.CERTIFIED)
    assert repair_items(certificate(passing)) == []


NEW_SQUARE = "def effector_square(H: np.ndarray) -> np.ndarray:\n    return np.dot(H, H)"
NEW_NORM = "def observable_norm(psi: np.ndarray) -> float:\n    return 2.0"


def test_only_requested_functions_are_replaced_and_the_rest_rejected():
    reply = f"import scipy\n\n{NEW_SQUARE}\n\n\n{NEW_NORM}\n"
    edit = apply_edits(SIX_CALLS, reply, {"effector_square"})
    assert edit.applied == ("effector_square",) and edit.rejected == ("observable_norm",)
    assert "return np.dot(H, H)" in edit.source and "return 2.0" not in edit.source
    assert edit.added_imports == ("import scipy",)
    assert edit.source.index("import scipy") < edit.source.index("PARAMS")


def test_a_definition_repeated_unchanged_is_no_edit():
    unchanged = SIX_CALLS[SIX_CALLS.index("def observable_norm"):SIX_CALLS.index("def run_chain")].rstrip()
    edit = apply_edits(SIX_CALLS, f"{NEW_SQUARE}\n\n\n{unchanged}\n", {"effector_square"})
    assert edit.rejected == ()


def test_params_are_replaced_only_when_asked():
    reply = 'PARAMS = {"n": 6,\n          "scale": 2.0}\n'
    assert apply_edits(SIX_CALLS, reply, {"effector_square"}).rejected == ("PARAMS",)
    edit = apply_edits(SIX_CALLS, reply, {"PARAMS"})
    assert edit.applied == ("PARAMS",) and 'PARAMS = {"n": 6,\n          "scale": 2.0}\n' in edit.source
    assert edit.source.count("PARAMS = ") == 1


def test_a_function_broken_by_a_syntax_error_can_be_replaced():
    broken = SIX_CALLS.replace("return float(psi @ psi)", "return float(psi @ psi")
    edit = apply_edits(broken, "def observable_norm(psi: np.ndarray) -> float:\n    return float(psi @ psi)\n",
                       {"observable_norm"})
    assert edit.source == SIX_CALLS
