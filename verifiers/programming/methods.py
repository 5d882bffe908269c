"""The method a task demands, checked by code from the trace of the script's instrumented execution.

A rubric leaf "uses DMRG" is prose, unjudged without a model, so a script could swap DMRG for a numpy
formula and pass every numerical check.  The instrumented execution (harness.run_instrumented, with
method_trace) wraps the backend's entry points of the demanded method before the script is loaded and records
each call: where it happened, how it ended, what it ran.  The method is met only when
- a call that performs it (``performs``) RETURNED NORMALLY inside a run_ function's dynamic extent (main's
  call of it, or the harness's own call of a run_ function main did not call), and
- no watched call raised an exception that the script swallowed (the program went on after it: a later
  watched call, or the run it happened in finished normally): a DMRG that raises inside try/except while the
  script returns a number computed otherwise fails, naming the entry point and the exception's type.
A product formula ("trotter") must also show in the circuit that ran, as recorded at run time: one run_
function's extent holds a LieTrotter/SuzukiTrotter ``synthesize`` that returned (called directly, by
``decompose()`` or by the transpiler) or a simulated PauliEvolutionGate of commuting terms (a product of
exact rotations), a state-vector simulation or estimation that returned on a circuit made only of such gates,
and no exact evolution: no PauliEvolutionGate of non-commuting terms left whole (qiskit's simulators take
its matrix, exp(-iHt) by scipy, whatever its synthesis), no arbitrary-matrix gate (UnitaryGate,
HamiltonianGate, a gate class of the script's with its own matrix) over more than two qubits or the whole
register, no state given as numbers, no evolution by a register-sized matrix, no register-sized expm called by
the script.  An exact reference belongs in a run_ function of its own.

Established: the method's library call ended normally inside the run_ function's extent (and which element
function held it); for a product formula, that the simulated circuits of that extent hold no exact evolution
that qiskit, scipy's expm or a matrix gate would apply.  Not established: that the call's returned object (or
the engine or state it mutated) is an ancestor of the run_ function's results (a decoy call beside an answer
computed otherwise, by numpy's eigh for instance, is not detected here: the evidence obligations compare the
numbers), nor that standard gates are a product formula rather than a compiled exact unitary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from physvec.taskfiles.task import Task
from physvec.verifiers.certificate import Obligation, Outcome

METHOD = "method"


@dataclass(frozen=True)
class MethodCalls:
    """The backend calls that show a method: ``performs`` do it (any one suffices); ``simulates`` run a circuit and
    ``exact`` evolve exactly (a product formula's checks; ``@script``: only calls from the script's own code)."""

    performs: tuple[str, ...]
    simulates: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()

    @property
    def entry_points(self) -> tuple[str, ...]:
        return self.performs + self.simulates + self.exact


PRODUCT_FORMULAS = ("qiskit.synthesis.evolution.lie_trotter.LieTrotter",
                    "qiskit.synthesis.evolution.suzuki_trotter.SuzukiTrotter")
"""Syntheses that are Trotter product formulas (QDrift, a random product, and subclasses are not)."""
TROTTER = MethodCalls(
    performs=("qiskit.synthesis.evolution.product_formula:ProductFormula.synthesize",),
    simulates=("qiskit.quantum_info:Statevector.from_instruction", "qiskit.quantum_info:Statevector.evolve",
               "qiskit.quantum_info:DensityMatrix.from_instruction", "qiskit.quantum_info:DensityMatrix.evolve",
               "qiskit.quantum_info:Operator.__init__@script",
               "qiskit.primitives:StatevectorEstimator.run", "qiskit.primitives:StatevectorSampler.run",
               "qiskit_aer:AerSimulator.run", "qiskit_aer.primitives:EstimatorV2.run",
               "qiskit_aer.primitives:SamplerV2.run"),
    exact=("scipy.linalg:expm@script", "scipy.sparse.linalg:expm@script", "scipy.sparse.linalg:expm_multiply@script",
           "qiskit.circuit.library:PauliEvolutionGate.to_matrix@script"),
)
EVOLVES_BY_MATRIX = TROTTER.exact + ("qiskit.quantum_info:Statevector.evolve", "qiskit.quantum_info:DensityMatrix.evolve")
"""Calls whose square-matrix argument is an evolution (Operator(matrix) alone is not: an observable can be one)."""
METHOD_CALLS: dict[str, MethodCalls] = {
    "dmrg": MethodCalls(("tenpy.algorithms.dmrg:run", "tenpy.algorithms.dmrg:DMRGEngine.run")),
    "vmc_rbm": MethodCalls(("netket.driver:AbstractVariationalDriver.run",)),
    "vmc_rbm_sr": MethodCalls(("netket.driver:AbstractVariationalDriver.run",)),
    "tvmc": MethodCalls(("netket.experimental.driver.tdvp_common:TDVPBaseDriver.run",)),
    "trotter": TROTTER,
    "iqpe": TROTTER,
    "vqe": MethodCalls(("qiskit.primitives:StatevectorEstimator.run",)),
    "rhf": MethodCalls(("pyscf.scf.hf:SCF.kernel",)),
    "rks": MethodCalls(("pyscf.scf.hf:SCF.kernel",)),
}
METHOD_ENTRY_POINTS: dict[str, tuple[str, ...]] = {method: calls.entry_points for method, calls in METHOD_CALLS.items()}
"""Method -> every backend call the instrumented execution watches for it."""
METHOD_WORDS: tuple[tuple[str, str], ...] = (
    ("dmrg", r"\bdmrg\b"), ("iqpe", r"\biqpe\b|phase estimation"), ("trotter", r"\btrotter|product formula"),
    ("vqe", r"\bvqe\b|variational quantum eigensolver"),
    ("tvmc", r"\bt-?vmc\b|time-dependent variational"), ("vmc_rbm", r"\brbm\b|variational monte carlo|\bvmc\b"), ("rhf", r"hartree.fock"),
)
"""How a request without a spec names its method, in a fixed order."""


def demanded_method(task: Task) -> str | None:
    """The method the task's spec names, else the first one its request names, if physvec can check it."""
    if task.spec is not None:
        return task.spec.method if task.spec.method in METHOD_CALLS else None
    request = task.request.lower()
    return next((method for method, pattern in METHOD_WORDS if re.search(pattern, request)), None)


def _where(event: dict[str, Any]) -> str:
    run = f"in {event['run']}" if event.get("run") else "outside any run_ function"
    return run + (f" ({event['element']})" if event.get("element") else "") + (
        "" if event.get("phase", "main") == "main" else f", {event['phase']}")


def swallowed(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The watched calls that raised while the program went on: a later watched call in the same phase, the same
    call raising again, or the phase's run (main, or the harness's call of a run_ function) finishing normally."""
    events = report["method_calls"]["events"]
    ended_ok = {"main": (report.get("main") or {}).get("ok", False),
                **{f"extra:{name}": outcome.get("ok", False) for name, outcome in (report.get("extra_runs") or {}).items()}}
    return [event for event in events if event["outcome"] == "raised" and (
        event["count"] > 1 or ended_ok.get(event.get("phase", "main"), False)
        or any(other["last"] > event["first"] and other.get("phase") == event.get("phase") and other is not event
               for other in events))]


def _in_run(event: dict[str, Any]) -> tuple[str, str] | None:
    return (event.get("phase", "main"), event["run"]) if event.get("run") else None


def _register_sized(dim: int, qubits: int) -> bool:
    return dim >= 8 or (dim >= 4 and dim >= 2**qubits)


def _exact_evolutions(event: dict[str, Any], qubits: int) -> list[str]:
    """Why one watched call of a run_ function's extent evolves exactly (empty when it does not)."""
    reasons = []
    for circuit in event.get("circuits", []):
        for finding in circuit["findings"]:
            big = finding["qubits"] > 2 or finding["qubits"] >= max(circuit["qubits"], 2)
            if finding["kind"] == "whole_evolution":
                reasons.append(f"{event['entry']} applies a whole PauliEvolutionGate of non-commuting terms on "
                               f"{finding['qubits']} qubits (synthesis {finding['synthesis']}), which qiskit "
                               f"exponentiates exactly")
            elif finding["kind"] == "prepared_state":
                reasons.append(f"{event['entry']} starts from a {finding['qubits']}-qubit state given as numbers")
            elif big:
                reasons.append(f"{event['entry']} applies a {finding['class']} on {finding['qubits']} qubits, "
                               f"an arbitrary matrix")
    if event["entry"] in EVOLVES_BY_MATRIX:
        reasons += [f"{event['entry']} evolves by a {dim}x{dim} matrix" for dim in event.get("matrices", [])
                    if _register_sized(dim, max(qubits, event.get("state_qubits", 0)))]
    return reasons


def _trotter_runs(events: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], dict[tuple[str, str], list[str]]]:
    """The run_ extents that meet the product formula, and for the others what is missing or wrong."""
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for event in events:
        if (where := _in_run(event)) is not None:
            runs.setdefault(where, []).append(event)
    met, problems = [], {}
    for where, held in runs.items():
        simulated = [e for e in held if e["entry"] in TROTTER.simulates and e["outcome"] == "returned"]
        qubits = max([c["qubits"] for e in simulated for c in e.get("circuits", [])]
                     + [e.get("state_qubits", 0) for e in simulated], default=0)
        exact = [reason for e in held if e["entry"] not in TROTTER.performs for reason in _exact_evolutions(e, qubits)]
        synthesised = [e for e in held if e["entry"] in TROTTER.performs and e["outcome"] == "returned"
                       and e.get("synthesis", {}).get("class") in PRODUCT_FORMULAS]
        clean = [e for e in simulated if e.get("circuits") and not _exact_evolutions(e, qubits)
                 and any(c["ops"] for c in e["circuits"])]
        factors = [e for e in clean if any(c["ops"].get("PauliEvolution") for c in e["circuits"])]
        missing = exact + ([] if synthesised or factors else [
            "no LieTrotter/SuzukiTrotter synthesis returned (synthesize, decompose() or transpile of a "
            "PauliEvolutionGate) and no PauliEvolutionGate of commuting terms was simulated"]) + (
            [] if clean else ["no state-vector simulation or estimation of a product-formula circuit returned"])
        if missing:
            problems[where] = missing
        else:
            met.append(where)
    return met, problems


def method_obligation(method: str | None, report: dict[str, Any] | None) -> Obligation | None:
    """Whether the instrumented run performed the demanded method (see the module docstring); None when no method
    is demanded."""
    if method is None:
        return None
    name, calls = f"{METHOD}:{method}", METHOD_CALLS[method]
    recorded = (report or {}).get("method_calls")
    if recorded is None or "events" not in recorded:
        return Obligation(name=name, category=METHOD, outcome=Outcome.UNKNOWN,
                          message="the instrumented run recorded no method calls (it did not finish)")
    if all(entry in recorded["missing"] for entry in calls.performs):
        return Obligation(name=name, category=METHOD, outcome=Outcome.UNKNOWN, evidence=recorded,
                          message=f"the backend's {method} entry points cannot be imported here")
    events = recorded["events"]

    def failed(message: str) -> Obligation:
        return Obligation(name=name, category=METHOD, outcome=Outcome.FAILED, evidence=recorded, message=message)

    if hidden := swallowed(report):
        return failed("; ".join(f"{e['entry']} raised {e['error']} {_where(e)}" for e in hidden[:3])
                      + " and the script went on: a method call's exception, swallowed, leaves the numbers computed "
                        "otherwise")
    if recorded["dropped"]:
        return failed(f"the script made {recorded['dropped']} more distinct method calls than the trace keeps; "
                      f"the method cannot be told from them")
    performed = [e for e in events if e["entry"] in calls.performs and e["outcome"] == "returned" and _in_run(e)]
    if method == "trotter":
        met, problems = _trotter_runs(events)
        if met:
            return Obligation(name=name, category=METHOD, outcome=Outcome.CERTIFIED, evidence=recorded,
                              message=f"the product formula's circuit ran in {', '.join(run for _, run in met)}, "
                                      f"with no exact evolution beside it")
        if problems:
            return failed(" | ".join(f"{run}{'' if phase == 'main' else f' ({phase})'}: {'; '.join(reasons)}"
                                     for (phase, run), reasons in problems.items()))
    elif performed:
        return Obligation(name=name, category=METHOD, outcome=Outcome.CERTIFIED, evidence=recorded,
                          message=f"{', '.join(dict.fromkeys(e['entry'] for e in performed))} returned normally "
                                  f"{', '.join(dict.fromkeys(_where(e) for e in performed))}")
    raised = [e for e in events if e["entry"] in calls.performs and e["outcome"] == "raised"]
    outside = [e for e in events if e["entry"] in calls.performs and e["outcome"] == "returned" and not _in_run(e)]
    if raised:
        return failed("; ".join(f"{e['entry']} raised {e['error']} {_where(e)}" for e in raised[:3]))
    if outside:
        return failed(f"{outside[0]['entry']} returned only outside any run_ function: the run_ function that makes "
                      f"the observables never performs {method}")
    return failed(f"the task demands {method}, but the run never calls {' or '.join(calls.performs)}")
