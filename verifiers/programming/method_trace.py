"""Inside the sandbox: which of the demanded method's library calls ran, how each ended, and what it ran.

The instrumented execution (harness.run_instrumented) wraps the method's entry points, named
``module:attribute``, before the script is loaded, so a script that imports them by name gets the wrapped
ones.  Each call becomes an event with facts only (methods.method_obligation decides):
- where it happened: the execution's phase (``main``, or ``extra:<run_>`` for a run_ function the harness
  called itself with PARAMS), the run_ function and the element function active at the time;
- how it ended: ``returned`` or ``raised`` (with the exception's type and message), and its order in the
  program (``first``/``last``), from which the parent tells a swallowed exception (the program went on)
  from one that ended the run;
- what it was given: an evolution synthesis' class (a product formula's ``synthesize``), and for every
  circuit among its arguments the operations a state-vector simulator applies to it (qiskit's Statevector
  takes a gate's own matrix before its definition: a PauliEvolutionGate left whole is exponentiated exactly,
  whatever its synthesis), whole evolutions of non-commuting terms, arbitrary-matrix gates and states given
  as numbers among them; the dimension of a square matrix argument (scipy's expm, Statevector.evolve of an
  Operator); a returned circuit's operations.
Only the outermost watched call is recorded (a library calling its own entry points is its own business), and
an entry point named ``module:attribute@script`` only when the script's own code calls it (qiskit's transpiler
takes matrices of gates it optimises; a script's own expm is what matters).

What this does not establish: that the returned object reached the run_ function's results (only that the
call ended normally inside the run_ function's extent and which element function held it); the script runs
in this process and could, with effort, reach these records.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import sys
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCRIPT_ONLY = "@script"
MAX_EVENTS = 500
"""Distinct events kept; past it the trace counts the ones it dropped (and the method obligation fails)."""
NON_UNITARY = ("barrier", "measure", "reset", "delay")
_DEFINITION_DEPTH = 12
_ORIGINALS: dict[Callable[..., Any], Callable[..., Any]] = {}
"""Our own wrappers and what they wrap (a wrapped qiskit method is still qiskit's; ``__wrapped__`` anyone can set)."""


def _terms_commute(operator: Any) -> bool:
    """Whether every two Pauli terms of a PauliEvolutionGate's operator commute (then its exact exponential is a
    product of exact Pauli rotations: a product formula's factor, not the evolution under a non-commuting sum)."""
    import numpy as np
    from qiskit.quantum_info import SparseObservable, SparsePauliOp

    parts = operator if isinstance(operator, list) else [operator]
    parts = [SparsePauliOp.from_sparse_observable(p) if isinstance(p, SparseObservable) else p for p in parts]
    paulis = sum(parts[1:], start=parts[0]).simplify().paulis
    x, z = paulis.x.astype(np.int64), paulis.z.astype(np.int64)
    return bool(np.all((x @ z.T + z @ x.T) % 2 == 0))


@functools.lru_cache(maxsize=None)
def _own_matrix(kind: type) -> bool:
    """Whether code outside qiskit gives a gate class its matrix (``__array__`` or ``to_matrix`` of a class in
    its MRO, written in a file outside qiskit's package): the simulator applies that matrix, not a definition."""
    import qiskit

    home = str(Path(qiskit.__file__).parent)
    methods = [_ORIGINALS.get(vars(k)[name], vars(k)[name])
               for k in kind.__mro__ for name in ("__array__", "to_matrix") if name in vars(k)]
    return any(not getattr(getattr(m, "__code__", None), "co_filename", home).startswith(home) for m in methods)


def circuit_facts(circuit: Any) -> dict[str, Any]:
    """The operations a state-vector simulator applies for ``circuit`` (a QuantumCircuit or an instruction):
    gate names with counts, and the findings that are not gates of a product formula."""
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import (HamiltonianGate, Initialize, Isometry, PauliEvolutionGate, StatePreparation,
                                        UCGate, UnitaryGate)

    ops: Counter[str] = Counter()
    findings: Counter[str] = Counter()

    def visit(operation: Any, depth: int) -> None:
        name, kind, qubits = operation.name, type(operation).__name__, operation.num_qubits
        ops[name] += 1
        if _own_matrix(type(operation)):
            findings[json.dumps({"kind": "matrix_gate", "gate": name, "class": kind, "qubits": qubits})] += 1
            return
        if isinstance(operation, PauliEvolutionGate):
            try:
                commuting = _terms_commute(operation.operator)
            except Exception:  # an operator we cannot read counts as the worst case
                commuting = False
            if not commuting:
                findings[json.dumps({"kind": "whole_evolution", "gate": name, "qubits": qubits,
                                     "synthesis": type(operation.synthesis).__name__})] += 1
            return
        if name in NON_UNITARY or name.startswith("save_"):
            return
        if getattr(operation, "_standard_gate", None) is not None:
            return
        if isinstance(operation, (StatePreparation, Initialize)):
            if qubits > 1 and len(operation.params) > 1 and not all(isinstance(p, str) for p in operation.params):
                findings[json.dumps({"kind": "prepared_state", "gate": name, "qubits": qubits})] += 1
            return  # a basis state (a label or an integer) is what gates would prepare
        if isinstance(operation, (UnitaryGate, HamiltonianGate, Isometry, UCGate)):
            findings[json.dumps({"kind": "matrix_gate", "gate": name, "class": kind, "qubits": qubits})] += 1
            return
        if hasattr(operation, "__array__"):
            return  # qiskit's own fixed gates with a matrix (PauliGate, multi-controlled X, ...)
        if depth < _DEFINITION_DEPTH and isinstance(definition := operation.definition, QuantumCircuit):
            ops[name] -= 1
            for instruction in definition.data:
                visit(instruction.operation, depth + 1)

    if isinstance(circuit, QuantumCircuit):
        for instruction in circuit.data:
            visit(instruction.operation, 0)
    else:
        visit(circuit, 0)
    return {"qubits": circuit.num_qubits, "ops": {k: v for k, v in sorted(ops.items()) if v > 0},
            "findings": [{**json.loads(key), "count": count} for key, count in sorted(findings.items())]}


def _circuits(value: Any, depth: int = 0) -> list[Any]:
    """Circuits among an argument: itself, inside lists and tuples (a primitive's pubs), or a pub's ``circuit``."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import Instruction

    if isinstance(value, (QuantumCircuit, Instruction)):
        return [value]
    if isinstance(getattr(value, "circuit", None), QuantumCircuit):
        return [value.circuit]
    if isinstance(value, (list, tuple)) and depth < 2:
        return [circuit for item in value[:1000] for circuit in _circuits(item, depth + 1)]
    return []


def _matrix_dim(value: Any) -> int | None:
    """The dimension of a square matrix argument (numpy, scipy sparse, qiskit Operator), else None."""
    import numpy as np

    shape = None
    if isinstance(value, np.ndarray) or (hasattr(value, "tocsr") and hasattr(value, "shape")):
        shape = value.shape
    elif type(value).__name__ == "Operator":
        try:
            shape = value.data.shape
        except Exception:  # an Operator still being built (its own __init__)
            return None
    return int(shape[0]) if shape is not None and len(shape) == 2 and shape[0] == shape[1] > 1 else None


def call_facts(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """What a watched call was given (see the module docstring); nothing for libraries other than qiskit."""
    facts: dict[str, Any] = {}
    values = [*args, *kwargs.values()]
    if dims := [dim for dim in map(_matrix_dim, values) if dim is not None]:
        facts["matrices"] = dims
    if "qiskit" not in sys.modules:
        return facts
    from qiskit.synthesis.evolution.evolution_synthesis import EvolutionSynthesis

    for value in values:
        if isinstance(value, EvolutionSynthesis):
            facts["synthesis"] = {"class": f"{type(value).__module__}.{type(value).__qualname__}",
                                  "reps": getattr(value, "reps", None), "order": getattr(value, "order", None)}
    circuits = [circuit_facts(circuit) for value in values for circuit in _circuits(value)]
    if circuits:
        facts["circuits"] = circuits
    if states := [value.num_qubits for value in values if type(value).__name__ in ("Statevector", "DensityMatrix")]:
        facts["state_qubits"] = max(n or 0 for n in states)  # the register a matrix evolves
    return facts


class MethodTrace:
    """The live record of the watched calls (``facts``, written into the execution's report as it stands)."""

    def __init__(self, context: Callable[[], dict[str, Any]], script_module: str) -> None:
        self.facts: dict[str, Any] = {"watched": [], "missing": [], "called": [], "events": [], "dropped": 0}
        self._context = context
        self._script_module = script_module
        self._depth = 0
        self._order = 0
        self._events: dict[str, dict[str, Any]] = {}

    def wrap(self, entry: str, original: Callable[..., Any], script_only: bool) -> Callable[..., Any]:
        @functools.wraps(original)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if self._depth > 0 or (script_only and not self._called_by_script()):
                return original(*args, **kwargs)
            self._depth += 1
            try:
                return self._record(entry, original, args, kwargs)
            finally:
                self._depth -= 1

        _ORIGINALS[wrapped] = original
        return wrapped

    def _called_by_script(self) -> bool:
        frame = sys._getframe(2)  # 0: here, 1: the wrapper, 2: its caller
        return frame.f_globals.get("__name__") == self._script_module

    def _record(self, entry: str, original: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self._order += 1
        order = self._order
        if entry not in self.facts["called"]:
            self.facts["called"].append(entry)
        try:
            context, facts = self._context(), call_facts(args, kwargs)
        except Exception as error:  # a fact we cannot take is recorded as such, never hidden
            context, facts = {}, {"uninspectable": f"{type(error).__name__}: {error}"}
        try:
            value = original(*args, **kwargs)
        except BaseException as error:
            self._add(entry, order, context, facts, {"outcome": "raised", "error": type(error).__name__,
                                                     "message": str(error)[:300],
                                                     "traceback": traceback.format_exc()[-2000:]})
            raise
        if type(value).__name__ == "QuantumCircuit":
            try:
                facts["returned"] = circuit_facts(value)
            except Exception as error:
                facts["returned"] = {"uninspectable": f"{type(error).__name__}: {error}"}
        self._add(entry, order, context, facts, {"outcome": "returned"})
        return value

    def _add(self, entry: str, order: int, context: dict[str, Any], facts: dict[str, Any], ending: dict[str, Any]
             ) -> None:
        event = {"entry": entry, **context, **ending, **facts}
        key = json.dumps({k: v for k, v in event.items() if k not in ("message", "traceback")}, sort_keys=True,
                         default=str)
        if key in self._events:
            self._events[key]["count"] += 1
            self._events[key]["last"] = order
        elif len(self._events) < MAX_EVENTS:
            self._events[key] = {**event, "count": 1, "first": order, "last": order}
            self.facts["events"].append(self._events[key])
        else:
            self.facts["dropped"] += 1


def watch_entry_points(entry_points: list[str], context: Callable[[], dict[str, Any]], script_module: str
                       ) -> dict[str, Any]:
    """Wrap each ``module:attribute`` (``@script``: only calls from the script's code) and return the live facts:
    ``watched``, ``missing`` (not importable here), ``called`` (entered), ``events`` and ``dropped``."""
    trace = MethodTrace(context, script_module)
    for entry in entry_points:
        name, script_only = entry.removesuffix(SCRIPT_ONLY), entry.endswith(SCRIPT_ONLY)
        module_name, _, path = name.partition(":")
        try:
            owner: Any = importlib.import_module(module_name)
            *parents, attribute = path.split(".")
            for part in parents:
                owner = getattr(owner, part)
            raw = inspect.getattr_static(owner, attribute)
        except (ImportError, AttributeError):
            trace.facts["missing"].append(entry)
            continue
        if isinstance(raw, (classmethod, staticmethod)):
            wrapped: Any = type(raw)(trace.wrap(entry, raw.__func__, script_only))
        else:
            wrapped = trace.wrap(entry, getattr(owner, attribute), script_only)
        setattr(owner, attribute, wrapped)
        trace.facts["watched"].append(entry)
    return trace.facts
