"""Numbers typed into a script instead of computed: findings that block certification.

The cheapest way to pass a reference or an assertion is to type the expected number, and to hide it
from every check that moves a parameter by returning it only at the task point (``if L == 20 and J ==
1: return -25.1077971116``).  Metamorphic and assertion runs see honest code elsewhere; this module reads
the script itself:

- a numeric literal with four or more significant digits that equals a sealed value of the task (an
  expected value, a bound, reference data) within that check's tolerance is a finding;
- a branch whose condition compares a parameter with a number by equality and whose body returns or
  assigns a number literal (a special-cased parameter point) is a finding.

The message names the line, never the sealed value, which stays in sealed evidence.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from physvec.taskfiles.assertions import Bound
from physvec.taskfiles.loading import LoadedTask
from physvec.verifiers.certificate import Obligation, Outcome

INTEGRITY = "integrity"
MIN_SIGNIFICANT_DIGITS = 4
"""Literals like 0.5 or 2.0 are parameters; a number typed to four or more digits is a result."""


@dataclass(frozen=True)
class SealedValue:
    """A number the task's checks expect, with the tolerance the check allows."""

    source: str
    value: float
    rtol: float
    atol: float

    def matches(self, number: float) -> bool:
        return abs(number - self.value) <= self.atol + self.rtol * abs(self.value) + 1e-12 * abs(self.value)


def _flatten(value: Any) -> Iterator[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield float(value)
    elif isinstance(value, list):
        for item in value:
            yield from _flatten(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _flatten(item)


def sealed_values(task: LoadedTask) -> list[SealedValue]:
    """Every expected value, bound and reference value of the task, with its check's tolerance."""
    values = []
    for assertion in task.assertions.assertions if task.assertions else []:
        expected = assertion.value if isinstance(assertion, Bound) else getattr(assertion, "expected", None)
        values += [SealedValue(f"assertion:{assertion.name}", number, assertion.rtol, assertion.atol)
                   for number in _flatten(expected)]
    reference = task.task.reference
    if reference is not None and task.reference_path is not None:
        data = json.loads(task.reference_path.read_text())
        values += [SealedValue("reference", number, reference.rtol, reference.atol) for number in _flatten(data)]
    return values


def _significant_digits(number: float) -> int:
    digits = f"{abs(number):.15g}".split("e")[0].replace(".", "").strip("0")
    return len(digits)


def numeric_literals(tree: ast.AST) -> Iterator[tuple[float, int]]:
    """(value, line) of every int or float literal, a leading minus included."""
    negated: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _is_number(node.operand):
            negated.add(id(node.operand))
            yield -float(node.operand.value), node.lineno
    for node in ast.walk(tree):
        if _is_number(node) and id(node) not in negated:
            yield float(node.value), node.lineno


def _is_number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def special_cased_points(tree: ast.AST) -> list[int]:
    """Lines of ``if`` branches that test a value for equality with a number and return or assign a number."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        compares_to_number = any(isinstance(part, ast.Compare) and any(isinstance(op, ast.Eq) for op in part.ops)
                                 and any(_is_number(side) or (isinstance(side, ast.UnaryOp) and _is_number(side.operand))
                                         for side in [part.left, *part.comparators])
                                 for part in ast.walk(node.test))
        typed = any(isinstance(statement, (ast.Return, ast.Assign)) and statement.value is not None
                    and any(_is_number(leaf) and isinstance(leaf.value, float) for leaf in ast.walk(statement.value))
                    for statement in node.body)
        if compares_to_number and typed:
            lines.append(node.lineno)
    return lines


def typed_values_obligation(source: str, task: LoadedTask) -> Obligation:
    """The script holds no typed copy of a sealed value and no special-cased parameter point."""
    name = f"{INTEGRITY}:typed_values"
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return Obligation(name=name, category=INTEGRITY, outcome=Outcome.ERROR, message=f"cannot parse: {error.msg}")
    sealed = sealed_values(task)
    typed = sorted({(line, check.source, check.value) for number, line in numeric_literals(tree)
                    if _significant_digits(number) >= MIN_SIGNIFICANT_DIGITS
                    for check in sealed if check.matches(number)})
    special = special_cased_points(tree)
    if not typed and not special:
        return Obligation(name=name, category=INTEGRITY, outcome=Outcome.CERTIFIED,
                          message="no typed copy of an expected value and no special-cased parameter point")
    findings = [f"line {line} holds a number equal to a value a check expects" for line, _, _ in typed]
    findings += [f"line {line} returns a typed number when a parameter equals a given value" for line in special]
    return Obligation(name=name, category=INTEGRITY, outcome=Outcome.FAILED, message="; ".join(findings),
                      evidence={"lines": sorted({line for line, _, _ in typed} | set(special))},
                      sealed={"matched": [{"line": line, "check": check, "value": value}
                                          for line, check, value in typed]})
