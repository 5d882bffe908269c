"""Symmetries a field basis can hide, and the mixed anomalies of the non-R U(1)s in any basis.

Why: ``flavour_symmetries`` finds the U(1)s that act diagonally, one charge per field.  Rotate two fields of
equal gauge representation and R-charge, (X, Y) -> (3/5 X + 4/5 Y, -4/5 X + 3/5 Y), or shift X -> X + c Y,
and a U(1) that gave X and Y different charges still exists but no longer acts diagonally: the diagonal
kernel loses it and the anomaly comparison sees another theory.  A field redefinition changes no physics,
so a difference it explains is no evidence against a claim.

The symmetries in any basis.  Fields mix only within a block of equal gauge representation (equal ends)
and equal R-charge, since a redefinition commutes with the gauge group and with U(1)_R.  A non-R symmetry
is a block-diagonal matrix T (delta phi = T phi) under which W is invariant and whose trace over each
node's charged fields has no SU(N)^2 anomaly: a linear system in T's entries, solved exactly.  The
solutions form a Lie algebra g; the diagonal kernel is a torus in it.  A maximal torus has the dimension
of a Cartan subalgebra h of g, the generalised null space of ad(x) for a regular x.  A seeded random x is
regular except on a set of measure zero, and a non-regular one only enlarges the null space, so the
rank is never underestimated: a basis may be called hiding when it is not, never the reverse.

The anomalies on h.  Tr T, Tr R^2 T, Tr R T T' and Tr T T' T'' over the fermions are invariant under
conjugation by the symmetry group, whose Cartan subalgebras are all conjugate (over C).  The nilpotent
part of h adds nothing to a trace of products (h is triangular in some basis, Lie's theorem), so those
directions have no anomalies and ``Anomalies.visible`` quotients them out.  The tensors of h therefore
describe the same torus whatever basis the fields were written in.
"""

from __future__ import annotations

import random
from collections import defaultdict

from physvec.verifiers.dualitycert.anomalies import charged_at, dynkin_index, field_dimension
from physvec.verifiers.dualitycert.exact_linear import ZERO, Q, Vec, nullspace, rref
from physvec.verifiers.dualitycert.global_symmetries import Anomalies
from physvec.verifiers.dualitycert.memo import per_theory
from physvec.verifiers.dualitycert.theory import Theory

Matrix = list[Vec]
Generator = list[Matrix]
"""A block-diagonal symmetry: one square matrix per block of ``blocks`` (row = the field varied)."""
REGULAR_TRIES = 2
"""Random elements tried for the Cartan subalgebra; the smallest null space found is kept."""


def blocks(theory: Theory) -> list[list[int]]:
    """Field indices (order of ``theory.field_r()``) that a redefinition may mix: equal ends and R-charge."""
    grouped: dict[tuple, list[int]] = defaultdict(list)
    for index, arrow in enumerate(theory.arrows):
        grouped[("arrow", arrow.source, arrow.target, arrow.r_charge)].append(index)
    for offset, singlet in enumerate(theory.singlets):
        grouped[("singlet", singlet.r_charge)].append(len(theory.arrows) + offset)
    return list(grouped.values())


def _word(factors: tuple[str, ...], singlets: frozenset[str]) -> tuple:
    """A trace up to what does not change it: cyclic order of the arrows, any order of the singlets."""
    arrows = tuple(f for f in factors if f not in singlets)
    rotations = [arrows[i:] + arrows[:i] for i in range(len(arrows))] or [()]
    return tuple(sorted(f for f in factors if f in singlets)), min(rotations)


def symmetry_algebra(theory: Theory) -> list[Generator]:
    """A basis of the block-diagonal non-R symmetries (W invariant, no SU(N)^2 U(1) anomaly)."""
    labels = list(theory.field_r())
    index = {label: i for i, label in enumerate(labels)}
    grouping = blocks(theory)
    block_of = {field: b for b, members in enumerate(grouping) for field in members}
    unknown = {(row, column): n for n, (row, column) in
               enumerate((row, column) for members in grouping for row in members for column in members)}
    singlets = frozenset(s.label for s in theory.singlets)
    variations: dict[tuple, Vec] = defaultdict(lambda: [Q(0)] * len(unknown))
    for term in theory.superpotential:
        for position, factor in enumerate(term.factors):
            varied = index[factor]
            for partner in grouping[block_of[varied]]:
                replaced = (*term.factors[:position], labels[partner], *term.factors[position + 1:])
                variations[_word(replaced, singlets)][unknown[(varied, partner)]] += Q(term.coefficient)
    rows = list(variations.values())
    for node in theory.nodes:
        row = [Q(0)] * len(unknown)
        for charge in charged_at(theory, node):
            field = index[charge.arrow.label]
            row[unknown[(field, field)]] += Q(dynkin_index(charge.kind, theory.ranks[node])) * charge.multiplicity
        rows.append(row)
    sizes = [len(members) for members in grouping]
    return [_unflattened(vector, sizes) for vector in nullspace(rows, len(unknown))]


def _unflattened(vector: Vec, sizes: list[int]) -> Generator:
    generator, cursor = [], 0
    for size in sizes:
        generator.append([vector[cursor + size * row: cursor + size * (row + 1)] for row in range(size)])
        cursor += size * size
    return generator


def _flat(generator: Generator) -> Vec:
    return [entry for block in generator for row in block for entry in row]


def _product(x: Matrix, y: Matrix) -> Matrix:
    """x y, skipping zeros (symmetry generators are mostly zero)."""
    width = len(y[0]) if y else 0
    out = []
    for row in x:
        total = [Q(0)] * width
        for m, entry in enumerate(row):
            if entry:
                for j, other in enumerate(y[m]):
                    if other:
                        total[j] += entry * other
        out.append(total)
    return out


def _combination(weights: Vec, basis: list[Vec]) -> Vec:
    return [sum((w * v[n] for w, v in zip(weights, basis) if w), Q(0)) for n in range(len(basis[0]))]


def cartan_subalgebra(algebra: list[Generator]) -> list[Generator]:
    """A basis of the generalised null space of ad(x), x a seeded random element (see the module note)."""
    if not algebra:
        return []
    sizes = [len(block) for block in algebra[0]]
    basis, pivots = rref([_flat(g) for g in algebra], sum(size * size for size in sizes))
    generators = [_unflattened(vector, sizes) for vector in basis]
    places = [_place(pivot, sizes) for pivot in pivots]
    rng = random.Random(0)
    best: list[Vec] | None = None
    for _ in range(REGULAR_TRIES):
        x = _unflattened(_combination([Q(rng.randint(1, 997)) for _ in basis], basis), sizes)
        # column j of ad(x): [x, b_j] in the rref basis, whose coordinates are its entries at the pivots
        columns = [[_commutator_entry(x, g, *at) for at in places] for g in generators]
        kernel = _generalised_kernel([list(row) for row in zip(*columns)])
        if best is None or len(kernel) < len(best):
            best = kernel
    return [_unflattened(_combination(coordinates, basis), sizes) for coordinates in best]


def _generalised_kernel(matrix: Matrix) -> list[Vec]:
    """The null space of matrix^m once it stops growing with m (at m = 1 for a semisimple ad x)."""
    power, kernel = matrix, nullspace(matrix, len(matrix))
    while kernel:
        power = _product(matrix, power)
        larger = nullspace(power, len(matrix))
        if len(larger) == len(kernel):
            return kernel
        kernel = larger
    return kernel


def _place(flat: int, sizes: list[int]) -> tuple[int, int, int]:
    """(block, row, column) of a position in the flattened generator."""
    for block, size in enumerate(sizes):
        if flat < size * size:
            return block, flat // size, flat % size
        flat -= size * size
    raise IndexError("a position beyond the generator")


def _commutator_entry(x: Generator, y: Generator, block: int, row: int, column: int) -> Q:
    """([x, y])[row][column] in one block, without forming the rest of the commutator."""
    a, b = x[block], y[block]
    return sum((a[row][m] * b[m][column] - b[row][m] * a[m][column] for m in range(len(a))
                if (a[row][m] and b[m][column]) or (b[row][m] and a[m][column])), ZERO)


@per_theory(maxsize=256)
def hidden_symmetries(theory: Theory, diagonal: int) -> list[Generator] | None:
    """A Cartan subalgebra of the symmetries when it is larger than the ``diagonal`` U(1)s found in the
    field basis as written (the basis hides some), else None.  Cached: a fixture set reuses each electric
    theory for every wrong dual it is paired with."""
    algebra = symmetry_algebra(theory)
    if len(algebra) <= diagonal:
        return None
    cartan = cartan_subalgebra(algebra)
    return cartan if len(cartan) > diagonal else None


def anomalies_on(theory: Theory, generators: list[Generator]) -> Anomalies:
    """Tr T, Tr R^2 T, Tr R T T', Tr T T' T'' over the fermions, for block-diagonal generators."""
    grouping = blocks(theory)
    weights = [field_dimension(theory, a) for a in theory.arrows] + [1] * len(theory.singlets)
    fermion_r = [Q(r) - 1 for r in theory.field_r().values()]
    block_weight = [weights[members[0]] for members in grouping]
    block_r = [fermion_r[members[0]] for members in grouping]

    def trace(power: int, *factors: Generator) -> Q:
        """Sum over blocks of dimension x (R - 1)^power x tr(product of the factors' blocks)."""
        total = Q(0)
        for b in range(len(grouping)):
            product = factors[0][b]
            for factor in factors[1:]:
                product = _product(product, factor[b])
            diagonal = sum((product[i][i] for i in range(len(product))), Q(0))
            if diagonal:
                total += block_weight[b] * block_r[b] ** power * diagonal
        return total

    k = len(generators)
    return Anomalies.from_tensors(
        g=[trace(0, t) for t in generators], l=[trace(2, t) for t in generators],
        q=[[trace(1, s, t) for t in generators] for s in generators],
        c={(i, j, m): trace(0, generators[i], generators[j], generators[m])
           for i in range(k) for j in range(i, k) for m in range(j, k)})
