"""Exact rational linear algebra: kernels, exactly."""

from __future__ import annotations

from fractions import Fraction

from physvec.verifiers.dualitycert.exact_linear import nullspace


def _fractions(rows):
    return [[Fraction(x) for x in row] for row in rows]


def test_the_nullspace_basis_spans_the_kernel_exactly():
    rows = _fractions([[1, 2, 3], [2, 4, 6]])
    basis = nullspace(rows, 3)
    assert len(basis) == 2
    assert all(sum(a * x for a, x in zip(row, vector)) == 0 for row in rows for vector in basis)
