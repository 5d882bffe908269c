"""Seiberg duality on one node of a quiver theory, exactly.

Dualising node k (no adjoint at k, as many flavours in as out):
1. SU(N_c) at k becomes SU(N_f - N_c);
2. every arrow at k is reversed (the dual quark of X is labelled X~) with R -> 1 - R, shifted along the
   dual node's baryon number (baryonic_shift); every field away from k keeps its R;
3. one meson M[a.b] per pair (a into k, b out of k), an arrow from a's tail to b's head with
   R = R_a + R_b; a meson with both ends on one node is an adjoint plus the singlet tr[M[a.b]];
4. in W every pass a b through k becomes M[a.b], and each meson gets the cubic term M[a.b] b~ a~; an
   adjoint meson is the N x N matrix M_adj + tr[M]/N, so every term holding it is expanded into both
   (tr[M] b~ a~ / N among them; tr X of a traceless adjoint X vanishes);
5. fields with a mass term (two arrows, or two singlets) are integrated out exactly through their F-terms;
6. A's R and the dual's must both be consistent (every W term R = 2, every node free of the gauge-R anomaly):
   the dual's R is the image of A's R-symmetry, which only a consistent A has, and a dual that comes out
   inconsistent would be a fault of the construction; either raises DualisationError.

The R-charges are mapped, never fitted: a projection onto the consistent space (the nearest point) moves
fields that the duality does not touch whenever A's R mixes with k's baryon number, and then gives a
theory whose 't Hooft anomalies and central charges differ from A's.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from physvec.verifiers.dualitycert.anomalies import charged_at, dynkin_index, mixed_r_anomaly
from physvec.verifiers.dualitycert.exact_linear import Vec
from physvec.verifiers.dualitycert.memo import per_theory
from physvec.verifiers.dualitycert.normal_form import (NotExact, Terms, adjoint_labels, as_terms, clean, cyclic,
                                                      expand_traces, integrate_all, least_rotation)
from physvec.verifiers.dualitycert.superpotential import term_r_charge
from physvec.verifiers.dualitycert.theory import MIN_RANK, Arrow, Singlet, Theory


class DualisationError(ValueError):
    """The node cannot be dualised (or a massive field cannot be integrated out exactly)."""


def dual_label(label: str) -> str:
    return f"{label}~"


def meson_label(incoming: str, outgoing: str) -> str:
    return f"M[{incoming}.{outgoing}]"


def trace_label(adjoint: str) -> str:
    """The singlet that is the trace part of an adjoint meson (see chiral_ring.trace_singlets)."""
    return f"tr[{adjoint}]"


def flavours(theory: Theory, node: int) -> tuple[int, int]:
    """(N_f in, N_f out): the summed ranks at the tails of arrows into ``node`` and heads of arrows out."""
    into = sum(theory.ranks[a.source] for a in theory.arrows if a.target == node and not a.is_adjoint)
    out = sum(theory.ranks[a.target] for a in theory.arrows if a.source == node and not a.is_adjoint)
    return into, out


def dual_rank(theory: Theory, node: int) -> int:
    """N_f - N_c, after checking that the node can be dualised."""
    if node not in theory.nodes:
        raise DualisationError(f"node {node} is not a node of the theory (nodes 0..{len(theory.ranks) - 1})")
    adjoints = [a.label for a in theory.arrows if a.is_adjoint and a.source == node]
    if adjoints:
        raise DualisationError(f"node {node} carries the adjoint {adjoints[0]}: Seiberg duality needs SQCD-like nodes")
    into, out = flavours(theory, node)
    if into != out:
        raise DualisationError(f"node {node} has N_f = {into} flavours in but {out} out (anomalous node)")
    rank = into - theory.ranks[node]
    if rank < MIN_RANK:
        raise DualisationError(f"node {node}: dual rank N_f - N_c = {into} - {theory.ranks[node]} = {rank} < {MIN_RANK}")
    return rank


def _collapse(walk: tuple[str, ...], node: int, arrows: dict[str, Arrow]) -> tuple[str, ...]:
    """Replace every pass (into ``node``, out of ``node``) of a closed walk by its meson."""
    if not any(arrows[label].target == node for label in walk):
        return walk
    start = next(i for i, label in enumerate(walk) if arrows[label].target == node)
    rotated = walk[start:] + walk[:start]
    collapsed, index = [], 0
    while index < len(rotated):
        label = rotated[index]
        if arrows[label].target == node:
            collapsed.append(meson_label(label, rotated[index + 1]))
            index += 2
        else:
            collapsed.append(label)
            index += 1
    return tuple(collapsed)


def _passes(theory: Theory, node: int) -> tuple[list[Arrow], list[Arrow]]:
    """The arrows into ``node`` and out of it (no adjoint is at a node that can be dualised)."""
    return ([a for a in theory.arrows if a.target == node], [a for a in theory.arrows if a.source == node])


def _mesons(theory: Theory, node: int) -> list[Arrow]:
    incoming, outgoing = _passes(theory, node)
    return [Arrow(label=meson_label(a.label, b.label), source=a.source, target=b.target,
                  r_charge=a.r_charge + b.r_charge) for a in incoming for b in outgoing]


def baryonic_shift(theory: Theory, node: int, rank: int) -> Fraction:
    """delta with R(X~) = 1 - R(X) + delta for X out of ``node`` and 1 - R(X) - delta for X into it.

    Why.  The arrows out of k are the quarks Q (fundamentals of SU(N_c)), those into k the antiquarks Qt;
    an arrow to a node of rank N carries N flavours.  On these fields A's R is R0 + beta B + f_Q + f_Qt:
    R0 = 1 - N_c / N_f on every flavour (the node's anomaly-free R of SQCD), B the baryon number (+1 on Q,
    -1 on Qt), f_Q and f_Qt traceless over the flavours of Q and of Qt; no axial part is left, because A's R
    is anomaly-free at k.  Seiberg's map sends R0 to the dual's R0 = N_c / N_f = 1 - R0, a flavour charge f
    to -f (the dual quark q is in the conjugate flavour representation), and B to N_c / N~_c on q,
    -N_c / N~_c on qt.  So R(q) = 1 - R(Q) + beta (1 + N_c / N~_c) = 1 - R(Q) + beta N_f / N~_c, and
    R(qt) = 1 - R(Qt) - beta N_f / N~_c.  Summing R over the flavours (the traceless parts drop out)
    gives sum_out N R - sum_in N R = 2 beta N_f, so delta = (sum_out N R - sum_in N R) / (2 N~_c).
    Mesons Q Qt carry no baryon number (R_a + R_b) and every term M q qt keeps R = 2.  Without delta the
    dual is anomalous at k's neighbours whenever beta != 0 (dP1 nodes 2 and 3, dP2 phase I).
    """
    incoming, outgoing = _passes(theory, node)
    out_sum = sum((theory.ranks[a.target] * a.r_charge for a in outgoing), Fraction(0))
    in_sum = sum((theory.ranks[a.source] * a.r_charge for a in incoming), Fraction(0))
    return (out_sum - in_sum) / (2 * rank)


def _dual_fields(theory: Theory, node: int, rank: int) -> list[Arrow]:
    """Spectators as they are, the dual quarks (R = 1 - R -/+ delta) and the mesons."""
    incoming, outgoing = _passes(theory, node)
    shift = baryonic_shift(theory, node, rank)
    fields = [a for a in theory.arrows if node not in (a.source, a.target)]
    fields += [Arrow(label=dual_label(a.label), source=a.target, target=a.source, r_charge=1 - a.r_charge - shift)
               for a in incoming]
    fields += [Arrow(label=dual_label(a.label), source=a.target, target=a.source, r_charge=1 - a.r_charge + shift)
               for a in outgoing]
    return fields + _mesons(theory, node)


def _trace_singlets(theory: Theory, node: int) -> list[Singlet]:
    """A meson with both ends on node j is N_j x conj(N_j) = adjoint + singlet: the singlet, same R."""
    return [Singlet(label=trace_label(m.label), r_charge=m.r_charge) for m in _mesons(theory, node) if m.is_adjoint]


def _dual_superpotential(theory: Theory, node: int) -> Terms:
    """W of the dual before integrating out: electric passes collapsed to mesons, M b~ a~ per meson, and
    every adjoint meson split into its SU(N) adjoint and trace singlet (expand_traces)."""
    electric = {a.label: a for a in theory.arrows}
    terms: Terms = defaultdict(Fraction)
    for term in theory.superpotential:
        walk, singlets = cyclic(theory, term.factors)
        terms[(least_rotation(_collapse(walk, node, electric)), singlets)] += term.coefficient
    incoming, outgoing = _passes(theory, node)
    for a in incoming:
        for b in outgoing:
            terms[(least_rotation((meson_label(a.label, b.label), dual_label(b.label), dual_label(a.label))), ())] += 1
    traces = {m.label: (trace_label(m.label), theory.ranks[m.source]) for m in _mesons(theory, node) if m.is_adjoint}
    return expand_traces({key: value for key, value in terms.items() if value != 0}, traces)


def _mixed_anomaly_row(theory: Theory, node: int, index: dict[str, int]) -> tuple[list[Fraction], Fraction]:
    """Coefficients and constant of the gauge-R anomaly of ``node``, linear in the R-charges."""
    row = [Fraction(0)] * len(index)
    rank, constant = theory.ranks[node], Fraction(theory.ranks[node])
    for charge in charged_at(theory, node):
        weight = dynkin_index(charge.kind, rank) * charge.multiplicity
        row[index[charge.arrow.label]] += weight
        constant -= weight
    return row, -constant


def constraint_system(theory: Theory) -> tuple[list[Vec], Vec]:
    """(C, d) with C R = d saying: every W term has R = 2 and every node is free of the gauge-R anomaly.

    R is the column of field R-charges in the order of ``theory.field_r()``.
    """
    labels = list(theory.field_r())
    index = {label: i for i, label in enumerate(labels)}
    rows, values = [], []
    for term in theory.superpotential:
        row = [Fraction(0)] * len(labels)
        for factor in term.factors:
            row[index[factor]] += 1
        rows.append(row)
        values.append(Fraction(2))
    for node in theory.nodes:
        row, value = _mixed_anomaly_row(theory, node, index)
        rows.append(row)
        values.append(value)
    return rows, values


def r_inconsistencies(theory: Theory) -> list[str]:
    """Why the R-charges are not a candidate superconformal R: W terms with R != 2, nodes with a gauge-R
    anomaly (empty when consistent)."""
    problems = [f"W term {' '.join(term.factors)} has R = {term_r_charge(theory, term)}"
                for term in theory.superpotential if term_r_charge(theory, term) != 2]
    return problems + [f"node {node} has gauge-R anomaly {mixed_r_anomaly(theory, node)}"
                       for node in theory.nodes if mixed_r_anomaly(theory, node) != 0]


def dualize(theory: Theory, node: int) -> Theory:
    """The Seiberg dual of ``theory`` on ``node``, in the seed schema, with the image of its R-symmetry.

    Raises DualisationError when the node cannot be dualised, a mass cannot be integrated out exactly, or
    the R-charges of A (or, as a guard, of the dual) are not consistent.  Computed once per (theory, node):
    the operator map and the copy guard dualise the same A at every node for every B it is paired with.
    """
    dual = _dual_or_reason(theory, node)
    if isinstance(dual, str):
        raise DualisationError(dual)
    return dual


@per_theory(maxsize=512)
def _dual_or_reason(theory: Theory, node: int) -> Theory | str:
    try:
        return _dual(theory, node)
    except DualisationError as error:
        return str(error)


def _dual(theory: Theory, node: int) -> Theory:
    rank = dual_rank(theory, node)
    if problems := r_inconsistencies(theory):
        raise DualisationError(f"A's R-charges are not consistent, so they have no image in the dual: {problems[0]}")
    fields = _dual_fields(theory, node, rank)
    adjoints = {a.label for a in fields if a.is_adjoint} | adjoint_labels(theory)
    try:
        terms, massive = integrate_all(clean(_dual_superpotential(theory, node), adjoints), adjoints)
    except NotExact as error:
        raise DualisationError(str(error)) from None
    dual = Theory(
        name=f"{theory.name} dualised on node {node}".strip(),
        node_labels=theory.node_labels,
        ranks=tuple(rank if n == node else r for n, r in enumerate(theory.ranks)),
        arrows=tuple(a for a in fields if a.label not in massive),
        singlets=tuple(s for s in (*theory.singlets, *_trace_singlets(theory, node)) if s.label not in massive),
        superpotential=as_terms(terms),
        u1_globals=theory.u1_globals)
    if problems := r_inconsistencies(dual):
        raise DualisationError(f"the dual's R-charges came out inconsistent: {problems[0]}")
    return dual
