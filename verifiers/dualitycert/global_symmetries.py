"""The non-R global U(1)s of a quiver theory and their mixed 't Hooft anomalies with U(1)_R.

Why: Tr R and Tr R^3 do not pin the R map.  Moving B's R-charges along a baryonic U(1) Q (R -> R + eps Q)
keeps every W term at R = 2, every node free of the gauge-R anomaly, every single trace's R-charge (closed
walks are baryon-neutral) and, at a root eps of a quadratic, Tr R^3 too.  What it changes is how R mixes
with the flavour symmetries, which the mixed anomalies Tr Q, Tr R^2 Q, Tr R Q^2 and Tr Q^3 record.

The symmetries.  A charge assignment Q on the fields is a non-R U(1) when every W term is neutral and
every node is free of its SU(N)^2 U(1)_Q anomaly (the kernel K of an exact linear system: the baryonic
and flavour U(1)s).  Directions of K on which every anomaly vanishes (a massive pair's own U(1)) are
invisible to matching and are quotiented out.

The map.  A duality maps K_A linearly onto K_B and R_A to R_B, so the anomaly tensors
g = Tr Q, l = Tr R^2 Q, q = Tr R Q Q, c = Tr Q Q Q must agree after that map.  The claim does not state
the map; it is derived from the anomalies themselves.  With q invertible (for the superconformal R,
-3 q is the positive flavour central-charge matrix), vectors built covariantly from the tensors
(u = q^-1 l, v = q^-1 g, q^-1 of c contracted with q^-1, then q^-1 c(x, y) for vectors x, y already
built) are carried by any anomaly-preserving map onto their counterparts; in the order they are built,
the first independent ones are a basis on each side and define the map there, and every tensor is
compared in it.  Where the tensors are symmetric (dP0's SU(3) flavour symmetry) fewer directions are
pinned; there the basis-free invariants (dimension, inertia of q, full contractions of c with q^-1)
must still agree.  With q singular no map can be derived: the obligation is unknown, saying so.
"""

from __future__ import annotations

import functools
from itertools import product

from physvec.verifiers.dualitycert.anomalies import charged_at, dynkin_index, field_dimension
from physvec.verifiers.dualitycert.exact_linear import Q, Vec, apply, dot, inverse, nullspace, rref
from physvec.verifiers.dualitycert.theory import Theory

MAX_SYMMETRIES = 24
"""Beyond this many independent U(1)s the cubic tensors are not formed (work bound)."""


class Underivable(ValueError):
    """No map of the global symmetries can be derived; the message says why."""


def flavour_symmetries(theory: Theory) -> list[Vec]:
    """A basis of the non-R U(1)s: charges on the fields (order of ``theory.field_r()``)."""
    labels = list(theory.field_r())
    index = {label: i for i, label in enumerate(labels)}
    rows = []
    for term in theory.superpotential:
        row = [Q(0)] * len(labels)
        for factor in term.factors:
            row[index[factor]] += 1
        rows.append(row)
    for node in theory.nodes:
        row = [Q(0)] * len(labels)
        for charge in charged_at(theory, node):
            row[index[charge.arrow.label]] += Q(dynkin_index(charge.kind, theory.ranks[node])) * charge.multiplicity
        rows.append(row)
    return nullspace(rows, len(labels))


class Anomalies:
    """g_i = Tr Q_i, l_i = Tr R^2 Q_i, q_ij = Tr R Q_i Q_j, c_ijk = Tr Q_i Q_j Q_k on a basis of U(1)s.

    Traces run over Weyl fermions: a chiral fermion has R - 1, a non-R charge is the boson's.
    """

    def __init__(self, theory: Theory, basis: list[Vec]) -> None:
        if len(basis) > MAX_SYMMETRIES:
            raise Underivable(f"{len(basis)} independent U(1)s exceed the bound {MAX_SYMMETRIES}")
        weights = [field_dimension(theory, a) for a in theory.arrows] + [1] * len(theory.singlets)
        fermion_r = [Q(r) - 1 for r in theory.field_r().values()]
        k = len(basis)
        self.k = k
        self.g = [sum((w * b[f] for f, w in enumerate(weights)), Q(0)) for b in basis]
        self.l = [sum((w * fermion_r[f] ** 2 * b[f] for f, w in enumerate(weights)), Q(0)) for b in basis]
        self.q = [[sum((w * fermion_r[f] * basis[i][f] * basis[j][f] for f, w in enumerate(weights)), Q(0))
                   for j in range(k)] for i in range(k)]
        self.c = {(i, j, m): sum((w * basis[i][f] * basis[j][f] * basis[m][f] for f, w in enumerate(weights)),
                                 Q(0))
                  for i in range(k) for j in range(i, k) for m in range(j, k)}

    @classmethod
    def from_tensors(cls, g: Vec, l: Vec, q: list[Vec], c: dict[tuple[int, int, int], Q]) -> Anomalies:
        """The tensors on some other basis of U(1)s (a restriction, or generators that mix fields)."""
        new = object.__new__(cls)
        new.k, new.g, new.l, new.q, new.c = len(g), g, l, q, c
        return new

    def entry(self, i: int, j: int, m: int) -> Q:
        return self.c[tuple(sorted((i, j, m)))]

    @functools.cached_property
    def tensor(self) -> list[list[Vec]]:
        """c as a full k x k x k array (every index order), read by the contractions below."""
        k = self.k
        return [[[self.entry(i, j, m) for m in range(k)] for j in range(k)] for i in range(k)]

    def full_contraction(self, inverse: list[Vec]) -> Q:
        """c_ijm c_abe H^ia H^jb H^me: the cubic anomaly contracted with itself through q^-1."""
        k = self.k
        raised = self.tensor
        for axis in range(3):  # raise one index at a time: O(k^4) each
            moved = [[[Q(0)] * k for _ in range(k)] for _ in range(k)]
            for i, j, m in product(range(k), repeat=3):
                index = [i, j, m]
                total = Q(0)
                for a, h in enumerate(inverse[index[axis]]):
                    if h:
                        index[axis] = a
                        total += h * raised[index[0]][index[1]][index[2]]
                moved[i][j][m] = total
            raised = moved
        tensor = self.tensor
        return sum((raised[i][j][m] * tensor[i][j][m] for i, j, m in product(range(k), repeat=3)), Q(0))

    def cubic(self, x: Vec, y: Vec, z: Vec) -> Q:
        return dot(self.cubic_form(x, y), z)

    def cubic_form(self, x: Vec, y: Vec) -> Vec:
        """c(x, y, .) as a covector."""
        form = [Q(0)] * self.k
        for i, xi in enumerate(x):
            if xi:
                for j, yj in enumerate(y):
                    if yj:
                        weight = xi * yj
                        for m, entry in enumerate(self.tensor[i][j]):
                            if entry:
                                form[m] += weight * entry
        return form

    def visible(self) -> Anomalies:
        """The tensors on a complement of the directions where every anomaly vanishes (the quotient)."""
        k = self.k
        unit = [[Q(int(i == j)) for j in range(k)] for i in range(k)]
        rows = [self.g, self.l, *self.q]
        rows += [self.cubic_form(unit[i], unit[j]) for i in range(k) for j in range(i, k)]
        radical = nullspace(rows, k)
        basis = list(radical)
        complement = []
        for vector in unit:
            if len(rref([*basis, vector], k)[1]) > len(basis):
                basis.append(vector)
                complement.append(vector)
        return self.restricted(complement)

    def restricted(self, vectors: list[Vec]) -> Anomalies:
        """The tensors on the span of ``vectors`` (coordinates in this basis)."""
        n = len(vectors)
        return Anomalies.from_tensors(
            g=[dot(self.g, x) for x in vectors], l=[dot(self.l, x) for x in vectors],
            q=[[dot(x, apply(self.q, y)) for y in vectors] for x in vectors],
            c={(i, j, m): self.cubic(vectors[i], vectors[j], vectors[m])
               for i in range(n) for j in range(i, n) for m in range(j, n)})


def inertia(matrix: list[Vec]) -> tuple[int, int]:
    """(positive, negative) eigenvalue counts of a symmetric rational matrix (congruence, exact)."""
    a = [list(r) for r in matrix]
    n, signs = len(a), []
    remaining = list(range(n))
    while remaining:
        pivot = next((i for i in remaining if a[i][i] != 0), None)
        if pivot is None:
            pair = next(((i, j) for i in remaining for j in remaining if i != j and a[i][j] != 0), None)
            if pair is None:
                break
            i, j = pair  # row/column j added to i makes a[i][i] = 2 a[i][j] + a[j][j] != 0 (a[j][j] = 0)
            for m in range(n):
                a[i][m] += a[j][m]
            for m in range(n):
                a[m][i] += a[m][j]
            pivot = i
        p = a[pivot][pivot]
        signs.append(p > 0)
        remaining.remove(pivot)
        for i in remaining:
            factor = a[i][pivot] / p
            for m in range(n):
                a[i][m] -= factor * a[pivot][m]
        for i in remaining:
            a[pivot][i] = a[i][pivot] = Q(0)
    return sum(signs), len(signs) - sum(signs)


def map_invariants(anomalies: Anomalies) -> dict[str, object]:
    """What any anomaly-preserving linear map must keep: the pinned basis with every tensor in it, and
    basis-free contractions.  Raises Underivable when q (Tr R Q Q) is singular."""
    visible = anomalies.visible()
    k = visible.k
    found: dict[str, object] = {"visible_u1s": k}
    if k == 0:
        return found
    if k > MAX_SYMMETRIES:
        raise Underivable(f"{k} independent U(1)s exceed the bound {MAX_SYMMETRIES}")
    q_inverse = inverse(visible.q)
    if q_inverse is None:
        raise Underivable("Tr R Q Q is singular on the U(1)s visible in anomalies, so the map cannot be derived")
    found["inertia_of_tr_r_qq"] = inertia(visible.q)
    trace = [sum((visible.entry(i, j, m) * q_inverse[j][m] for j in range(k) for m in range(k)), Q(0))
             for i in range(k)]
    built = [apply(q_inverse, visible.l), apply(q_inverse, visible.g), apply(q_inverse, trace)]
    pinned, decisions = [], []
    cursor = 0
    while cursor < len(built) and len(pinned) < k and len(built) < 64:
        vector = built[cursor]
        independent = any(vector) and len(rref([*pinned, vector], k)[1]) > len(pinned)
        decisions.append(independent)
        if independent:
            pinned.append(vector)
            built += [apply(q_inverse, visible.cubic_form(vector, other)) for other in pinned]
        cursor += 1
    found["pinning_sequence"] = decisions
    basis = visible.restricted(pinned)
    found["pinned_tensors"] = {"g": basis.g, "l": basis.l, "q": basis.q, "c": basis.c}
    u, v, w = built[0], built[1], built[2]
    found["contractions"] = {
        "l.u": dot(visible.l, u), "g.u": dot(visible.g, u), "g.v": dot(visible.g, v),
        "c(u,u,u)": visible.cubic(u, u, u), "c(u,u,v)": visible.cubic(u, u, v),
        "c(u,v,v)": visible.cubic(u, v, v), "c(v,v,v)": visible.cubic(v, v, v),
        "trace.u": dot(trace, u), "trace.v": dot(trace, v), "trace.w": dot(trace, w),
        "c.c": visible.full_contraction(q_inverse)}
    return found
