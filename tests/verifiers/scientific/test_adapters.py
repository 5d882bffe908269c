"""Adapter entry points: an assertion that needs more than overrides runs a model-written entry point,
and only if the adapted program uses the script's functions unchanged.

Reference: the single-particle levels of a ring of L = 8 sites are -2t cos(2 pi m / L), so the gap
between the two lowest is 2 - 2 cos(pi / 4) = 2 - sqrt(2); an open chain of 8 sites has levels
-2t cos(pi k / 9), gap 2 cos(pi / 9) - 2 cos(2 pi / 9) (not equal, so a boundary bug shows).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from physvec.agents.prompts import adapter_messages
from physvec.taskfiles.assertions import AssertionFile
from physvec.taskfiles.task import Task
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.adapters import adapter_problems
from physvec.verifiers.scientific.assertions import assertion_obligations

RING = (Path(__file__).resolve().parents[2] / "fixtures" / "scripts" / "scientific" / "hopping_ring.py").read_text()
OPEN_RING_BUG = RING.replace("range(L - 1 + int(pbc))", "range(L - 1)")
GAP = 2 - math.sqrt(2)
ENTRY = '''

def adapter(**params):
    levels = effector_levels(hamiltonian_hopping(params["L"], params["t"], params["pbc"]))
    return {"gap": float(levels[1] - levels[0])}
'''
GAP_ASSERTION = AssertionFile.model_validate({"assertions": [
    {"kind": "analytic_regime", "name": "single-particle gap", "run": "run_ring", "observable": "gap",
     "expected": GAP, "atol": 1e-10, "reference": "ring levels -2t cos(2 pi m / L): gap 2 - sqrt(2) at L = 8",
     "adapter": "the difference of the two lowest single-particle levels, under the key gap"},
]})


def adapted(script: str, entry: str = ENTRY) -> str:
    return script.rstrip() + "\n\n" + entry


def test_an_honest_adapter_uses_the_scripts_functions_unchanged():
    assert adapter_problems(RING, adapted(RING)) == []


CHEATS = {
    "an element function altered": (adapted(RING).replace("H[j, i] = -t\n", "H[j, i] = -t + 0\n"),
                                    "hamiltonian_hopping differs"),
    "an element function redefined after the script's": (
        adapted(RING) + "\n\ndef effector_levels(H):\n    return [0, 1]\n", "defined 2 times"),
    "PARAMS changed": (adapted(RING).replace('"N": 4', '"N": 2'), "PARAMS differs"),
    "a script function dropped": (adapted(RING).replace("def main() -> None:", "def _main() -> None:"),
                                  "main is missing"),
    "a new element function": (adapted(RING) + "\n\ndef observable_gap(levels):\n    return levels[1] - levels[0]\n",
                               "the only new function"),
    "the expected number typed in": (adapted(RING, ENTRY.replace("float(levels[1] - levels[0])", "0.5857864376")),
                                     "typed into adapter"),
    "a closed form from integers": (adapted(RING, ENTRY.replace("float(levels[1] - levels[0])", "2 - 2 ** (1 / 2)")),
                                    "does not come from the script's functions"),
    "no call of the script's functions": ("\n\ndef adapter(**params):\n    return {'gap': params['L'] // 3}\n",
                                          "calls none of the script's"),
    "a library function patched": (adapted(RING, "import numpy\nnumpy.linalg.eigvalsh = sorted\n" + ENTRY),
                                   "assignment into numpy"),
    "the script's function rebound at run time": (
        adapted(RING, ENTRY.replace("    levels =", "    globals()['hamiltonian_hopping'] = None\n    levels =")),
        "globals()"),
}


@pytest.mark.parametrize("cheat", list(CHEATS))
def test_an_adapted_program_that_does_not_stand_for_the_script_is_refused(cheat):
    source, problem = CHEATS[cheat]
    program = RING + source if source.startswith("\n\ndef adapter") else source
    problems = adapter_problems(RING, program)
    assert any(problem in p for p in problems), problems


def check(tmp_path: Path, script_source: str, writer) -> object:
    tmp_path.mkdir(parents=True, exist_ok=True)
    script = tmp_path / "ring.py"
    script.write_text(script_source)
    (obligation,) = assertion_obligations(script, analyse_script(script_source), GAP_ASSERTION, tmp_path / "work",
                                          SandboxPool(), SandboxLimits(wall_s=60), writer)
    return obligation


def test_an_honest_adapter_certifies_the_correct_script_and_fails_a_boundary_bug(tmp_path):
    correct = check(tmp_path / "correct", RING, lambda assertion, source: adapted(source))
    assert correct.outcome is Outcome.CERTIFIED
    assert correct.evidence["observed"] == pytest.approx(GAP) and "adapter_program" in correct.evidence
    buggy = check(tmp_path / "buggy", OPEN_RING_BUG, lambda assertion, source: adapted(source))
    assert buggy.outcome is Outcome.FAILED
    assert buggy.evidence["observed"] == pytest.approx(2 * math.cos(math.pi / 9) - 2 * math.cos(2 * math.pi / 9))


def test_an_adapter_that_repairs_the_physics_it_should_test_is_an_error_not_a_pass(tmp_path):
    obligation = check(tmp_path, OPEN_RING_BUG, lambda assertion, source: adapted(RING))
    assert obligation.outcome is Outcome.ERROR and "hamiltonian_hopping differs" in obligation.message


def test_without_a_model_or_an_adapter_the_assertion_is_unknown(tmp_path):
    assert check(tmp_path / "none", RING, None).outcome is Outcome.UNKNOWN
    assert check(tmp_path / "empty", RING, lambda assertion, source: None).outcome is Outcome.UNKNOWN


def test_the_adapter_prompt_carries_the_words_but_never_the_expected_value_or_its_reference():
    (assertion,) = GAP_ASSERTION.assertions
    task = Task.model_validate({"id": "ring", "title": "ring", "paper": {"path": "p.md"}, "target": {"figure": "gap"},
                                "request": "levels of a ring", "backend": "qiskit", "rubric": "rubric.json"})
    prompt = json.dumps([m.content for m in adapter_messages(task, assertion, RING)])
    assert "two lowest single-particle levels" in prompt and '\\"gap\\"' in prompt
    assert "0.585" not in prompt and "sqrt" not in prompt and assertion.reference not in prompt
