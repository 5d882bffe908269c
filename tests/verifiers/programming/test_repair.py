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


def test_a_missing_run_function_or_main_or_params_and_module_level_faults_are_structural():
    from physvec.verifiers.programming.repair import structural_problems

    for obligation in (failed("contract:params", "contract"), failed("contract:run", "contract"),
                       failed("contract:main", "contract"), failed("contract:duplicate:run_chain", "contract"),
                       failed("contract:syntax", "contract", line=3, function=None),
                       failed("contract:surroundings:module", "contract", function="main"),
                       failed("script_executes", "execution", phase="import")):
        (problem,) = structural_problems(certificate(obligation))
        assert problem.startswith(obligation.name), obligation.name


def test_faults_inside_functions_are_not_structural():
    from physvec.verifiers.programming.repair import structural_problems

    assert structural_problems(certificate(
        failed("contract:syntax", "contract", line=12, function="observable_norm"),
        failed("contract:params_keys", "contract", missing=["seed"]),
        failed("unit:effector_square", "unit", error="TypeError"),
        failed("script_executes", "execution", phase="main"))) == []


BAD_IMPORT = SIX_CALLS.replace("import numpy as np\n", "import numpy as np\nimport tenpy.solvers_that_do_not_exist\n")


def test_a_module_level_import_error_is_structural_and_its_message_is_quoted(tmp_path):
    from physvec.verifiers.programming import verify_script
    from physvec.verifiers.programming.repair import failures, structural_problems
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool

    script = tmp_path / "script.py"
    script.write_text(BAD_IMPORT)
    verified = verify_script(script, "numpy", tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=60))
    (problem,) = structural_problems(verified)
    assert problem.startswith("script_executes: the script fails while it is imported")
    assert "No module named 'tenpy.solvers_that_do_not_exist'" in problem
    executes = next(f for f in failures(verified) if f.name == "script_executes")
    assert executes.evidence["phase"] == "import" and "ModuleNotFoundError" in executes.evidence["stderr_tail"]


def test_an_undefined_function_that_main_calls_is_blamed_and_its_new_definition_is_added():
    without_run = SIX_CALLS.replace(SIX_CALLS[SIX_CALLS.index("def run_chain"):SIX_CALLS.index("def main")], "")
    (item,) = repair_items(certificate(failed("script_executes", "execution", phase="main",
                                              error="NameError: name 'run_chain' is not defined")))
    assert item.function == "run_chain"
    run_chain = SIX_CALLS[SIX_CALLS.index("def run_chain"):SIX_CALLS.index("def main")].rstrip()
    edit = apply_edits(without_run, run_chain, {"run_chain"})
    assert edit.applied == ("run_chain",) and edit.added == ("run_chain",)
    assert edit.source.index("def run_chain") < edit.source.index("def main")
    assert edit.source.replace("\n", "") == SIX_CALLS.replace("\n", "")


NEW_ELEMENT = "def observable_double(psi: np.ndarray) -> float:\n    return 2 * float(psi @ psi)"
NEW_HELPER = "def _double(x: float) -> float:\n    return 2 * x"


def test_a_function_edit_may_add_element_functions_but_no_helper_nobody_named():
    reply = f"{NEW_SQUARE}\n\n\n{NEW_ELEMENT}\n\n\n{NEW_HELPER}\n"
    edit = apply_edits(SIX_CALLS, reply, {"effector_square"})
    assert edit.applied == ("effector_square", "observable_double") and edit.added == ("observable_double",)
    assert edit.rejected == ("_double",) and "def _double" not in edit.source
    assert edit.source.index("def observable_double") < edit.source.index("def main")


def test_a_params_that_only_adds_keys_is_taken_with_a_function_edit_and_one_that_changes_a_value_is_not():
    adds = 'PARAMS = {"n": 4, "scale": 2.0, "shift": 0.5}\n'
    edit = apply_edits(SIX_CALLS, f"{NEW_SQUARE}\n\n\n{adds}", {"effector_square"})
    assert edit.applied == ("effector_square", "PARAMS") and adds in edit.source
    changes = 'PARAMS = {"n": 5, "scale": 2.0, "shift": 0.5}\n'
    assert apply_edits(SIX_CALLS, f"{NEW_SQUARE}\n\n\n{changes}", {"effector_square"}).rejected == ("PARAMS",)


def test_a_failure_that_blames_no_function_is_quoted_beside_the_blamed_ones():
    from physvec.verifiers.programming.repair import unblamed_failures

    verified = certificate(failed("unit:effector_square", "unit", error="TypeError"),
                           failed("script_executes", "execution", phase="main", stderr_tail="TypeError: in H @ H"))
    (loose,) = unblamed_failures(verified)
    assert loose.name == "script_executes" and loose.evidence["stderr_tail"] == "TypeError: in H @ H"
    assert unblamed_failures(certificate(failed("script_executes", "execution"))) == [], "main carries it"


def test_a_repairer_never_reads_a_sealed_value():
    from physvec.verifiers.programming.repair import failures, unblamed_failures

    sealed = Obligation(name="differential:observable_norm", category="differential", outcome=Outcome.FAILED,
                        message="differs", evidence={"error": "largest difference 0.5"},
                        sealed={"expected": 1.2345678})
    loose = Obligation(name="results_written", category="execution", outcome=Outcome.FAILED, sealed={"x": 1.2345678})
    verified = certificate(sealed, loose)
    seen = repr((repair_items(verified), failures(verified), unblamed_failures(verified)))
    assert "largest difference" in seen and "1.2345678" not in seen


def test_a_rewrite_takes_the_whole_reply_and_a_rewrite_to_the_same_script_is_no_edit():
    from physvec.verifiers.programming.repair import WHOLE_SCRIPT, rewrite

    assert rewrite(BAD_IMPORT, SIX_CALLS) == rewrite(BAD_IMPORT, SIX_CALLS.rstrip())
    assert rewrite(BAD_IMPORT, SIX_CALLS).source == SIX_CALLS and rewrite(BAD_IMPORT, SIX_CALLS).applied == (WHOLE_SCRIPT,)
    assert rewrite(SIX_CALLS, SIX_CALLS + "\n").applied == ()
