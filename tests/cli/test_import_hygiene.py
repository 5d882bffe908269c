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

import pytest

HEAVY = ("langchain_core", "langchain_openai", "langgraph", "openai", "statsmodels", "pandas", "matplotlib",
         "sympy", "networkx", "chromadb", "tenpy", "netket", "qiskit", "qiskit_aer", "pyscf", "jax", "torch",
         "scipy", "hypothesis", "pymatgen", "spglib", "dask", "distributed", "dask_jobqueue")
ENTRY_POINTS = ("physvec.cli.main", "physvec.cli.dualitycert", "physvec.cli.phact", "physvec.cli.qmp_bench",
                "physvec.cli.matpcr")


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
