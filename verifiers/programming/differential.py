"""Differential unit tests: a script's element function against the library function of the same role.

Where the task has a spec the verifier library covers, the library's pipeline for it (composer.py) holds a
trusted function for some roles.  The script's function of the same role and that trusted function then run
on the same inputs, in the same sandboxed program (differential_run.py), and their outputs are compared in
canonical form (differential_forms.py): a Hamiltonian as a dense matrix on a small lattice, an initial state
as a vector up to a global phase, a lattice, a molecule or an observable on the pipeline's own fixed states
(the state its effector starts from, where that is a state, and the one it ends with) as numbers.  One
obligation ``differential:<function>`` per compared function:

- **certified**: the outputs agree within the role's tolerance (DIFFERENTIAL_TOLERANCE);
- **failed**: they differ, and the message shows how (largest difference, first differing entry or
  eigenvalue, both values);
- **not_applicable**, with the reason, where the comparison would not be meaningful: no library function of
  the role in the spec's pipeline; one the script's function cannot be matched to; an argument the script's
  function needs that the library's inputs do not hold (both would not get the same inputs); outputs in
  representations with no common canonical form or on different Hilbert spaces; a Monte Carlo state, on which
  two honest estimates differ by their sampling error; a script function that raises on the library's inputs
  (its unit test judges the function itself);
- **unknown**: the program died before the comparison was recorded, or the library's side failed.
Without a spec there are no differential obligations.  Only a difference can fail: a differential test never
makes a script fail whose functions return what the library's return, however they are written.

Matching.  A script function is compared with the library function of its name, or with the library step
whose output it is named after (``observable_sz`` with the step whose output is ``sz``); a Hamiltonian, an
initial state or a molecule (``item_``) also with the pipeline's only function of the role when the script
has only one of the role.  Lattices and observables are matched by name only: a script may have observables
the library lacks, which must not be held to another's values.  A script can therefore escape a comparison by
naming (it is then not applicable, never certified); the trusted recomputation at the task point
(verifiers/scientific/evidence.py) is the evidence that certifies a run.

Inputs.  The spec's pipeline at its own small size and numerical settings (DIFFERENTIAL_SIZES shrinks the
lattices whose dense Hamiltonian would be too large), with the task's couplings made generic: each real
parameter the lattice, site, Hamiltonian and molecule steps read is the task's value scaled by a factor of
its own (a zero one set to a small value of its own), so that no coupling vanishes and no two coincide.  At
J = h = 1 (most of the bench's Ising tasks) a script that swapped J and h would otherwise agree, and at A = 0
one that dropped the trap.

What a comparison misses.  Where the two Hamiltonians are written in different bases (a TeNPy model against a
bare matrix, NetKet's Heisenberg with its Marshall sign rule against one written by hand), only spectra are
compared, and a spectrum is blind to mistakes a change of basis undoes: the sign of J or of h in an Ising
chain (flip every other spin, or all of them about Z) or of the hopping on a bipartite lattice.  In one basis
(two TeNPy models on sites with the same state labels in the same order, two Qiskit operators on the same
qubits) equal spectra with different entries fail.  Couplings are compared at one generic point.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from physvec.taskfiles.base import Tolerances
from physvec.taskfiles.task import ProposerSpec
from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.library import BackgroundPipeline, BackgroundStep, pipeline_for_spec
from physvec.verifiers.library.composer import library_problem
from physvec.verifiers.programming.contract import ElementFunction, ScriptContract
from physvec.verifiers.programming.differential_run import DIFFERENTIAL_REPORT
from physvec.verifiers.sandbox import SandboxResult

DIFFERENTIAL = "differential"


DIFFERENTIAL_TOLERANCE: dict[str, Tolerances] = {
    "lattice": Tolerances(rtol=1e-10, atol=1e-12),
    "hamiltonian": Tolerances(rtol=1e-9, atol=1e-9),
    "initialstate": Tolerances(rtol=0.0, atol=1e-9),
    "item": Tolerances(rtol=1e-9, atol=1e-9),
    "observable": Tolerances(rtol=1e-6, atol=1e-6),
}
"""How far a script's output may lie from the library's on the same inputs, per role, entry by entry
(|script - library| <= atol + rtol |library|; for Hamiltonians the same bound on entries and on eigenvalues):

- lattice: closed formulas of the same numbers (a trap's potentials, a graph's edges): rounding only;
- hamiltonian: each matrix entry is a sum of a few products of couplings, so two constructions differ by
  rounding (1e-15 per term), and LAPACK's eigenvalues of matrices up to 1024 wide by ~1e-13 times the norm;
  a missing or wrong term moves entries by a coupling (the generic couplings are all above 0.1);
- initialstate: normalised vectors aligned in global phase: rounding of a product state's or a circuit's
  amplitudes; a state off by one site or one gate differs by O(1) in some amplitude;
- item: a molecule's integrals from the same geometry and basis: rounding; a geometry in bohr instead of
  angstrom, another basis or charge changes them at once;
- observable: the same fixed state, possibly another but equivalent formula (an MPS contraction instead of
  TeNPy's expectation_value, orbital energies re-diagonalised from an SCF converged to 1e-9): 1e-6 leaves
  room for that and for the SCF residual, while an observable of other sites, another operator or a missing
  factor differs by 1e-2 or more.
One table, so that a reader sees every tolerance the differential tests use."""

COMPARED_ROLES = ("lattice", "hamiltonian", "initialstate", "item", "observable")
"""Roles whose outputs are physics the library also computes; circuits, ansätze, samplers and effectors may
legitimately differ (another product formula, another parametrisation, another optimiser)."""
SINGLE_MATCHED_ROLES = ("hamiltonian", "initialstate", "item")
"""Roles whose only script function is compared with the pipeline's only function of the role, whatever its name."""
MONTE_CARLO_METHODS = ("vmc_rbm", "vmc_rbm_sr")
"""Methods whose fixed state is a Monte Carlo sample: their observables are estimates, not compared."""
DIFFERENTIAL_SIZES: dict[str, dict[str, Any]] = {
    "trapped_hubbard_chain": {"L": 4},
    "trapped_hubbard_spin_resolved": {"L": 4},
    "trapped_hubbard_ladder": {"L": 2},
    "hubbard_ladder_correlation": {"L": 2, "N_up": 2, "N_down": 2},
}
"""Sizes below a pipeline's own where its dense Hamiltonian would exceed differential_forms.MAX_DIMENSION
(4^6 = 4096 for six Hubbard sites): four sites, 256 states."""
COUPLING_ROLES = ("lattice", "site", "hamiltonian", "item")
GENERIC_STEP = 0.1 * math.sqrt(2)
"""The k-th coupling (counting from 1) becomes c (1 + k GENERIC_STEP), or k GENERIC_STEP where c = 0."""


def generic_couplings(spec: ProposerSpec, pipeline: BackgroundPipeline) -> dict[str, float]:
    """The task's couplings made generic: the real parameters the model's steps read, where the pipeline's
    own value is a float, each scaled by its own factor (see GENERIC_STEP)."""
    read = list(dict.fromkeys(name for step in pipeline.steps if step.role in COUPLING_ROLES
                              for name in _parameters(step)))
    couplings: dict[str, float] = {}
    for name in read:
        value = spec.parameters.get(name)
        if not isinstance(pipeline.params.get(name), float) or isinstance(value, bool) \
                or not isinstance(value, (int, float)) or not math.isfinite(value):
            continue
        k = len(couplings) + 1
        couplings[name] = float(value) * (1 + k * GENERIC_STEP) if value != 0 else k * GENERIC_STEP
    return couplings


def _parameters(step: BackgroundStep) -> list[str]:
    import inspect

    return list(inspect.signature(step.function).parameters)


def _not_applicable(function: ElementFunction, message: str, **evidence: Any) -> Obligation:
    return Obligation(name=f"{DIFFERENTIAL}:{function.name}", category=DIFFERENTIAL, outcome=Outcome.NOT_APPLICABLE,
                      message=message, evidence=evidence)


def _match(function: ElementFunction, contract: ScriptContract, pipeline: BackgroundPipeline) -> BackgroundStep | None:
    steps = [step for step in pipeline.steps if step.role == function.role]
    named = [step for step in steps if function.name in (step.function.__name__, f"{step.role}_{step.output}")]
    if named:
        return named[0]
    alone = sum(1 for other in contract.elements.values() if other.role == function.role) == 1
    return steps[0] if function.role in SINGLE_MATCHED_ROLES and alone and len(steps) == 1 else None


def plan_differential(function: ElementFunction, contract: ScriptContract, spec: ProposerSpec | None,
                      backend: str) -> dict[str, Any] | Obligation | None:
    """The plan of ``function``'s differential test (a literal dict for the unit-test program), a
    not_applicable obligation saying why there is none, or None where its role is never compared or the
    task has no spec."""
    if spec is None or function.role not in COMPARED_ROLES:
        return None
    if (problem := library_problem(spec, backend)) is not None:
        return _not_applicable(function, f"the library does not cover the task's spec: {problem}")
    pipeline = pipeline_for_spec(backend, spec.model, spec.lattice, spec.method)
    step = _match(function, contract, pipeline)
    if step is None:
        names = [s.function.__name__ for s in pipeline.steps if s.role == function.role]
        return _not_applicable(function, f"no {function.role} function of the library's {pipeline.name} matches "
                               f"{function.name}" + (f" (it has {', '.join(names)})" if names else ""))
    if function.role == "observable" and spec.method in MONTE_CARLO_METHODS:
        return _not_applicable(function, f"the state of {spec.method} is a Monte Carlo sample: two honest estimates "
                               "on it differ by their sampling error", library=step.function.__name__)
    tolerance = DIFFERENTIAL_TOLERANCE[function.role]
    params = {**generic_couplings(spec, pipeline), **DIFFERENTIAL_SIZES.get(pipeline.name, {})}
    return {"backend": backend, "pipeline": pipeline.name, "role": function.role, "trusted": step.function.__name__,
            "output": step.output, "params": params, "rtol": tolerance.rtol, "atol": tolerance.atol}


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return f"{value[0]:.10g}{value[1]:+.10g}j"
    return f"{value:.10g}"


def _difference(facts: dict[str, Any], what: str) -> str:
    first = facts.get("first")
    where = (f"; the first at {what} {first['index']}: script {_shown(first['script'])}, library "
             f"{_shown(first['library'])}") if first else ""
    plural = what[:-1] + "ies" if what.endswith("y") else what + "s"
    return (f"{facts['differing']} of {facts['size']} {plural} differ, the largest by "
            f"{facts['max_abs_difference']:.3g}{where}")


def _compared(role: str, facts: dict[str, Any], library: str) -> tuple[Outcome, str]:
    """The outcome of a recorded comparison, decided from its facts by the rules in the module docstring."""
    script, ours = facts["script"], facts["library"]
    if not facts["same_shape"]:
        shapes = f"shape {tuple(script['shape'])}, the library's {library} {tuple(ours['shape'])}"
        if role in ("hamiltonian", "initialstate"):
            return Outcome.NOT_APPLICABLE, f"not on the same Hilbert space as the library's: {shapes}"
        return Outcome.FAILED, f"returned {shapes} on the same inputs"
    entries, spectrum = facts.get("entries"), facts.get("spectrum")
    if entries is not None and entries["differing"] == 0:
        size = entries["size"]
        return Outcome.CERTIFIED, (f"equal to the library's {library} on the same inputs "
                                   f"({size} {'entry' if size == 1 else 'entries'})")
    if role == "hamiltonian":
        if spectrum["differing"]:
            return Outcome.FAILED, (f"a different spectrum from the library's {library} on the same inputs: "
                                    + _difference(spectrum, "eigenvalue"))
        if entries is not None and facts["fixes_entries"]:
            return Outcome.FAILED, (f"the spectrum of the library's {library}, but another operator in the same "
                                    f"basis ({ours['basis'][:80]}): " + _difference(entries, "matrix entry"))
        return Outcome.CERTIFIED, (f"the spectrum of the library's {library} on the same inputs, compared by spectrum "
                                   f"only ({script['representation']} against {ours['representation']}, bases "
                                   "that need not agree): blind to mistakes a change of basis undoes, such as the "
                                   "sign of J or h in an Ising chain")
    if entries is None:
        return Outcome.NOT_APPLICABLE, (f"written in another basis than the library's {library} "
                                        f"({script['basis'] or script['representation']} against {ours['basis']})")
    if role == "initialstate":
        return Outcome.FAILED, (f"another state than the library's {library} (overlap {facts.get('overlap', 0):.6g}, "
                                "up to a global phase): " + _difference(entries, "amplitude"))
    return Outcome.FAILED, f"differs from the library's {library} on the same inputs: " + _difference(entries, "entry")


def _all_compared(role: str, comparisons: list[dict[str, Any]], library: str) -> tuple[Outcome, str]:
    """One outcome for the comparisons on each set of inputs: the first failure, else the first that does not
    apply, else certified."""
    judged = [(facts["inputs"], *_compared(role, facts, library)) for facts in comparisons]
    for wanted in (Outcome.FAILED, Outcome.NOT_APPLICABLE):
        for inputs, outcome, message in judged:
            if outcome is wanted:
                return outcome, f"on {inputs}: {message}" if len(judged) > 1 else message
    return Outcome.CERTIFIED, "; ".join(f"on {inputs}: {message}" if len(judged) > 1 else message
                                        for inputs, _, message in judged)


NOT_COMPARED = {
    "library_incomparable": (Outcome.NOT_APPLICABLE, "the library's output has no form to compare: {error}"),
    "library_error": (Outcome.UNKNOWN, "the library's side failed, so nothing was compared: {error}"),
    "script_raised": (Outcome.NOT_APPLICABLE, "raised on the library's inputs ({error}); its unit test judges the "
                                              "function itself"),
    "script_incomparable": (Outcome.NOT_APPLICABLE, "its output has no form to compare with the library's: {error}"),
    "comparison_error": (Outcome.UNKNOWN, "the comparison failed: {error}"),
}


def differential_obligation(function: ElementFunction, plan: dict[str, Any], workdir: Path,
                            result: SandboxResult) -> Obligation:
    """The differential test's obligation, judged from the facts the unit-test program recorded."""
    name, library = f"{DIFFERENTIAL}:{function.name}", plan["trusted"]
    evidence: dict[str, Any] = {"library": f"{plan['pipeline']}.{library}", "inputs": plan["params"],
                                "rtol": plan["rtol"], "atol": plan["atol"]}
    path = workdir / DIFFERENTIAL_REPORT
    if not path.is_file():
        return Obligation(name=name, category=DIFFERENTIAL, outcome=Outcome.UNKNOWN, evidence=evidence,
                          message=f"the comparison with the library's {library} did not finish: {result.summary()}")
    facts = json.loads(path.read_text())
    evidence["facts"] = facts
    status = facts.get("status")
    if status == "compared":
        outcome, message = _all_compared(plan["role"], facts["comparisons"], library)
    elif status == "not_lined_up":
        missing = [*facts.get("unbound", []), *(f"{n} ({source})" for n, source in facts.get("foreign", {}).items())]
        outcome, message = Outcome.NOT_APPLICABLE, (f"its inputs do not line up with the library's {library}: "
                                                    f"{', '.join(missing)}: not among the library's inputs")
    elif status in NOT_COMPARED:
        outcome, text = NOT_COMPARED[status]
        message = text.format(error=str(facts.get("error", ""))[:300])
    else:
        outcome, message = Outcome.UNKNOWN, f"an unreadable comparison report (status {status!r})"
    return Obligation(name=name, category=DIFFERENTIAL, outcome=outcome, message=message, evidence=evidence)
