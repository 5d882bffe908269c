"""Exact linear algebra over the rationals, on gmpy2's rationals.

DualityCert's systems (the non-R U(1)s in the kernel of W and the gauge anomalies, their mixing matrices,
the block-diagonal symmetries a field basis may hide) have tens to a hundred rows and columns with small
rational entries, mostly zero.  They are solved exactly, on ``Q`` (gmpy2's mpq, rationals in C: an order of
magnitude faster than fractions.Fraction, which was most of the flavour-anomaly check's time, issue 36),
skipping zero entries, without the half-second import of a computer-algebra system that every
``dualitycert`` command would otherwise pay before doing anything.  ``Q`` equals and hashes like the
Fraction of the same value, and prints as a fraction string.
"""

from __future__ import annotations

from gmpy2 import mpq as Q

Vec = list[Q]

ZERO, ONE = Q(0), Q(1)


def rref(rows: list[Vec], columns: int) -> tuple[list[Vec], list[int]]:
    """Reduced row echelon form (exact) and its pivot columns."""
    rows = [[Q(x) for x in r] for r in rows]
    pivots: list[int] = []
    rank = 0
    for column in range(columns):
        found = next((r for r in range(rank, len(rows)) if rows[r][column]), None)
        if found is None:
            continue
        rows[rank], rows[found] = rows[found], rows[rank]
        pivot = rows[rank][column]
        pivot_row = [x / pivot for x in rows[rank]]
        rows[rank] = pivot_row
        support = [(n, x) for n, x in enumerate(pivot_row) if x]
        for r in range(len(rows)):
            factor = rows[r][column]
            if r != rank and factor:
                row = rows[r]
                for n, x in support:
                    row[n] -= factor * x
        pivots.append(column)
        rank += 1
    return rows[:rank], pivots


def nullspace(rows: list[Vec], columns: int) -> list[Vec]:
    """A basis of {x : rows x = 0}, exact."""
    reduced, pivots = rref(rows, columns)
    pivot_set = set(pivots)
    basis = []
    for free in (c for c in range(columns) if c not in pivot_set):
        vector = [ZERO] * columns
        vector[free] = ONE
        for row, pivot in zip(reduced, pivots, strict=True):
            vector[pivot] = -row[free]
        basis.append(vector)
    return basis


def dot(x: Vec, y: Vec) -> Q:
    return sum((a * b for a, b in zip(x, y, strict=True) if a and b), ZERO)


def apply(matrix: list[Vec], x: Vec) -> Vec:
    return [dot(row, x) for row in matrix]


def inverse(matrix: list[Vec]) -> list[Vec] | None:
    """The exact inverse, or None for a singular matrix."""
    n = len(matrix)
    augmented = [row + [Q(int(i == j)) for j in range(n)] for i, row in enumerate(matrix)]
    reduced, pivots = rref(augmented, 2 * n)
    if pivots[:n] != list(range(n)) or len(reduced) < n:
        return None
    return [row[n:] for row in reduced]
