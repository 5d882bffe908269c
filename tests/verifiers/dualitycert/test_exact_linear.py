"""Exact rational linear algebra: the nearest point of an affine space, checked against floating point."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from physvec.verifiers.dualitycert.exact_linear import nearest_solution
from physvec.verifiers.dualitycert.exact_linear import nullspace


def _fractions(rows):
    return [[Fraction(x) for x in row] for row in rows]


def test_the_nearest_solution_is_the_orthogonal_projection_onto_the_affine_space():
    # Dependent rows (the third is the sum of the first two) must not make the Gram matrix singular.
    rows = _fractions([[1, 1, 0, 0], [0, 1, 1, 0], [1, 2, 1, 0]])
    values = [Fraction(2), Fraction(1, 3), Fraction(7, 3)]
    start = [Fraction(1, 2), Fraction(-1), Fraction(3, 4), Fraction(5)]
    exact = nearest_solution(rows, values, start)
    # independent reference: x = start + pinv(C) (d - C start), in floating point
    c, d, s = (np.array(v, dtype=float) for v in (rows, values, start))
    expected = s + np.linalg.pinv(c) @ (d - c @ s)
    assert all(isinstance(x, Fraction) for x in exact)
    assert np.allclose([float(x) for x in exact], expected, atol=1e-12)
    assert [sum(a * x for a, x in zip(row, exact)) for row in rows] == values


def test_an_inconsistent_system_has_no_nearest_solution():
    rows = _fractions([[1, 1], [2, 2]])
    assert nearest_solution(rows, [Fraction(1), Fraction(3)], [Fraction(0), Fraction(0)]) is None


def test_no_constraint_leaves_the_start_where_it_is():
    assert nearest_solution([], [], [Fraction(1, 3)]) == [Fraction(1, 3)]


def test_the_nullspace_basis_spans_the_kernel_exactly():
    rows = _fractions([[1, 2, 3], [2, 4, 6]])
    basis = nullspace(rows, 3)
    assert len(basis) == 2
    assert all(sum(a * x for a, x in zip(row, vector)) == 0 for row in rows for vector in basis)
