"""A 4d N=1 quiver gauge theory as DualityCert reads it, and a duality claim (an ordered pair of them).

The schema is the seed schema of the shared data: ``node_labels``, ``ranks`` (SU(N) per node),
``arrows`` {label, source, target, r_charge}, optional ``singlets`` {label, r_charge}, and
``superpotential`` terms {coefficient, factors} with the factors an ordered list of field labels.

Orientation convention: an arrow i -> j is a chiral field in the fundamental of node i and the
antifundamental of node j; an arrow i -> i is an adjoint of node i.  Every R-charge and coefficient is
an exact rational written as a fraction string ("2/3", "-1", "0").

A theory that breaks the schema raises :class:`MalformedTheory` naming every problem found: a claim
that cannot be read is an error outcome, never a certificate.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, StrictInt, ValidationError

from physvec.taskfiles.input_files import UnreadableInput, read_json_input

MIN_RANK = 2
"""SU(1) is no gauge group: every node has rank at least 2."""


class MalformedTheory(ValueError):
    """A theory or claim that breaks the schema; the message names each problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


MAX_DIGITS = 100_000
"""The longest numerator or denominator read (work bound): beyond Python's 4300-digit default for str <-> int
conversion, exact rationals are still read and written, digit chunk by chunk, up to this length."""
_CHUNK = 4000
_LONG_FRACTION = re.compile(r"\s*([+-]?)(\d+)(?:/(\d+))?\s*")


def _long_int(digits: str) -> int:
    if len(digits) > MAX_DIGITS:
        raise ValueError(f"a number of {len(digits)} digits is beyond the {MAX_DIGITS}-digit work bound")
    value = 0
    for start in range(0, len(digits), _CHUNK):
        chunk = digits[start:start + _CHUNK]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def _long_digits(value: int) -> str:
    """Decimal digits of a non-negative int of any length (str() refuses past 4300 digits)."""
    if value < 10 ** _CHUNK:
        return str(value)
    high, low = divmod(value, 10 ** _CHUNK)
    return _long_digits(high) + str(low).rjust(_CHUNK, "0")


def rational(value: Any) -> Fraction:
    """An exact rational from a fraction string, an integer or a Fraction (floats are refused: not exact)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"expected a fraction string such as '2/3', got {value!r}")
    long = _LONG_FRACTION.fullmatch(value) if isinstance(value, str) and len(value) > _CHUNK else None
    try:
        if long:
            sign, numerator, denominator = long.groups()
            return Fraction(_long_int(numerator) * (-1 if sign == "-" else 1), _long_int(denominator or "1"))
        return Fraction(value)
    except (ValueError, ZeroDivisionError) as error:
        shown = value if not isinstance(value, str) or len(value) < 80 else f"{value[:40]}...({len(value)} characters)"
        raise ValueError(f"{shown!r} is not a rational number: {error}") from error


def fraction_text(value: Fraction) -> str:
    """The seed schema's spelling of a rational: '2/3', '-1', '0' (of any length)."""
    if abs(value.numerator).bit_length() < 14_000 and value.denominator.bit_length() < 14_000:
        return str(value)
    sign = "-" if value < 0 else ""
    denominator = "" if value.denominator == 1 else "/" + _long_digits(value.denominator)
    return sign + _long_digits(abs(value.numerator)) + denominator


Rational = Annotated[Fraction, BeforeValidator(rational), PlainSerializer(fraction_text, return_type=str)]
"""An exact rational read from and written as a fraction string."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Arrow(_Strict):
    """A chiral field: bifundamental of (source, target), or adjoint when source == target."""

    label: str = Field(min_length=1)
    source: StrictInt = Field(ge=0)
    target: StrictInt = Field(ge=0)
    r_charge: Rational

    @property
    def is_adjoint(self) -> bool:
        return self.source == self.target


class Singlet(_Strict):
    """A gauge-singlet chiral field."""

    label: str = Field(min_length=1)
    r_charge: Rational


class Term(_Strict):
    """One superpotential term: a coefficient times the ordered product (a trace) of its factors."""

    coefficient: Rational
    factors: tuple[str, ...] = Field(min_length=1)


class Theory(_Strict):
    """A quiver gauge theory: SU(ranks) nodes, chiral fields, superpotential."""

    name: str = ""
    node_labels: tuple[str, ...]
    ranks: tuple[StrictInt, ...]
    """Integers only: "6" or 6.0 is refused, not coerced (a claim is read as written)."""
    arrows: tuple[Arrow, ...]
    singlets: tuple[Singlet, ...] = ()
    superpotential: tuple[Term, ...] = ()
    u1_globals: tuple[str, ...] = ("U(1)_R",)

    @property
    def nodes(self) -> range:
        return range(len(self.ranks))

    @functools.cached_property
    def identity(self) -> str:
        """The theory in canonical JSON, computed once: what equality and hashing compare.

        Why: every check caches what it derives per theory (a fixture set pairs one electric theory, read
        afresh from each file, with every wrong dual of it), and pydantic's own hash and equality walk every
        arrow and term as models at each cache lookup, which cost more than most checks."""
        return self.model_dump_json()

    def __hash__(self) -> int:
        return hash(self.identity)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Theory):
            return NotImplemented
        return self is other or self.identity == other.identity

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Theory:
        """A copy whose identity is computed afresh (pydantic's copy would carry the original's over)."""
        copied = super().model_copy(update=update, deep=deep)
        copied.__dict__.pop("identity", None)
        return copied

    def field_r(self) -> dict[str, Fraction]:
        """Every field's R-charge by label."""
        return {field.label: field.r_charge for field in (*self.arrows, *self.singlets)}

    def arrow(self, label: str) -> Arrow | None:
        return next((a for a in self.arrows if a.label == label), None)

    def arrows_at(self, node: int) -> Iterator[Arrow]:
        """The arrows that touch ``node`` (adjoints once)."""
        return (a for a in self.arrows if node in (a.source, a.target))

    def to_json(self) -> str:
        """The theory in the seed schema."""
        return json.dumps(self.model_dump(mode="json"), indent=2) + "\n"


class Claim(_Strict):
    """A duality claim: electric theory A and magnetic theory B, in that order."""

    theory_a: Theory
    theory_b: Theory


def _schema_problems(error: ValidationError, prefix: str) -> list[str]:
    return [f"{prefix}{'.'.join(str(part) for part in issue['loc'])}: {issue['msg']}" for issue in error.errors()]


def structural_problems(theory: Theory, prefix: str = "") -> list[str]:
    """What a well-typed theory still gets wrong: ranks, dangling arrows, duplicate or unknown labels."""
    problems = []
    if not theory.ranks:
        problems.append(f"{prefix}ranks: a theory needs at least one gauge node")
    if len(theory.node_labels) != len(theory.ranks):
        problems.append(f"{prefix}node_labels: {len(theory.node_labels)} labels for {len(theory.ranks)} ranks")
    problems += [f"{prefix}ranks.{node}: rank {rank} < {MIN_RANK} (SU(N) nodes need N >= {MIN_RANK})"
                 for node, rank in enumerate(theory.ranks) if rank < MIN_RANK]
    problems += [f"{prefix}arrows.{index} ({arrow.label}): {end} {node} is not a node (nodes 0..{len(theory.ranks) - 1})"
                 for index, arrow in enumerate(theory.arrows)
                 for end, node in (("source", arrow.source), ("target", arrow.target)) if node >= len(theory.ranks)]
    labels = [field.label for field in (*theory.arrows, *theory.singlets)]
    problems += [f"{prefix}field label {label!r} is used {labels.count(label)} times"
                 for label in sorted(set(labels)) if labels.count(label) > 1]
    known = set(labels)
    problems += [f"{prefix}superpotential.{index}: unknown field {factor!r}"
                 for index, term in enumerate(theory.superpotential) for factor in term.factors if factor not in known]
    problems += [f"{prefix}superpotential.{index}: coefficient 0" for index, term in enumerate(theory.superpotential)
                 if term.coefficient == 0]
    return problems


def parse_theory(data: Any, prefix: str = "") -> Theory:
    """A validated theory from parsed JSON, or MalformedTheory naming every problem."""
    if not isinstance(data, dict):
        raise MalformedTheory([f"{prefix.rstrip('.') or 'theory'}: expected a JSON object, got {type(data).__name__}"])
    try:
        theory = Theory.model_validate(data)
    except ValidationError as error:
        raise MalformedTheory(_schema_problems(error, prefix)) from None
    problems = structural_problems(theory, prefix)
    if problems:
        raise MalformedTheory(problems)
    return theory


def parse_claim(data: Any) -> Claim:
    """A validated claim {"theory_a": ..., "theory_b": ...}, or MalformedTheory naming every problem."""
    if not isinstance(data, dict) or set(data) != {"theory_a", "theory_b"}:
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise MalformedTheory([f"claim: expected exactly the keys theory_a and theory_b, got {keys}"])
    problems, theories = [], {}
    for key in ("theory_a", "theory_b"):
        try:
            theories[key] = parse_theory(data[key], prefix=f"{key}.")
        except MalformedTheory as error:
            problems += error.problems
    if problems:
        raise MalformedTheory(problems)
    return Claim(**theories)


def read_json(path: Path) -> Any:
    """Parsed JSON of a theory or claim file, or MalformedTheory saying why it cannot be read."""
    try:
        return read_json_input(path)
    except UnreadableInput as error:
        raise MalformedTheory([str(error)]) from None
