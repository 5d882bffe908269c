"""Numbers typed into a script instead of computed: findings that block certification.

The cheapest way to pass a reference or an assertion is to type the expected number, and to hide it
from every check that moves a parameter by returning it only at the task point (``if L == 20 and J ==
1: return -25.1077971116``).  Metamorphic and assertion runs see honest code elsewhere; this module reads
the script itself, with every constant expression folded first, so that a number spelled as a string
(``float("-25.10779")``), split into parts (``-25.1 - 0.0077971116``) or concatenated is read as the
number it makes:

- a constant with four or more significant digits that equals a sealed value of the task (an expected
  value, a bound, reference data) within that check's tolerance is a finding;
- a branch (``if`` or a conditional expression) on a comparison with a number, whatever its spelling
  (``==``, ``in``, ``abs(x - 20) < 1e-9``, ``not x != 20``), that returns or assigns a typed number of
  four or more significant digits, or any typed number but zero when two or more parameters are pinned,
  is a finding: a special-cased parameter point.

Folding reaches literals and arithmetic on them, ``float``/``int``/``str`` of them and string joins.  A number
decoded at run time from bytes or text (struct, hex floats, base64, numpy buffers) is beyond folding, so the
decoding itself is a finding (decoded_numbers.py).  The message names the line, never the sealed value, which
stays in sealed evidence.
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
from physvec.verifiers.scientific.decoded_numbers import decodings

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
    """Digits a person typed: a folded sum like 0.1 * 3 (0.30000000000000004) counts as the 0.3 it means."""
    digits = f"{abs(number):.12g}".split("e")[0].replace(".", "").strip("0")
    return len(digits)


Folded = float | str


def folded(node: ast.AST) -> Folded | None:
    """The value of a constant expression: literals, + - * / ** of them, float/int/str of them, string
    joins; None for anything that depends on a name or a call to anything else."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float, str)):
            return None
        return float(node.value) if isinstance(node.value, (int, float)) else node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = folded(node.operand)
        return (-operand if isinstance(node.op, ast.USub) else operand) if isinstance(operand, float) else None
    if isinstance(node, ast.BinOp):
        return _folded_binary(node)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int", "str")
            and len(node.args) == 1 and not node.keywords):
        return _converted(node.func.id, folded(node.args[0]))
    return None


def _folded_binary(node: ast.BinOp) -> Folded | None:
    left, right = folded(node.left), folded(node.right)
    if isinstance(left, str) and isinstance(right, str) and isinstance(node.op, ast.Add):
        return left + right if len(left) + len(right) <= 64 else None
    if not (isinstance(left, float) and isinstance(right, float)):
        return None
    try:
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            return left / right
        if isinstance(node.op, ast.Pow) and abs(right) <= 64:
            return float(left ** right)
    except (ArithmeticError, TypeError):
        return None
    return None


def _converted(kind: str, value: Folded | None) -> Folded | None:
    if value is None:
        return None
    if kind == "str":
        return value if isinstance(value, str) else repr(value)
    return _as_number(value)


def _as_number(value: Folded | None) -> float | None:
    """A folded value as a number: a string that ``float`` reads (``"-25.1077971116"``) is one."""
    if isinstance(value, float):
        return value
    if isinstance(value, str) and len(value) <= 64:
        try:
            return float(value.strip().replace("_", ""))
        except ValueError:
            return None
    return None


def typed_numbers(tree: ast.AST) -> Iterator[tuple[float, int]]:
    """(value, line) of every maximal constant expression that is a number or a string reading as one."""
    for number, node in _numbers(tree):
        yield number, node.lineno


def _numbers(tree: ast.AST) -> Iterator[tuple[float, ast.expr]]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if id(node) in inside or not isinstance(node, ast.expr):
            continue
        number = _as_number(folded(node))
        if number is None or number != number or number in (float("inf"), float("-inf")):
            continue
        inside.update(id(child) for child in ast.walk(node))
        yield number, node


def _typed_result(value: ast.AST) -> bool:
    """A value holding, anywhere inside, a typed number of four or more significant digits that is not a whole
    number (a size or a count is not a result)."""
    return any(isinstance(folded(node), float) and not number.is_integer()
               and _significant_digits(number) >= MIN_SIGNIFICANT_DIGITS for number, node in _numbers(value))


def _typed_number(value: ast.AST) -> bool:
    """A value that is itself a typed non-zero number, or a dict, tuple or list with one as an element."""
    parts = value.values if isinstance(value, ast.Dict) else value.elts if isinstance(value, (ast.Tuple, ast.List)) \
        else [value]
    return any(isinstance(number := folded(part), float) and number != 0 for part in parts if part is not None)


def _compared_subjects(condition: ast.AST, points_only: bool) -> int:
    """How many different things (names, ``params["L"]``, ``self.L``) the condition compares with a number;
    with ``points_only``, only comparisons that pin a point count: ``==``, ``!=``, ``in (20,)``, a distance
    ``abs(L - 20) < 1e-9`` and a chain ``20 <= L <= 20`` (``L < 2`` bounds a range, it pins nothing).
    Comparisons with strings (``units == "eV"``) or with other names compare with no number."""
    subjects = set()
    for part in ast.walk(condition):
        if not isinstance(part, ast.Compare):
            continue
        sides = [part.left, *part.comparators]
        if not any(_numeric(side) for side in sides):
            continue
        pins = (any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in part.ops) or len(part.ops) > 1
                or any(_distance(side) for side in sides))
        if pins or not points_only:
            subjects |= {ast.dump(subject) for side in sides if not _numeric(side)
                         for subject in _outermost_subjects(side)}
    return len(subjects)


def _numeric(side: ast.AST) -> bool:
    """A number, or a tuple/list/set of numbers (the right side of ``in``)."""
    if isinstance(side, (ast.Tuple, ast.List, ast.Set)):
        return bool(side.elts) and all(isinstance(folded(element), float) for element in side.elts)
    return isinstance(folded(side), float)


def _distance(side: ast.AST) -> bool:
    """``abs(x - c)`` with a number c: the distance of x from a point."""
    return (isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and side.func.id == "abs"
            and len(side.args) == 1 and isinstance(side.args[0], ast.BinOp)
            and any(_numeric(operand) for operand in (side.args[0].left, side.args[0].right)))


def _outermost_subjects(node: ast.AST) -> Iterator[ast.AST]:
    """Names, subscripts and attributes not inside another one (``params["L"]`` is one subject, not two);
    the function a call names is not a subject."""
    if isinstance(node, (ast.Name, ast.Subscript, ast.Attribute)):
        yield node
        return
    for child in ast.iter_child_nodes(node):
        if not (isinstance(node, ast.Call) and child is node.func):
            yield from _outermost_subjects(child)


def _branch_values(node: ast.If | ast.IfExp) -> list[ast.AST]:
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    return [statement.value for block in (node.body, node.orelse) for statement in block
            if isinstance(statement, (ast.Return, ast.Assign, ast.AnnAssign, ast.AugAssign)) and statement.value]


def special_cased_points(tree: ast.AST) -> list[int]:
    """Lines of branches on a comparison with a number that return or assign a typed result: one of four or
    more significant digits, or any typed number (but zero) when the condition pins two or more parameters to
    a point (``if L == 6 and N == 3 and t == 0.75: return -3.0`` is a task point, not physics)."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.If, ast.IfExp)):
            continue
        compared, pinned = _compared_subjects(node.test, False), _compared_subjects(node.test, True)
        if compared and any(_typed_result(value) or (pinned >= 2 and _typed_number(value))
                            for value in _branch_values(node)):
            lines.append(node.lineno)
    return sorted(set(lines))


def typed_values_obligation(source: str, task: LoadedTask) -> Obligation:
    """The script holds no typed copy of a sealed value and no special-cased parameter point."""
    name = f"{INTEGRITY}:typed_values"
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return Obligation(name=name, category=INTEGRITY, outcome=Outcome.ERROR, message=f"cannot parse: {error.msg}")
    sealed = sealed_values(task)
    typed = sorted({(line, check.source, check.value) for number, line in typed_numbers(tree)
                    if _significant_digits(number) >= MIN_SIGNIFICANT_DIGITS
                    for check in sealed if check.matches(number)})
    special = special_cased_points(tree)
    decoded = decodings(tree)
    if not typed and not special and not decoded:
        return Obligation(name=name, category=INTEGRITY, outcome=Outcome.CERTIFIED,
                          message="no typed copy of an expected value, no special-cased parameter point and no "
                                  "number decoded from bytes or text")
    findings = [f"line {line} holds a number equal to a value a check expects" for line, _, _ in typed]
    findings += [f"line {line} returns a typed number when a parameter equals a given value" for line in special]
    findings += [f"line {decoding.line} {decoding.what}: a number decoded instead of computed"
                 for decoding in decoded]
    lines = {line for line, _, _ in typed} | set(special) | {decoding.line for decoding in decoded}
    return Obligation(name=name, category=INTEGRITY, outcome=Outcome.FAILED, message="; ".join(findings),
                      evidence={"lines": sorted(lines)},
                      sealed={"matched": [{"line": line, "check": check, "value": value}
                                          for line, check, value in typed]})
