"""Exact linear algebra over the rationals, small and dependency-free.

DualityCert's systems (W terms at R = 2, anomaly-free nodes, U(1) mixing matrices) have tens of rows and
columns with small rational entries: Fraction arithmetic solves them exactly in milliseconds, without
the half-second import of a computer-algebra system that a command like ``dualitycert dualize`` would
otherwise pay before doing anything.
"""

from __future__ import annotations

from fractions import Fraction

Vec = list[Fraction]


def rref(rows: list[Vec], columns: int) -> tuple[list[Vec], list[int]]:
    """Reduced row echelon form (exact) and its pivot columns."""
    rows = [list(r) for r in rows]
    pivots: list[int] = []
    rank = 0
    for column in range(columns):
        found = next((r for r in range(rank, len(rows)) if rows[r][column] != 0), None)
        if found is None:
            continue
        rows[rank], rows[found] = rows[found], rows[rank]
        pivot = rows[rank][column]
        rows[rank] = [x / pivot for x in rows[rank]]
        for r in range(len(rows)):
            if r != rank and rows[r][column] != 0:
                factor = rows[r][column]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[rank], strict=True)]
        pivots.append(column)
        rank += 1
    return rows[:rank], pivots


def nullspace(rows: list[Vec], columns: int) -> list[Vec]:
    """A basis of {x : rows x = 0}, exact."""
    reduced, pivots = rref(rows, columns)
    basis = []
    for free in (c for c in range(columns) if c not in pivots):
        vector = [Fraction(0)] * columns
        vector[free] = Fraction(1)
        for row, pivot in zip(reduced, pivots, strict=True):
            vector[pivot] = -row[free]
        basis.append(vector)
    return basis


def dot(x: Vec, y: Vec) -> Fraction:
    return sum((a * b for a, b in zip(x, y, strict=True)), Fraction(0))


def apply(matrix: list[Vec], x: Vec) -> Vec:
    return [dot(row, x) for row in matrix]


def inverse(matrix: list[Vec]) -> list[Vec] | None:
    """The exact inverse, or None for a singular matrix."""
    n = len(matrix)
    augmented = [row + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(matrix)]
    reduced, pivots = rref(augmented, 2 * n)
    if pivots[:n] != list(range(n)) or len(reduced) < n:
        return None
    return [row[n:] for row in reduced]


def nearest_solution(rows: list[Vec], values: Vec, start: Vec) -> Vec | None:
    """The point of {x : rows x = values} nearest to ``start`` (Euclidean), exact; None when the system has
    no solution.  The rows are first reduced to an independent set A x = b with the same solutions; then
    x = start + A^T (A A^T)^-1 (b - A start), A A^T being invertible for independent rows."""
    columns = len(start)
    reduced, pivots = rref([list(row) + [value] for row, value in zip(rows, values, strict=True)], columns + 1)
    if columns in pivots:
        return None
    a, b = [row[:columns] for row in reduced], [row[columns] for row in reduced]
    if not a:
        return list(start)
    gram = inverse([[dot(x, y) for y in a] for x in a])
    assert gram is not None, "independent rows have an invertible Gram matrix"
    weights = apply(gram, [bi - dot(ai, start) for ai, bi in zip(a, b, strict=True)])
    return [s + sum((a[k][i] * weights[k] for k in range(len(a))), Fraction(0)) for i, s in enumerate(start)]
