"""The differential unit test inside the sandbox: the library function and the script's on the same inputs.

It runs in the unit-test program of the script's function (unit_tests.py, harness.run_unit_test), in two
parts around the ordinary unit test, so that the library's side is computed before any of the script's code
runs (only its imports and definitions have):

1. ``prepare``: the plan's library pipeline (differential.py chose it from the task's spec, with its
   parameters) runs the steps before the trusted function; the trusted function runs on deep copies of its
   inputs and its output is brought to canonical form (differential_forms.py).  An observable is evaluated on
   two fixed states where the pipeline has both: the one its effector starts from (a snapshot taken before
   the effector runs, when the observable's inputs exist then: TeNPy's product states) and the one it ends
   with.  A ground state can be too symmetric to tell observables apart (the Heisenberg chain's <S^z_i> are
   all zero, so twice them is too); the product state it starts from is not.
2. ``finish``: the script's function is bound to the same namespace; every argument it needs must come from
   there (by name or by type); one it would take from the script's PARAMS or from a synthesised value means
   the inputs do not line up, and nothing is compared.  Its output is brought to canonical form and the two
   are compared, once per set of inputs; the facts go to DIFFERENTIAL_REPORT for the verifier to judge.
"""

from __future__ import annotations

import copy
import inspect
import json
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from physvec.verifiers.programming.differential_forms import FORMS, Form, Incomparable, compare, type_name

DIFFERENTIAL_REPORT = "differential_report.json"
LINED_UP = ("background pipeline", "default")
"""Where a script argument may come from for the inputs to be the library's (and a background output by type)."""


@dataclass
class Prepared:
    """The library's side of one comparison: each set of inputs it ran on with its canonical output, or why not."""

    plan: dict[str, Any]
    inputs: list[tuple[str, dict[str, Any], Form]] = field(default_factory=list)
    """(which inputs, the namespace, the library's output in canonical form) per set of inputs"""
    failure: dict[str, Any] | None = None
    seconds: float = 0.0


def _copied(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception:  # an object that cannot be copied is shared (the trusted function runs first)
        return value


def _namespaces(plan: dict[str, Any]) -> tuple[Any, list[tuple[str, dict[str, Any]]]]:
    """The trusted function and the namespaces it runs in: the pipeline's, up to the trusted step; for an
    observable also a copy taken before the first effector, where the observable's inputs exist then."""
    from physvec.verifiers.library import call_with_namespace, pipeline_named

    pipeline = pipeline_named(plan["backend"], plan["pipeline"])
    position = next(i for i, step in enumerate(pipeline.steps)
                    if step.function.__name__ == plan["trusted"] and step.output == plan["output"])
    trusted = pipeline.steps[position].function
    needed = list(inspect.signature(trusted).parameters)
    namespace, found = {**pipeline.params, **plan["params"]}, []
    for step in pipeline.steps[:position]:
        if step.role == "effector" and plan["role"] == "observable" and not found \
                and all(name in namespace for name in needed):
            found.append((f"the state before {step.function.__name__}", {k: _copied(v) for k, v in namespace.items()}))
        namespace[step.output] = call_with_namespace(step.function, namespace)
    label = "the pipeline's state" if plan["role"] == "observable" else "the pipeline's inputs"
    return trusted, [*found, (label, namespace)]


def prepare(plan: dict[str, Any]) -> Prepared:
    """Run the library's pipeline up to the trusted function, and the trusted function on copies of its inputs."""
    from physvec.verifiers.library import call_with_namespace

    started = time.monotonic()
    prepared = Prepared(plan)
    try:
        trusted, namespaces = _namespaces(plan)
        for label, namespace in namespaces:
            value = call_with_namespace(trusted, {name: _copied(item) for name, item in namespace.items()})
            prepared.inputs.append((label, namespace, FORMS[plan["role"]](value)))
    except Incomparable as error:
        prepared.failure = {"status": "library_incomparable", "error": str(error)}
    except Exception as error:
        prepared.failure = {"status": "library_error", "error": f"{type(error).__name__}: {error}",
                            "traceback": traceback.format_exc()[-4000:]}
    prepared.seconds = time.monotonic() - started
    return prepared


def _lined_up(source: str) -> bool:
    return source in LINED_UP or source.startswith("background output")


def _facts(function: Any, prepared: Prepared) -> dict[str, Any]:
    from physvec.verifiers.programming.harness import bind_arguments

    if prepared.failure is not None:
        return prepared.failure
    plan, comparisons = prepared.plan, []
    facts: dict[str, Any] = {}
    for label, namespace, library in prepared.inputs:
        arguments, sources, unbound = bind_arguments(function, namespace, {})
        foreign = {name: source for name, source in sources.items() if not _lined_up(source)}
        facts["bound"] = sources
        if unbound or foreign:
            return {**facts, "status": "not_lined_up", "unbound": unbound, "foreign": foreign}
        try:
            value = function(**arguments)
        except Exception as error:
            return {**facts, "status": "script_raised", "inputs": label, "error": f"{type(error).__name__}: {error}",
                    "traceback": traceback.format_exc()[-4000:]}
        try:
            script = FORMS[plan["role"]](value)
        except Exception as error:
            text = str(error) if isinstance(error, Incomparable) else f"{type(error).__name__}: {error}"
            return {**facts, "status": "script_incomparable", "error": text, "return_type": type_name(value)}
        comparisons.append({"inputs": label, **compare(script, library, plan["rtol"], plan["atol"])})
    return {**facts, "status": "compared", "comparisons": comparisons}


def finish(function: Any, prepared: Prepared, report: str = DIFFERENTIAL_REPORT) -> None:
    """Run the script's function on the library's inputs, compare, and write the facts."""
    started = time.monotonic()
    try:
        facts = _facts(function, prepared)
    except Exception as error:  # the comparison itself failed: no verdict either way
        facts = {"status": "comparison_error", "error": f"{type(error).__name__}: {error}",
                 "traceback": traceback.format_exc()[-4000:]}
    facts["seconds"] = round(prepared.seconds + time.monotonic() - started, 3)
    Path(report).write_text(json.dumps(facts, default=str))
