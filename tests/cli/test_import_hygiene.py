"""Commands start at once: importing a console entry point loads no heavy library.

Each library below costs from a tenth of a second to seconds of CPU to import; a command that needs one
imports it inside the code path that uses it, so `--help`, `validate` or `runs list` never pay for a model
client, a statistics package or a physics backend.  Each module is imported in a fresh interpreter, since
this test process has long imported all of them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("langchain_core", "langchain_openai", "langgraph", "openai", "statsmodels", "pandas", "matplotlib",
         "sympy", "networkx", "chromadb", "tenpy", "netket", "qiskit", "qiskit_aer", "pyscf", "jax", "torch",
         "scipy", "hypothesis", "pymatgen", "spglib", "dask", "distributed", "dask_jobqueue")
ENTRY_POINTS = ("physvec.cli.main", "physvec.cli.dualitycert", "physvec.cli.phact", "physvec.cli.qmp_bench",
                "physvec.cli.matpcr")
ROOT = Path(__file__).resolve().parents[2]


def heavy_modules_loaded_by(module: str) -> list[str]:
    """The heavy top-level packages in ``sys.modules`` after a fresh interpreter imports ``module``."""
    probe = (f"import importlib, json, sys\nimportlib.import_module({module!r})\n"
             f"print(json.dumps(sorted({{name.partition('.')[0] for name in sys.modules}} & set({HEAVY!r}))))")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(completed.stdout)


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_importing_a_console_entry_point_loads_no_heavy_library(module):
    assert heavy_modules_loaded_by(module) == []


def test_the_probe_sees_a_heavy_import_when_there_is_one():
    assert "scipy" in heavy_modules_loaded_by("scipy.linalg")


def test_dualising_and_verifying_a_claim_need_no_computer_algebra():
    # `dualitycert dualize` and `verify` solve their R-charge systems with exact Fractions; sympy (half a second
    # to import) is loaded only by the opt-in a-maximisation audit.  networkx is what the copy guard uses.
    loaded = heavy_modules_loaded_by("physvec.verifiers.dualitycert.registry") + heavy_modules_loaded_by(
        "physvec.verifiers.dualitycert.dualize")
    assert "sympy" not in loaded


def heavy_modules_loaded_running(entry_point: str, *arguments: str) -> list[str]:
    """The heavy top-level packages (numpy among them) in ``sys.modules`` after a fresh interpreter runs
    the console entry point ``module:function`` with ``arguments`` to its end."""
    module, function = entry_point.split(":")
    heavy = (*HEAVY, "numpy")
    probe = (f"import importlib, json, sys\nsys.argv = ['command', *{arguments!r}]\n"
             f"try:\n    importlib.import_module({module!r}).{function}()\nexcept SystemExit:\n    pass\n"
             f"print(json.dumps(sorted({{name.partition('.')[0] for name in sys.modules}} & set({heavy!r}))),"
             f" file=sys.stderr)")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(completed.stderr.strip().splitlines()[-1])


def test_certifying_a_design_that_meets_its_goal_loads_neither_search_library():
    # numpy and networkx serve the impossibility search, which runs only for a design that misses its goal
    assert heavy_modules_loaded_running(
        "physvec.cli.phact:main", "certify", "verifiers/phact/goals/rc_filter/mains-hum-low-pass.json",
        "examples/phact/mains_hum_design.json") == []


def test_dualising_a_theory_loads_no_graph_library(tmp_path):
    claim = json.loads((ROOT / "examples" / "dualitycert" / "dp0_node0_claim.json").read_text())
    theory = tmp_path / "theory.json"
    theory.write_text(json.dumps(claim["theory_a"]))
    assert heavy_modules_loaded_running("physvec.cli.dualitycert:main", "dualize", str(theory), "--node", "0") == []


def test_validating_a_task_loads_no_heavy_library():
    assert heavy_modules_loaded_running("physvec.cli.main:physvec_main", "validate",
                                        "examples/heisenberg_chain/task.json") == []


def test_the_running_probe_sees_the_search_library_when_a_design_misses_its_goal(tmp_path):
    # 1 kOhm and 1 nF put the cutoff near 160 kHz: 50 Hz passes unattenuated, so the engine searches the box
    design = tmp_path / "design.json"
    design.write_text(json.dumps({"goal": "mains-hum-low-pass", "values": {"resistance_ohm": 1000.0,
                                                                           "capacitance_F": 1e-09}}))
    loaded = heavy_modules_loaded_running("physvec.cli.phact:main", "certify",
                                          "verifiers/phact/goals/rc_filter/mains-hum-low-pass.json", str(design))
    assert {"numpy", "networkx"} <= set(loaded)
