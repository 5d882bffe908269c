"""Opt-in audits of the encoded R-charges: are they the superconformal R (a-maximisation), and is the
theory unitary with them?  They flag unphysical R assignments; they say nothing about the duality.

a-maximisation is checked exactly: the encoded R must be a critical point of the trial a on the affine
space of R assignments that keep every W term at R = 2 and every node free of the gauge-R anomaly
(rational gradient equal to zero), and a local maximum there (negative definite rational Hessian).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from sympy import Expr, Matrix, Rational, lambdify, symbols

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.dualitycert.anomalies import central_charges, r_trace
from physvec.verifiers.dualitycert.bounds import WorkBoundExceeded, size_problems
from physvec.verifiers.dualitycert.chiral_ring import graded_dimensions, ring_preconditions, window
from physvec.verifiers.dualitycert.dualize import constraint_system
from physvec.verifiers.dualitycert.theory import Theory

UNITARITY_BOUND = Fraction(2, 3)
"""A gauge-invariant chiral operator has R >= 2/3 (dimension >= 1, equality for a free field)."""
A_OVER_C = (Fraction(1, 2), Fraction(3, 2))
"""Hofman-Maldacena bounds on a/c for N = 1 superconformal theories."""


def _exact(rows: list[list[Fraction]], columns: int) -> Matrix:
    """A Fraction matrix (possibly without rows) as a sympy Matrix of Rationals (exact)."""
    return Matrix(len(rows), columns, [Rational(x.numerator, x.denominator) for row in rows for x in row])


def trial_a_directions(theory: Theory) -> Matrix:
    """A basis of the directions in which R may move without breaking W or the gauge-R anomaly."""
    constraints = _exact(constraint_system(theory)[0], len(theory.field_r()))
    basis = constraints.nullspace()
    return Matrix.hstack(*basis) if basis else Matrix.zeros(constraints.cols, 0)


MAX_DIRECTIONS = 12
"""The symbolic Hessian of the trial a is formed only up to this many free directions (work bound)."""
MAX_AUDITED_FIELDS = 128
"""The exact (sympy) constraint system is solved only up to this many fields (work bound)."""


def a_maximisation(theory: Theory, side: str) -> Obligation:
    """The encoded R maximises the trial a locally on the allowed affine space."""
    name = f"{side}.a_maximisation"
    fields = len(theory.arrows) + len(theory.singlets)
    if size_problems(theory, side) or fields > MAX_AUDITED_FIELDS:
        return Obligation(name=name, category="audit", outcome=Outcome.UNKNOWN,
                          message="not run: " + "; ".join([*size_problems(theory, side),
                                                           f"{fields} fields (audit bound {MAX_AUDITED_FIELDS})"]))
    rows, values = constraint_system(theory)
    encoded = _exact([[r] for r in theory.field_r().values()], 1)
    if _exact(rows, encoded.rows) * encoded != _exact([[v] for v in values], 1):
        return Obligation(name=name, category="audit", outcome=Outcome.NOT_APPLICABLE,
                          message="the encoded R breaks W = 2 or the gauge-R anomaly (see those obligations)")
    directions = trial_a_directions(theory)
    if directions.cols > MAX_DIRECTIONS:
        return Obligation(name=name, category="audit", outcome=Outcome.UNKNOWN,
                          message=f"{directions.cols} free directions of R exceed the bound {MAX_DIRECTIONS}")
    if directions.cols == 0:
        return Obligation(name=name, category="audit", outcome=Outcome.CERTIFIED,
                          message="W and the anomalies fix R uniquely: nothing to maximise over")
    t = symbols(f"t0:{directions.cols}")
    trial = _trial_a(theory, encoded + directions * Matrix(t))
    gradient = [trial.diff(s).subs({s: 0 for s in t}) for s in t]
    hessian = Matrix(directions.cols, directions.cols,
                     lambda i, j: trial.diff(t[i]).diff(t[j]).subs({s: 0 for s in t}))
    evidence = {"directions": directions.cols, "gradient": [str(g) for g in gradient],
                "hessian_eigenvalues_negative": bool(hessian.is_negative_definite)}
    if any(g != 0 for g in gradient):
        evidence["a_maximising_r"] = _numerical_maximum(theory, trial, t, encoded, directions)
        return Obligation(name=name, category="audit", outcome=Outcome.FAILED, evidence=evidence,
                          message="the encoded R is not a critical point of the trial a: it is not the "
                                  "superconformal R")
    if not hessian.is_negative_definite:
        return Obligation(name=name, category="audit", outcome=Outcome.FAILED, evidence=evidence,
                          message="the encoded R is a critical point of the trial a but not a maximum")
    return Obligation(name=name, category="audit", outcome=Outcome.CERTIFIED, evidence=evidence,
                      message="the encoded R is a local maximum of the trial a")


def _numerical_maximum(theory: Theory, trial: Expr, t: tuple, encoded: Matrix, directions: Matrix) -> dict[str, float] | str:
    """Where the trial a peaks (Newton's method from the encoded R), as evidence for the reader.

    Only evidence: a singular Hessian (a free singlet makes the trial a cubic in one direction) or an
    overflow ends the search with a sentence, never an exception.
    """
    gradient = lambdify([t], [trial.diff(s) for s in t], "numpy")
    hessian = lambdify([t], [[trial.diff(a).diff(b) for b in t] for a in t], "numpy")
    point = np.zeros(len(t))
    try:
        with np.errstate(all="raise"):
            for _ in range(50):
                step = np.linalg.solve(np.array(hessian(point), dtype=float), np.array(gradient(point), dtype=float))
                point = point - step
                if np.max(np.abs(step)) < 1e-12:
                    break
            else:
                return "Newton's method did not converge from the encoded R"
            if np.any(np.linalg.eigvalsh(np.array(hessian(point), dtype=float)) >= 0):
                return "the nearest critical point of the trial a is not a maximum"
    except (np.linalg.LinAlgError, FloatingPointError) as error:
        return f"Newton's method stopped: {error} (the trial a has a flat or singular direction)"
    charges = np.array(encoded, dtype=float).ravel() + np.array(directions, dtype=float) @ point
    return {label: round(float(value), 6) for label, value in zip(theory.field_r(), charges, strict=True)}


def _trial_a(theory: Theory, charges: Matrix) -> Expr:
    """3/32 (3 Tr R^3 - Tr R) with the fields' R-charges replaced by ``charges`` (sympy expressions)."""
    return Rational(3, 32) * (3 * r_trace(theory, 3, list(charges)) - r_trace(theory, 1, list(charges)))


def unitarity(theory: Theory, side: str, level: int) -> Obligation:
    """Chiral operators within the window have R >= 2/3; a, c > 0 and 1/2 <= a/c <= 3/2."""
    name = f"{side}.unitarity"
    a, c = central_charges(theory)
    violations = []
    if a <= 0 or c <= 0:
        violations.append(f"a = {a}, c = {c} not both positive")
    elif not A_OVER_C[0] <= a / c <= A_OVER_C[1]:
        violations.append(f"a/c = {a / c} outside [1/2, 3/2]")
    violations += [f"singlet {s.label} has R = {s.r_charge} < 2/3" for s in theory.singlets
                   if s.r_charge < UNITARITY_BOUND]
    evidence = {"a": str(a), "c": str(c), "tr_r": str(r_trace(theory, 1))}
    blockers = ring_preconditions(theory) + size_problems(theory, side)
    if not blockers:
        try:
            dims = graded_dimensions(theory, min(window(level), UNITARITY_BOUND))
        except WorkBoundExceeded as error:
            blockers.append(str(error))
        else:
            light = {str(r): count for r, count in dims.items() if r < UNITARITY_BOUND}
            violations += [f"{count} single-trace operators with R = {r} < 2/3" for r, count in light.items()]
    if violations:
        return Obligation(name=name, category="audit", outcome=Outcome.FAILED, message="; ".join(violations),
                          evidence=evidence)
    if blockers:
        return Obligation(name=name, category="audit", outcome=Outcome.UNKNOWN, evidence=evidence,
                          message="a, c and singlets pass; operators not checked: " + "; ".join(blockers))
    return Obligation(name=name, category="audit", outcome=Outcome.CERTIFIED, evidence=evidence,
                      message="a, c, singlets and single-trace operators within the window are unitary")
