"""Exact linear algebra over the rationals, small and dependency-free.

DualityCert's systems (the non-R U(1)s in the kernel of W and the gauge anomalies, their mixing matrices)
have tens of rows and columns with small rational entries: Fraction arithmetic solves them exactly in
milliseconds, without the half-second import of a computer-algebra system that every ``dualitycert``
command would otherwise pay before doing anything.
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
