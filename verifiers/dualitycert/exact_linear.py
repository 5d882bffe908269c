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

from collections import defaultdict

from gmpy2 import mpq as Q

Vec = list[Q]

ZERO, ONE = Q(0), Q(1)


def rref(rows: list[Vec], columns: int) -> tuple[list[Vec], list[int]]:
    """Reduced row echelon form (exact) and its pivot columns.

    Rows are kept as {column: entry} with, per column, the rows that have an entry there, so elimination
    touches only nonzero entries (the systems are mostly zero).  The reduced form of a row space is unique,
    so which row serves as a pivot does not change the result."""
    work = [{c: Q(x) for c, x in enumerate(row) if x} for row in rows]
    holders: dict[int, set[int]] = defaultdict(set)
    for n, row in enumerate(work):
        for c in row:
            holders[c].add(n)
    pivots: list[int] = []
    pivot_rows: list[int] = []
    for column in range(columns):
        free = holders[column].difference(pivot_rows)
        if not free:
            continue
        chosen = min(free)
        pivot_row = work[chosen]
        scale = pivot_row[column]
        if scale != 1:
            pivot_row = work[chosen] = {c: x / scale for c, x in pivot_row.items()}
        for other in list(holders[column]):
            if other != chosen:
                _eliminate(work[other], other, pivot_row, column, holders)
        pivots.append(column)
        pivot_rows.append(chosen)
    return [_dense(work[r], columns) for r in pivot_rows], pivots


def _eliminate(row: dict[int, Q], number: int, pivot_row: dict[int, Q], column: int,
               holders: dict[int, set[int]]) -> None:
    """row -= (row's entry in the pivot's column) x pivot_row, keeping ``holders`` true."""
    factor = row[column]
    for c, x in pivot_row.items():
        value = row.get(c, ZERO) - factor * x
        if value:
            if c not in row:
                holders[c].add(number)
            row[c] = value
        elif c in row:
            del row[c]
            holders[c].discard(number)


def _dense(row: dict[int, Q], columns: int) -> Vec:
    dense = [ZERO] * columns
    for c, x in row.items():
        dense[c] = x
    return dense


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
