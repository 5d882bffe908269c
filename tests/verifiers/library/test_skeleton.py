"""The example script per backend that the Author's system message shows: working library code, small, with
real imports and API names, never reference numbers, and in every script request's system message.

A checker subprocess per backend imports the skeleton (not running main) and resolves every attribute chain
rooted at an imported name (``nk.graph.Chain``, ``SparsePauliOp.from_sparse_list``), so an invented module or
class fails here; importing NetKet takes seconds, so it is one subprocess per backend and no run.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import pytest

from physvec.agents.prompts import author_messages, repair_messages
from physvec.taskfiles.loading import load_task
from physvec.verifiers.library import BACKEND_MODULES
from physvec.verifiers.library.skeleton import BUDGET_CHARS, BUDGET_LINES, example_script
from physvec.verifiers.programming import analyse_for_backend
from tests.support.scripted import FIXTURES

PYTHON_BACKENDS = sorted(BACKEND_MODULES)
ALL_BACKENDS = [*PYTHON_BACKENDS, "itensors"]
CHECKER = r"""
import ast, json, sys
source = sys.stdin.read()
tree = ast.parse(source)
problems = []
namespace = {"__name__": "skeleton"}
try:
    exec(compile(source, "skeleton", "exec"), namespace)
except Exception as error:
    problems.append(f"{type(error).__name__}: {error}")
imported = {(alias.asname or alias.name).split(".")[0] for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
for node in ast.walk(tree):
    chain, root = [], node
    while isinstance(root, ast.Attribute):
        chain.insert(0, root.attr)
        root = root.value
    if chain and isinstance(root, ast.Name) and root.id in imported and root.id in namespace:
        value = namespace[root.id]
        for depth, attribute in enumerate(chain):
            if not hasattr(value, attribute):
                problems.append(".".join([root.id, *chain[:depth + 1]]) + " does not exist")
                break
            value = getattr(value, attribute)
print(json.dumps(sorted(set(problems))))
"""


def api_problems(source: str) -> list[str]:
    """What does not import or does not exist among the script's imports and imported attribute chains."""
    checked = subprocess.run([sys.executable, "-c", CHECKER], input=source, capture_output=True, text=True,
                             timeout=300, check=True)
    return json.loads(checked.stdout.splitlines()[-1])


def test_the_checker_finds_invented_modules_and_attributes():
    assert api_problems("import json\nfrom typing import Any\nx = json.dumps\n") == []
    assert api_problems("import json\n\ndef f() -> None:\n    json.solvers.run()\n") == ["json.solvers does not exist"]
    assert api_problems("import physvec_has_no_such_module\n")[0].startswith("ModuleNotFoundError")


@pytest.mark.parametrize("backend", PYTHON_BACKENDS)
def test_a_python_skeleton_keeps_the_contract_and_uses_only_real_api(backend):
    script = example_script(backend)
    ast.parse(script)
    contract = analyse_for_backend(script, backend)
    assert [breach.message for breach in contract.breaches] == []
    assert contract.elements and list(contract.runs) and contract.has_main and contract.params
    assert api_problems(script) == []


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_skeleton_is_small_and_holds_no_reference_numbers(backend):
    script = example_script(backend)
    assert len(script) <= BUDGET_CHARS and script.count("\n") <= BUDGET_LINES
    precise = [number for number in re.findall(r"\d+\.\d+(?:e-?\d+)?", script)
               if len(number.split("e")[0].replace(".", "").strip("0")) > 6]
    assert precise == [], "a number this precise is a result, not a small default parameter"
    if backend != "itensors":
        functions = [n for n in ast.parse(script).body if isinstance(n, ast.FunctionDef)]
        assert not [f.name for f in functions if ast.get_docstring(f)], "docstrings hold the library's reference values"


def test_the_tenpy_skeleton_names_tenpys_real_modules_not_invented_ones():
    script = example_script("tenpy")
    assert "from tenpy.models.spins import SpinChain" in script and "dmrg.run(" in script
    assert "tenpy.models.heisenberg" not in script and "tenpy.solvers" not in script


def test_the_itensors_skeleton_is_the_julia_backgrounds_code_under_the_julia_contract():
    script = example_script("itensors")
    contract = analyse_for_backend(script, "itensors")
    assert [breach.message for breach in contract.breaches] == []
    assert list(contract.runs) == ["run_heisenberg_chain"] and contract.has_main
    assert set(contract.elements) == {"site_spinhalf", "hamiltonian_heisenberg", "initialstate_neel", "effector_dmrg",
                                      "observable_energy"}
    assert script.startswith("# ") and "using ITensors, ITensorMPS" in script and script.endswith("main()\n")


def test_a_backend_the_library_does_not_cover_has_no_skeleton():
    assert example_script("orca") is None


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_every_script_request_shows_the_backends_skeleton_after_the_contract(backend):
    task = load_task(FIXTURES / "tiny_task" / "task.json").task.model_copy(update={"backend": backend})
    fence = "julia" if backend == "itensors" else "python"
    for messages in (author_messages(task, "paper text"), repair_messages(task, 1, "script", [])):
        system = messages[0].content
        assert f"```{fence}\n{example_script(backend)}```" in system
        assert system.index("follows this contract") < system.index("An example of working code")
        assert "may differ" in system and system.rstrip().endswith(f"```{fence} fenced block.")
