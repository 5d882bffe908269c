"""The method a task demands, checked by code: the script's main run must call the backend's entry point.

A rubric leaf "uses DMRG" is prose, unjudged without a model, so a script could swap DMRG for a numpy
formula and pass every numerical check.  The instrumented execution (harness.run_instrumented) wraps
the backend's entry points of the demanded method before the script is loaded and records which were
called; a method with no call is a failed obligation.  Entry points are named as ``module:attribute``.
"""

from __future__ import annotations

import re
from typing import Any

from physvec.taskfiles.task import Task
from physvec.verifiers.certificate import Obligation, Outcome

METHOD = "method"
METHOD_ENTRY_POINTS: dict[str, tuple[str, ...]] = {
    "dmrg": ("tenpy.algorithms.dmrg:run", "tenpy.algorithms.dmrg:DMRGEngine.run"),
    "vmc_rbm": ("netket.driver:AbstractVariationalDriver.run",),
    "vmc_rbm_sr": ("netket.driver:AbstractVariationalDriver.run",),
    "trotter": ("qiskit.circuit.library:PauliEvolutionGate.__init__",),
    "vqe": ("qiskit.primitives:StatevectorEstimator.run",),
    "rhf": ("pyscf.scf.hf:SCF.kernel",),
    "rks": ("pyscf.scf.hf:SCF.kernel",),
}
"""Method -> the backend calls that perform it (any one suffices)."""
METHOD_WORDS: tuple[tuple[str, str], ...] = (
    ("dmrg", r"\bdmrg\b"), ("trotter", r"\btrotter|product formula"), ("vqe", r"\bvqe\b|variational quantum eigensolver"),
    ("vmc_rbm", r"\brbm\b|variational monte carlo|\bvmc\b"), ("rhf", r"hartree.fock"),
)
"""How a request without a spec names its method, in a fixed order."""


def demanded_method(task: Task) -> str | None:
    """The method the task's spec names, else the first one its request names, if physvec can check it."""
    if task.spec is not None:
        return task.spec.method if task.spec.method in METHOD_ENTRY_POINTS else None
    request = task.request.lower()
    return next((method for method, pattern in METHOD_WORDS if re.search(pattern, request)), None)


def method_obligation(method: str | None, report: dict[str, Any] | None) -> Obligation | None:
    """Whether the main run called one of the method's entry points (None when no method is demanded)."""
    if method is None:
        return None
    name = f"{METHOD}:{method}"
    recorded = (report or {}).get("method_calls")
    if recorded is None:
        return Obligation(name=name, category=METHOD, outcome=Outcome.UNKNOWN,
                          message="the instrumented run recorded no method calls (it did not finish)")
    if recorded["called"]:
        return Obligation(name=name, category=METHOD, outcome=Outcome.CERTIFIED, evidence=recorded,
                          message=f"the main run calls {', '.join(recorded['called'])}")
    if recorded["missing"] and len(recorded["missing"]) == len(METHOD_ENTRY_POINTS[method]):
        return Obligation(name=name, category=METHOD, outcome=Outcome.UNKNOWN, evidence=recorded,
                          message=f"the backend's {method} entry points cannot be imported here")
    return Obligation(name=name, category=METHOD, outcome=Outcome.FAILED, evidence=recorded,
                      message=f"the task demands {method}, but the main run never calls "
                              f"{' or '.join(METHOD_ENTRY_POINTS[method])}")
