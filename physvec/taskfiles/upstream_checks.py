"""Upstream prose checks turned into code checks, deterministically (no model is involved).

The published benchmark states its checks in words: ``{content, truth}`` items under ``LimitingCases``
and ``ScientificResults``, ``{content, parameter, criteria}`` under ``ConvergenceCases``.  This module
reads them with fixed patterns:

- ``name=value`` pairs in ``content`` are parameter overrides (``L=2``, ``\\theta= -pi/4``,
  ``Nup=Ndown=3``, ``\\tan(\\theta) = 1/3``); LaTeX names lose their backslash, primes become ``_prime``
  and ``<n>`` becomes ``n_mean``.  A pair whose value is a list (``t = 0.5, 1``) or that names a distance
  (``r=2``) is an argument of the observable, not of the system.
- ``truth`` gives the tolerance (``relative``/``absolute error tolerance is +/- x``; a relative tolerance
  around an expected zero gets the same number as an absolute floor) and the expected value(s): a
  number, a list, ``both N`` (two equal counts), ``constantly X`` at each time point; "spatially
  symmetric" is a reflection symmetry.
- The total ground-state energy is read from the ``energy`` key of the task's interface function
  (``run_figure``); any other observable is computed by a model-written adapter from the script's own
  functions (verifiers/scientific/adapters.py), told in the content's words, which never carry the
  expected value.
- ``ConvergenceCases`` name their parameter in parentheses (``(nsweeps)``) and a tolerance in
  ``criteria``; the ladder climbs that parameter's default rungs.

What does not parse stays prose and is listed with the reason.  Expected values live only in the
assertions, which no prompt shows.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from physvec.taskfiles.assertions import Assertion
from physvec.taskfiles.physvec_shape import PhysvecPaperTask, ProseCheck, ProseConvergence, clean_text
from physvec.taskfiles.task import ConvergenceCase

RUN_FUNCTION = "run_figure"
ENERGY_KEY = "energy"
ADAPTER_KEY = "value"
DEFAULT_LADDERS: dict[str, list[float]] = {
    "nsweeps": [5, 10, 20, 40], "sweeps": [5, 10, 20, 40], "maxdim": [50, 100, 200, 400],
    "chi_max": [50, 100, 200, 400], "n_iter": [100, 200, 400], "n_samples": [512, 1024, 2048], "steps": [25, 50, 100],
}
"""Rungs for a convergence parameter upstream names without values (the prose says 'increase adaptively')."""
OBSERVABLE_ARGUMENTS = frozenset({"r", "Jt"})
"""Names that parameterise the observable (a distance, a time), not the system."""

_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_VALUE = rf"(?:{_NUMBER}\s*(?:\\?pi)?|-?\\?pi)(?:\s*/\s*\d+(?:\.\d+)?)?(?![A-Za-z_\\^])"
"""A number, a fraction or a multiple of pi, not followed by a symbol (``4A/L^2`` is a formula, not 4)."""
_NAME = r"\\tan\(\\?[A-Za-z]+\)|<\s*n\s*>|\\?[A-Za-z][A-Za-z0-9_]*'?"
_PAIR = re.compile(rf"(?P<names>(?:(?:{_NAME})\s*=\s*)+)(?P<value>{_VALUE}(?:\s*,\s*{_VALUE}(?![\w']*\s*=))*)")
_TOLERANCE = re.compile(rf"(relative|absolute) error tolerance is\s*\+/-\s*({_NUMBER})", re.IGNORECASE)
_ASSERTION = TypeAdapter(Assertion)


@dataclass(frozen=True)
class ConversionRow:
    """One upstream check and what became of it."""

    source: str
    prose: str
    derived: str
    reason: str = ""

    @property
    def converted(self) -> bool:
        return not self.derived.startswith("kept as prose")


@dataclass(frozen=True)
class Conversion:
    """Everything derived from one upstream task's prose checks."""

    assertions: tuple[Assertion, ...]
    convergence: tuple[ConvergenceCase, ...]
    rows: tuple[ConversionRow, ...]
    parameters: tuple[str, ...]

    def interface(self, rubric_keys: set[str] = frozenset()) -> str | None:
        """The sentence added to the request so the derived checks can call the script and read PARAMS (the
        rubric's machine checks name keys too); it carries no expected value."""
        if not self.assertions and not self.convergence and not rubric_keys:
            return None
        keys = ", ".join(sorted({*self.parameters, *rubric_keys})) or "the parameters the request names"
        return (f"Interface for physvec's checks: define {RUN_FUNCTION}(**params) that computes the requested system "
                f"from PARAMS and returns a dict with '{ENERGY_KEY}' (the total ground-state energy) and the "
                f"figure's data; PARAMS must hold the keys {keys}.")


class Unreadable(ValueError):
    """A prose check the fixed patterns cannot turn into code; the message is the reason."""


def parse_value(text: str) -> float:
    """``-2``, ``1/3``, ``pi/2``, ``-0.65\\pi`` as a float."""
    text = text.replace("\\pi", "pi").replace(" ", "")
    numerator, _, denominator = text.partition("/")
    if "pi" in numerator:
        factor = numerator.replace("pi", "")
        value = (-1.0 if factor == "-" else float(factor) if factor else 1.0) * math.pi
    else:
        value = float(numerator)
    return value / float(denominator) if denominator else value


def parameter_name(latex: str) -> str:
    """A PARAMS key from a LaTeX or prose name: ``\\theta`` -> theta, ``t'`` -> t_prime, ``<n>`` -> n_mean."""
    name = latex.strip().lstrip("\\")
    if re.fullmatch(r"<\s*n\s*>", name):
        return "n_mean"
    return name.replace("'", "_prime")


_LADDER_SIZE = re.compile(r"length (\d+) along the chain direction and (\d+) along the rung direction")
_QUENCH = re.compile(rf"quenching \\?([A-Za-z][A-Za-z0-9_]*) from ({_VALUE}) to ({_VALUE})")
_SIZE_IN_WORDS = re.compile(r"\b(size|length|sites|spins)\b", re.IGNORECASE)
_SIZE_KEYS = frozenset({"L", "Lx", "Ly", "N", "n_sites"})


def parse_pairs(content: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(system parameters, observable arguments) from the ``name=value`` pairs of a content sentence, the
    ladder size written in words, and a quench ``X from a to b`` (X = a, with b as the argument X_quench)."""
    system: dict[str, Any] = {}
    arguments: dict[str, Any] = {}
    content = re.sub(r"\\langle\s*n\s*\\rangle", "<n>", content)
    ladder = _LADDER_SIZE.search(content)
    if ladder:
        system.update(Ly=int(ladder.group(1)), Lx=int(ladder.group(2)))
    quench = _QUENCH.search(content)
    if quench:
        name = parameter_name(quench.group(1))
        system[name] = parse_value(quench.group(2))
        arguments[f"{name}_quench"] = parse_value(quench.group(3))
    for match in _PAIR.finditer(content):
        values = [parse_value(part) for part in match.group("value").split(",")]
        for raw_name in re.findall(_NAME, match.group("names")):
            function = re.fullmatch(r"\\tan\(\\?([A-Za-z]+)\)", raw_name)
            name = parameter_name(function.group(1) if function else raw_name)
            value: Any = math.atan(values[0]) if function and len(values) == 1 else values
            if len(values) == 1 and not function:
                value = int(values[0]) if values[0].is_integer() and "." not in match.group("value") else values[0]
            target = arguments if len(values) > 1 or name in OBSERVABLE_ARGUMENTS else system
            target[name] = value
    return system, arguments


def parse_tolerance(truth: str, expected: Any) -> dict[str, float]:
    """rtol or atol from the truth's tolerance sentence; a relative tolerance around zero also gets an atol."""
    match = _TOLERANCE.search(truth)
    if match is None:
        raise Unreadable("the truth states no relative or absolute tolerance")
    size = float(match.group(2))
    if match.group(1).lower() == "absolute":
        return {"atol": size}
    values = expected if isinstance(expected, list) else [expected]
    return {"rtol": size, "atol": size} if any(value == 0 for value in values) else {"rtol": size}


def parse_expected(truth: str, arguments: dict[str, Any]) -> Any:
    """The expected value(s) a truth states, or the string "symmetric" for a spatial symmetry."""
    statement = _TOLERANCE.split(truth)[0]
    if "spatially symmetric" in statement:
        return "symmetric"
    claim = re.split(r"\b(?:is|are)\b", statement)[-1] if re.search(r"\b(?:is|are)\b", statement) else ""
    points = max((len(value) for value in arguments.values() if isinstance(value, list)), default=1)
    both = re.match(rf"\s*both\s+({_NUMBER})", claim)
    if both:
        return [float(both.group(1))] * 2
    constant = re.match(rf"\s*constantly\s+({_NUMBER})", claim)
    if constant:
        return [float(constant.group(1))] * points
    numbers = [float(number) for number in re.findall(_NUMBER, claim)]
    if not numbers:
        raise Unreadable("the truth states no number and no symmetry (e.g. 'should be constant')")
    return numbers[0] if len(numbers) == 1 else numbers


def _is_total_energy(content: str, truth: str) -> bool:
    words = f"{content} {truth.split('.')[0]}".lower()
    named = "ground state energy" in words or re.match(r"\s*the energy is", truth.lower()) is not None
    return named and not re.search(r"density|per site|gse/l|ratio|gap|time evolution|measure", words)


def convert_check(check: ProseCheck, source: str) -> tuple[Assertion, str]:
    """The assertion one ``{content, truth}`` becomes, and a one-line description of it."""
    content, truth = clean_text(check.content).strip(), clean_text(check.truth).strip()
    system, arguments = parse_pairs(content)
    if _SIZE_IN_WORDS.search(content) and not _SIZE_KEYS & system.keys():
        raise Unreadable("the content states a system size the patterns cannot read; run at PARAMS it would "
                         "compare a different system")
    expected = parse_expected(truth, arguments)
    kind = "published_value" if source.startswith("ScientificResults") else "limiting_case"
    name = f"upstream {source}"
    common: dict[str, Any] = {"name": name, "run": RUN_FUNCTION, "reference": f"upstream {source}: {truth}"}
    if expected == "symmetric":
        tolerance = parse_tolerance(truth, 1.0)
        data = {**common, **tolerance, "kind": "symmetry", "relation": "reversed", "overrides_a": system,
                "overrides_b": system, "observable": ADAPTER_KEY, "arguments": arguments,
                "adapter": f"{content} Return the values as a list over sites in site order (one entry, or one "
                           f"list of components, per site) under the key '{ADAPTER_KEY}'."}
        described = f"symmetry: reversed site profile at {system or 'PARAMS'} (adapter)"
    elif _is_total_energy(content, truth) and not arguments:
        data = {**common, **parse_tolerance(truth, expected), "kind": kind, "overrides": system,
                "observable": ENERGY_KEY, "expected": expected}
        described = f"{kind}: {ENERGY_KEY} at {system or 'PARAMS'}"
    else:
        shape = "a list" if isinstance(expected, list) else "a number"
        data = {**common, **parse_tolerance(truth, expected), "kind": kind, "overrides": system,
                "observable": ADAPTER_KEY, "expected": expected, "arguments": arguments,
                "adapter": f"{content} Return it as {shape} under the key '{ADAPTER_KEY}'."}
        described = f"{kind}: adapter value at {system or 'PARAMS'}" + (f", arguments {arguments}" if arguments else "")
    try:
        return _ASSERTION.validate_python(data), described
    except ValidationError as error:
        raise Unreadable(f"the derived assertion is invalid: {error.errors()[0]['msg']}") from None


def convert_convergence(case: ProseConvergence) -> tuple[ConvergenceCase, str]:
    """The ladder one ``{content, parameter, criteria}`` becomes."""
    named = re.search(r"\(([A-Za-z_][A-Za-z0-9_]*)\)", case.parameter)
    if named is None:
        raise Unreadable("the parameter sentence names no PARAMS key in parentheses")
    parameter = named.group(1)
    tolerance = re.search(rf"tolerance of\s*({_NUMBER})", case.criteria)
    if tolerance is None:
        raise Unreadable("the criteria state no tolerance")
    ladder = DEFAULT_LADDERS.get(parameter)
    if ladder is None:
        raise Unreadable(f"no default ladder for {parameter!r} (known: {', '.join(sorted(DEFAULT_LADDERS))})")
    converted = ConvergenceCase(parameter=parameter, run=RUN_FUNCTION, ladder=ladder, observable=ENERGY_KEY,
                                tolerance=float(tolerance.group(1)))
    return converted, f"convergence: {parameter} over {ladder}, {ENERGY_KEY} within {converted.tolerance}"


def convert_task(task: PhysvecPaperTask) -> Conversion:
    """Every prose check of an upstream task, converted where the patterns read it."""
    assertions: list[Assertion] = []
    convergence: list[ConvergenceCase] = []
    rows: list[ConversionRow] = []
    limiting = len([c for c in task.LimitingCases if isinstance(c, ProseCheck)]) \
        if isinstance(task.LimitingCases, list) else 0
    for index, check in enumerate(task.prose_checks()):
        source = f"LimitingCases.{index}" if index < limiting else f"ScientificResults.{index - limiting}"
        try:
            assertion, described = convert_check(check, source)
        except Unreadable as reason:
            rows.append(ConversionRow(source, _one_line(check.content), "kept as prose", str(reason)))
            continue
        assertions.append(assertion)
        rows.append(ConversionRow(source, _one_line(check.content), described))
    for index, case in enumerate(task.prose_convergence()):
        try:
            ladder, described = convert_convergence(case)
        except Unreadable as reason:
            rows.append(ConversionRow(f"ConvergenceCases.{index}", _one_line(case.parameter), "kept as prose",
                                      str(reason)))
            continue
        convergence.append(ladder)
        rows.append(ConversionRow(f"ConvergenceCases.{index}", _one_line(case.parameter), described))
    parameters = sorted({key for assertion in assertions for key in _system_keys(assertion)}
                        | {case.parameter for case in convergence})
    return Conversion(tuple(assertions), tuple(convergence), tuple(rows), tuple(parameters))


def renamed(conversion: Conversion, aliases: dict[str, str], fixed: dict[str, float],
            observables: dict[str, tuple[str, dict[str, str | None]]],
            implied: dict[str, dict[str, Any]] | None = None) -> Conversion:
    """The conversion in a script's own names, for a task author who knows them (a benchmark overlay).

    Args:
        aliases: prose parameter name -> PARAMS key (``Nup`` -> ``N_up``).
        fixed: prose names the script's lattice fixes, with the value it fixes (``Lx``: 2 for a two-leg ladder):
            dropped where a check sets that value; a check that sets another value stays prose.
        observables: check source -> (key path of the run_ function's results, observable argument -> PARAMS
            key, or None where the key path fixes the argument): an adapter check the script answers directly,
            with its arguments passed as overrides.
        implied: check source -> PARAMS (script names) the check implies without writing them; they join its
            overrides (its own overrides win).
    """
    assertions, rows = [], []
    by_source = {row.source: row for row in conversion.rows}
    for assertion in conversion.assertions:
        source = assertion.name.removeprefix("upstream ")
        try:
            assertions.append(_renamed(assertion, aliases, fixed, observables.get(source),
                                       (implied or {}).get(source, {})))
            rows.append(by_source[source])
        except Unreadable as reason:
            rows.append(ConversionRow(source, by_source[source].prose, "kept as prose", str(reason)))
    rows += [row for row in conversion.rows if not row.converted or row.source.startswith("ConvergenceCases")]
    convergence = tuple(case.model_copy(update={"parameter": aliases.get(case.parameter, case.parameter)})
                        for case in conversion.convergence)
    parameters = sorted({key for assertion in assertions for key in _system_keys(assertion)}
                        | {case.parameter for case in convergence})
    order = {row.source: index for index, row in enumerate(conversion.rows)}
    return Conversion(tuple(assertions), convergence, tuple(sorted(rows, key=lambda row: order[row.source])),
                      tuple(parameters))


def _renamed_overrides(overrides: dict[str, Any], aliases: dict[str, str], fixed: dict[str, float]) -> dict[str, Any]:
    renamed_overrides = {}
    for name, value in overrides.items():
        if name in fixed:
            if value != fixed[name]:
                raise Unreadable(f"{name} = {value}, but the script's lattice fixes {name} = {fixed[name]}")
            continue
        renamed_overrides[aliases.get(name, name)] = value
    return renamed_overrides


def _renamed(assertion: Assertion, aliases: dict[str, str], fixed: dict[str, float],
             observable: tuple[str, dict[str, str | None]] | None, implied: dict[str, Any]) -> Assertion:
    data = assertion.model_dump()
    for key in ("overrides", "overrides_a", "overrides_b"):
        if key in data:
            data[key] = {**implied, **_renamed_overrides(data[key], aliases, fixed)}
    if observable is not None and data.get("adapter"):
        key_path, argument_keys = observable
        unknown = sorted(set(data["arguments"]) - set(argument_keys))
        if unknown:
            raise Unreadable(f"no PARAMS key is given for the observable argument(s) {', '.join(unknown)}")
        moved = {argument_keys[name]: value for name, value in data["arguments"].items()
                 if argument_keys[name] is not None}
        for key in ("overrides", "overrides_a", "overrides_b"):
            if key in data:
                data[key] = {**data[key], **moved}
        data.update(observable=key_path, adapter=None, arguments={})
    return _ASSERTION.validate_python(data)


def _system_keys(assertion: Assertion) -> set[str]:
    overrides = getattr(assertion, "overrides", None)
    if overrides is None:
        overrides = {**getattr(assertion, "overrides_a", {}), **getattr(assertion, "overrides_b", {})}
    return set(overrides)


def _one_line(text: str) -> str:
    return " ".join(clean_text(text).split())
