"""Which W couplings a field rescaling can change: the lattice of rescaling invariants, exactly.

Over C, fields phi_f -> lambda_f phi_f multiply a term's coefficient by the product of its fields'
lambdas, so coefficients c' = rho c are reachable exactly when rho_t = prod_f lambda_f^A(t, f) is solvable
in nonzero complex numbers (A: multiplicities of fields in terms).  That holds iff prod_t rho_t^n_t = 1 for
every integer n with n A = 0; an integer basis of that lattice comes from unimodular row reduction, so the
test is exact (a sign that only i = sqrt(-1) absorbs is absorbed).  Shared by the ground truth and the
operator-map obligation: a coupling is physical only up to these rescalings.
"""

from __future__ import annotations

from fractions import Fraction

from physvec.verifiers.dualitycert.theory import Theory


def left_kernel_lattice(matrix: list[list[int]]) -> list[list[int]]:
    """A Z-basis of {n integer : n matrix = 0}: row-reduce [matrix | I] with unimodular integer steps."""
    rows = [list(row) + [int(i == j) for j in range(len(matrix))] for i, row in enumerate(matrix)]
    columns = len(matrix[0]) if matrix else 0
    top = 0
    for column in range(columns):
        while True:
            live = [r for r in range(top, len(rows)) if rows[r][column] != 0]
            if len(live) <= 1:
                break
            smallest = min(live, key=lambda r: abs(rows[r][column]))
            for r in live:
                if r != smallest:
                    factor = rows[r][column] // rows[smallest][column]
                    rows[r] = [x - factor * y for x, y in zip(rows[r], rows[smallest], strict=True)]
        live = [r for r in range(top, len(rows)) if rows[r][column] != 0]
        if live:
            rows[top], rows[live[0]] = rows[live[0]], rows[top]
            top += 1
    return [row[columns:] for row in rows[top:]]


def rescaling_invariants(theory: Theory) -> list[list[int]]:
    """Integer vectors n over W terms with n A = 0: prod_t c_t^n_t is unchanged by any field rescaling."""
    fields = sorted({f for term in theory.superpotential for f in term.factors})
    return left_kernel_lattice([[term.factors.count(f) for f in fields] for term in theory.superpotential])


def rescalable(ratios: list[Fraction], lattice: list[list[int]]) -> bool:
    """Can field rescalings multiply term t's coefficient by ratios[t], for every t at once?"""
    for vector in lattice:
        value = Fraction(1)
        for ratio, power in zip(ratios, vector, strict=True):
            if power:
                value *= ratio ** power
        if value != 1:
            return False
    return True
