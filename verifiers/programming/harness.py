"""Code that runs inside the sandbox: unit tests of element functions and instrumented execution.

Both write a JSON report that the verifier (outside the sandbox) turns into obligations; nothing here
decides an outcome that the parent does not re-derive from recorded facts.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
import time
import traceback
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from physvec.verifiers.finite import non_finite_paths
from physvec.verifiers.programming.properties import hermiticity_problem

_SYNTHETIC = {int: 4, float: 1.0, bool: True, complex: 1.0 + 0.0j}
SCRIPT_MODULE = "physvec_script_under_test"


def _type_name(value: Any) -> str:
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"


def conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` is compatible with the type hint; hints we cannot judge count as compatible."""
    import numpy as np

    if hint is Any or hint is object or isinstance(hint, typing.TypeVar):
        return True
    if hint is None or hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if hint is complex:
        return isinstance(value, (int, float, complex, np.number)) and not isinstance(value, bool)
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, argument) for argument in arguments)
    if origin is typing.Literal:
        return value in arguments
    if origin in (list, set, frozenset):
        return isinstance(value, origin) and (not arguments or all(conforms(item, arguments[0]) for item in value))
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if not arguments or (len(arguments) == 2 and arguments[1] is Ellipsis):
            return not arguments or all(conforms(item, arguments[0]) for item in value)
        return len(value) == len(arguments) and all(conforms(v, a) for v, a in zip(value, arguments))
    if origin is dict:
        return isinstance(value, dict) and (not arguments or all(
            conforms(k, arguments[0]) and conforms(v, arguments[1]) for k, v in value.items()))
    if origin is not None:
        return isinstance(value, origin) if isinstance(origin, type) else True
    return isinstance(value, hint) if isinstance(hint, type) else True


def _synthesise(name: str, hint: Any) -> tuple[bool, Any]:
    if hint in _SYNTHETIC:
        return True, _SYNTHETIC[hint]
    if hint is str and any(word in name.lower() for word in ("path", "file", "name")):
        return True, f"unit_test_{name}.png"
    if typing.get_origin(hint) is list and typing.get_args(hint) and typing.get_args(hint)[0] in _SYNTHETIC:
        return True, [_SYNTHETIC[typing.get_args(hint)[0]] * (i + 1) for i in range(3)]
    return False, None


def _fits(value: Any, hint: Any) -> bool:
    """A value bound by name must also fit the parameter's annotation (when it is a class)."""
    return not isinstance(hint, type) or conforms(value, hint)


def bind_arguments(function: Callable[..., Any], namespace: dict[str, Any], script_params: dict[str, Any]
                   ) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """Arguments for ``function``: by name from the pipeline, then the script's PARAMS, then by type.

    Returns the arguments, where each came from, and the parameters that could not be bound.
    """
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # an annotation that does not evaluate binds by name only
        hints = {}
    arguments, sources, unbound = {}, {}, []
    produced = [(key, value) for key, value in reversed(namespace.items()) if not key.startswith("_param:")]
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        hint = hints.get(name, Any)
        if name in namespace and _fits(namespace[name], hint):
            arguments[name], sources[name] = namespace[name], "background pipeline"
        elif name in script_params:
            arguments[name], sources[name] = script_params[name], "script PARAMS"
        elif isinstance(hint, type) and hint not in _SYNTHETIC and hint is not str and (
                match := next((key for key, value in produced if isinstance(value, hint)), None)) is not None:
            arguments[name], sources[name] = namespace[match], f"background output {match!r} by type"
        elif parameter.default is not parameter.empty:
            sources[name] = "default"
        else:
            ok, value = _synthesise(name, hint)
            if ok:
                arguments[name], sources[name] = value, "synthesised from the annotation"
            else:
                unbound.append(name)
    return arguments, sources, unbound


def _failure(phase: str, error: BaseException, started: float, **extra: Any) -> dict[str, Any]:
    return {"status": "failed" if phase == "call" else "environment_error", "phase": phase,
            "error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()[-6000:],
            "line": _script_line(error), "seconds": round(time.monotonic() - started, 3), **extra}


def _script_line(error: BaseException) -> int | None:
    """The deepest traceback line inside the unit-test program (it keeps the script's line numbers)."""
    program = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
             if program is not None and Path(frame.filename).resolve() == program]
    return lines[-1] if lines else None


def run_unit_test(function: Callable[..., Any], role: str, backend: str, script_params: dict[str, Any],
                  report: str = "unit_report.json",
                  glue: Callable[[dict[str, Any]], dict[str, Any]] | None = None, pipeline: str | None = None,
                  differential: dict[str, Any] | None = None) -> None:
    """Run ``function`` in place of the background step of its role and write the judgement's facts.

    Only the steps before its role run: they make its inputs.  Whether later functions can consume
    its output is an interface question that the integration levels answer.  ``glue`` (written by a
    model when the background cannot make an input) adds values to the namespace; it never replaces
    the function under test.  ``pipeline`` names the background to use instead of the one sharing most
    of the script's PARAMS.  ``differential`` (a plan of differential.py) adds the differential test: the
    library function of the same role runs before anything of the script does, the script's function after
    the unit test, on the same inputs (differential_run).
    """
    prepared = None
    if differential is not None:
        from physvec.verifiers.programming.differential_run import prepare

        _mark_phase("differential-library")
        prepared = prepare(differential)
    _unit_test(function, role, backend, script_params, report, glue, pipeline)
    if prepared is not None:
        from physvec.verifiers.programming.differential_run import finish

        _mark_phase("differential")
        finish(function, prepared)


def _unit_test(function: Callable[..., Any], role: str, backend: str, script_params: dict[str, Any], report: str,
               glue: Callable[[dict[str, Any]], dict[str, Any]] | None, pipeline: str | None) -> None:
    from physvec.verifiers.library import best_pipeline, call_with_namespace, pipeline_named

    started = time.monotonic()
    background = pipeline_named(backend, pipeline) if pipeline else best_pipeline(backend, script_params)
    namespace: dict[str, Any] = dict(background.params) if background else {}
    steps = list(background.steps) if background else []
    position = next((i for i, step in enumerate(steps) if step.role == role), len(steps))
    result: dict[str, Any] = {"role_in_background": position < len(steps),
                              "background": background.name if background else None}
    _mark_phase("upstream")
    try:
        arguments, sources, unbound = bind_arguments(function, namespace, script_params)
        # the steps before the role make its inputs; a role the background lacks gets steps only until it binds
        for step in steps[:position]:
            if position == len(steps) and not unbound:
                break
            namespace[step.output] = call_with_namespace(step.function, namespace)
            arguments, sources, unbound = bind_arguments(function, namespace, script_params)
        if "results" in unbound and background is not None:  # a plot_ function of a run_ function's results
            namespace["results"] = background.results(namespace)
            arguments, sources, unbound = bind_arguments(function, namespace, script_params)
        if glue is not None:
            namespace.update(glue(dict(namespace)))
            arguments, sources, unbound = bind_arguments(function, namespace, script_params)
    except Exception as error:
        _write(report, _failure("upstream", error, started))
        return
    result["bound"] = sources
    if unbound:
        _write(report, {**result, "status": "unbound", "unbound": unbound,
                        "namespace": {key: _type_name(value) for key, value in namespace.items()},
                        "seconds": round(time.monotonic() - started, 3)})
        return
    _mark_phase("call")
    try:
        value = function(**arguments)
    except Exception as error:
        _write(report, {**result, **_failure("call", error, started)})
        return
    _mark_phase("checks")
    result.update(status="passed", return_type=_type_name(value))
    try:
        hint = typing.get_type_hints(function).get("return", Any)
        result["annotation"] = hint.__name__ if isinstance(hint, type) else repr(hint)
        if not conforms(value, hint):
            result.update(status="failed", phase="annotation",
                          error=f"returned {_type_name(value)}, which contradicts the annotation {hint!r}")
    except Exception as error:
        result["annotation_note"] = f"return annotation not evaluable: {error}"
    bad = non_finite_paths(value, "return value")
    if result["status"] == "passed" and bad:
        result.update(status="failed", phase="finite", error=f"non-finite numbers at {', '.join(bad[:5])}")
    if result["status"] == "passed" and role == "hamiltonian" and (problem := hermiticity_problem(value)):
        result.update(status="failed", phase="hermiticity", error=problem)
    result["seconds"] = round(time.monotonic() - started, 3)
    _write(report, result)


PHASE_FILE = "unit_phase.txt"


def _mark_phase(phase: str) -> None:
    """Where the unit test is, for the verifier to read if the program dies without a report."""
    Path(PHASE_FILE).write_text(phase)


def _jsonable(value: Any) -> Any:
    import numpy as np

    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value).tolist()
    return str(value)


def _write(path: str, data: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(data, default=str))


def _load_script(script: str) -> types.ModuleType:
    """Import the script file, unmodified, as a module (its ``if __name__ == "__main__"`` stays idle)."""
    spec = importlib.util.spec_from_file_location(SCRIPT_MODULE, script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[SCRIPT_MODULE] = module
    spec.loader.exec_module(module)
    return module


class _Recorder:
    """Wraps a script's element and run_ functions to record every element call of every run_ call."""

    def __init__(self) -> None:
        self.active_run: str | None = None
        self.depth = 0
        self.calls: dict[str, list[dict[str, Any]]] = {}
        self.run_outcomes: dict[str, dict[str, Any]] = {}
        self.producers: dict[int, tuple[int, str]] = {}
        self._produced = 0
        self._kept: list[Any] = []

    def run_wrapper(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            outer, self.active_run = self.active_run, name
            self.calls.setdefault(name, [])
            try:
                value = function(*args, **kwargs)
            except Exception as error:
                self.run_outcomes[name] = {"ok": False, "error": f"{type(error).__name__}: {error}",
                                           "traceback": traceback.format_exc()[-6000:]}
                raise
            finally:
                self.active_run = outer
            self.run_outcomes.setdefault(name, {"ok": True})
            return value

        return wrapped

    def element_wrapper(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if self.active_run is None or self.depth > 0:
                return function(*args, **kwargs)
            inputs = sorted(p for p in (self.producers.get(id(v)) for v in (*args, *kwargs.values())) if p)
            # producers of this call's inputs, earliest first: the last is the nearest upstream function
            record: dict[str, Any] = {"function": name, "inputs_from": [producer for _, producer in inputs]}
            self.calls[self.active_run].append(record)
            self.depth += 1
            started = time.monotonic()
            try:
                value = function(*args, **kwargs)
            except Exception as error:
                record.update(ok=False, error=f"{type(error).__name__}: {error}",
                              traceback=traceback.format_exc()[-6000:], seconds=round(time.monotonic() - started, 3))
                raise
            finally:
                self.depth -= 1
            record.update(ok=True, output_type=_type_name(value), seconds=round(time.monotonic() - started, 3))
            self._produced += 1
            self.producers[id(value)] = (self._produced, name)
            self._kept.append(value)  # keeps ids unique while the run lasts
            return value

        return wrapped


def run_instrumented(script: str, report: str = "integration_report.json", entry_points: list[str] | None = None
                     ) -> None:
    """Execute the script's main() once with every element call recorded (and, given ``entry_points``, every
    call of the demanded method's backend entry points: method_trace); then any run_ function that main did not
    call, with **PARAMS.  The script file itself is executed unmodified."""
    from physvec.verifiers.programming.contract import RUN_PREFIX, element_role
    from physvec.verifiers.programming.method_trace import watch_entry_points

    started = time.monotonic()
    recorder = _Recorder()
    result: dict[str, Any] = {"main": None, "extra_runs": {}}
    phase = {"phase": "main"}
    if entry_points:  # each method call records the phase, the run_ function and the element function active
        result["method_calls"] = watch_entry_points(entry_points, lambda: {**phase, "run": (run := recorder.active_run),
            "element": recorder.calls[run][-1]["function"] if run and recorder.depth else None}, SCRIPT_MODULE)
    try:
        module = _load_script(script)
    except BaseException as error:
        result["main"] = {"ok": False, "phase": "import", "error": f"{type(error).__name__}: {error}",
                          "traceback": traceback.format_exc()[-6000:]}
        _finish(report, result, recorder, started)
        return
    for name, value in list(vars(module).items()):
        if not callable(value) or getattr(value, "__module__", None) != SCRIPT_MODULE:
            continue
        if element_role(name):
            setattr(module, name, recorder.element_wrapper(name, value))
        elif name.startswith(RUN_PREFIX):
            setattr(module, name, recorder.run_wrapper(name, value))
    result["main"] = _attempt(lambda: module.main())
    params = getattr(module, "PARAMS", {})
    for name in [n for n in vars(module) if n.startswith(RUN_PREFIX) and n not in recorder.calls]:
        phase["phase"] = f"extra:{name}"
        result["extra_runs"][name] = _attempt(lambda: getattr(module, name)(**params))
    _finish(report, result, recorder, started)


def _attempt(action: Callable[[], Any]) -> dict[str, Any]:
    try:
        action()
    except SystemExit as error:
        if error.code in (0, None):
            return {"ok": True}
        return {"ok": False, "error": f"SystemExit: {error.code}", "traceback": traceback.format_exc()[-6000:]}
    except Exception as error:
        return {"ok": False, "error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()[-6000:]}
    return {"ok": True}


def _finish(report: str, result: dict[str, Any], recorder: _Recorder, started: float) -> None:
    result["calls"] = recorder.calls
    result["run_outcomes"] = recorder.run_outcomes
    result["seconds"] = round(time.monotonic() - started, 3)
    _write(report, result)
    if not result["main"]["ok"]:
        print(result["main"]["traceback"], file=sys.stderr)
        sys.exit(1)


class _LevelReached(Exception):
    """Raised after the k-th element call of the measured run_ function: level k is done."""


def run_until_level(script: str, run: str, level: int) -> None:
    """Execute the script's main() only up to the ``level``-th element call of ``run`` (the naive,
    one-execution-per-level integration strategy that the benchmark compares against)."""
    from physvec.verifiers.programming.contract import element_role

    module = _load_script(script)
    state = {"active": False, "calls": 0}

    def element(function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            value = function(*args, **kwargs)
            if state["active"]:
                state["calls"] += 1
                if state["calls"] >= level:
                    raise _LevelReached
            return value
        return wrapped

    def entered(function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            state["active"] = True
            return function(*args, **kwargs)
        return wrapped

    for name, value in list(vars(module).items()):
        if callable(value) and getattr(value, "__module__", None) == SCRIPT_MODULE and element_role(name):
            setattr(module, name, element(value))
    setattr(module, run, entered(getattr(module, run)))
    try:
        module.main()
    except _LevelReached:
        pass


def run_with_overrides(script: str, run: str, overrides: dict[str, Any], observables: list[str],
                       report: str = "observed.json") -> None:
    """Call the script's own, unmodified ``run`` once with PARAMS updated by ``overrides`` and record every
    observable at its key path (the whole result for an empty path): assertions, convergence ladders and
    metamorphic checks that ask the same call share one run; nothing is compared here."""
    import numpy as np

    from physvec.taskfiles.keypaths import lookup

    started = time.monotonic()
    try:
        module = _load_script(script)
        results = getattr(module, run)(**{**module.PARAMS, **overrides})
        values, errors = {}, {}
        for observable in observables:
            try:
                value = lookup(results, observable) if observable else results
            except Exception as error:
                errors[observable] = f"{type(error).__name__}: {error}"
                continue
            value = np.asarray(value).tolist() if isinstance(value, (np.ndarray, np.generic)) else value
            values[observable] = json.loads(json.dumps(value, default=_jsonable))
        outcome = {"ok": True, "values": values, "errors": errors}
    except Exception as error:
        outcome = {"ok": False, "error": f"{type(error).__name__}: {error}",
                   "traceback": traceback.format_exc()[-4000:], "raised_in_script": _raised_in(error, script)}
    outcome["seconds"] = round(time.monotonic() - started, 3)
    _write(report, outcome)


def _raised_in(error: BaseException, script: str) -> bool:
    """Whether the innermost frame of the raise is the script's own code: a library refusing a value (TeNPy's
    truncation limit at a tiny bond dimension) is not the script's doing, a ``raise`` the script wrote is."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and Path(frames[-1].filename).resolve() == Path(script).resolve()
