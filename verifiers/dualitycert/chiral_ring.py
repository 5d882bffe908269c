"""The bounded single-trace chiral ring of a quiver theory, graded by R-charge, in exact arithmetic.

A single-trace operator is a cyclic word: a closed walk of the quiver up to rotation, times any
monomial of singlets (which are gauge invariant and commute with everything).  The chiral ring is the
span of these words modulo the F-term relations: for an arrow X, the trace of (dW/dX) times any path
closing it; for a singlet S, dW/dS itself; each times any singlet monomial.  Because every W term has
R-charge 2, the relations are homogeneous in R, so the dimension at each R-charge is exact once every
word and relation of that R-charge is enumerated.

The grading is by R-charge, not word length: Seiberg duality maps a length-two word of the electric
theory (X Y through the dualised node) to a length-one meson, so only a conserved charge can compare the
two sides.  The truncation level L sets the window R <= 2L/3 (the R-charge of L fields at R = 2/3).

Adjoints are counted as U(N) adjoints (their trace is a word).  A singlet labelled tr[X] is the trace
part that Seiberg duality splits off an adjoint meson X of SU(N): in this U(N) count it belongs to X
(and left with X when X was integrated out), so it and the W terms that carry it are left out.

Preconditions (otherwise the obligation is not_applicable, saying which): every closed walk of the
quiver has R > 0 (a field may have R <= 0) and every free singlet has R > 0, so that the window holds
finitely many words; every W term has R-charge exactly 2, so that the F-term
relations are graded; and every singlet is a trace singlet (products of a free singlet with traces are
multi-trace operators, outside a single-trace count).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement
from math import lcm

from sympy import QQ
from sympy.polys.matrices import DomainMatrix

from physvec.verifiers.dualitycert.superpotential import term_r_charge
from physvec.verifiers.dualitycert.theory import Theory

Word = tuple[tuple[str, ...], tuple[str, ...]]
"""(sorted singlet labels, closed walk of arrow labels in its least rotation)"""
Polynomial = dict[Word, Fraction]


def window(level: int) -> Fraction:
    """The R-charge window of truncation level L: R <= 2L/3."""
    return Fraction(2 * level, 3)


def trace_singlets(theory: Theory) -> set[str]:
    """The singlets tr[X]: trace parts of adjoint mesons."""
    return {s.label for s in theory.singlets if s.label.startswith("tr[") and s.label.endswith("]")}


def planar_theory(theory: Theory) -> Theory:
    """The theory the single-trace count runs on: trace singlets and their W terms left out."""
    traces = trace_singlets(theory)
    return theory.model_copy(update={
        "singlets": tuple(s for s in theory.singlets if s.label not in traces),
        "superpotential": tuple(t for t in theory.superpotential if not traces & set(t.factors))})


def ring_preconditions(theory: Theory) -> list[str]:
    """Why the graded chiral ring of ``theory`` cannot be computed (empty when it can)."""
    traces = trace_singlets(theory)
    problems = [f"singlet {s.label} is not a trace singlet tr[X] (a free singlet makes multi-trace words)"
                for s in theory.singlets if s.label not in traces]
    problems += [f"singlet {s.label} has R = {s.r_charge} <= 0, so the window holds infinitely many words"
                 for s in theory.singlets if s.label not in traces and s.r_charge <= 0]
    lowest = min_cycle_mean(theory)
    if lowest is not None and lowest <= 0:
        problems.append(f"a closed walk of the quiver has R <= 0 (least R per arrow round a cycle: {lowest}), "
                        "so the window holds infinitely many words")
    problems += [f"W term {index} has R = {term_r_charge(theory, term)} != 2, so F-terms are not graded"
                 for index, term in enumerate(theory.superpotential) if term_r_charge(theory, term) != 2]
    return problems


def min_cycle_mean(theory: Theory) -> Fraction | None:
    """The least mean R per arrow over the quiver's cycles (Karp's algorithm, exact); None if acyclic."""
    nodes, infinity = len(theory.ranks), None
    least = [[Fraction(0)] * nodes] + [[infinity] * nodes for _ in range(nodes)]
    for steps in range(1, nodes + 1):
        for arrow in theory.arrows:
            before = least[steps - 1][arrow.source]
            if before is not None:
                candidate = before + arrow.r_charge
                current = least[steps][arrow.target]
                least[steps][arrow.target] = candidate if current is None else min(current, candidate)
    means = []
    for node in range(nodes):
        if least[nodes][node] is None:
            continue
        means.append(max((least[nodes][node] - least[k][node]) / (nodes - k)
                         for k in range(nodes) if least[k][node] is not None))
    return min(means) if means else None


def descent(theory: Theory) -> dict[int, Fraction]:
    """Per node, the least R of any walk leaving it (the empty walk included, so at most 0).

    Finite when every cycle has R > 0 (Bellman-Ford); it bounds how far a walk's R can still fall, so a
    walk whose R minus that fall already exceeds the window can be pruned.
    """
    fall = {node: Fraction(0) for node in theory.nodes}
    for _ in theory.nodes:
        for arrow in theory.arrows:
            fall[arrow.source] = min(fall[arrow.source], arrow.r_charge + fall[arrow.target])
    return fall


def least_rotation(walk: tuple[str, ...]) -> tuple[str, ...]:
    return min((walk[i:] + walk[:i] for i in range(len(walk))), default=walk)


@dataclass(frozen=True)
class _Paths:
    """Every walk of the quiver with R-charge at most a bound, by start and end node."""

    by_ends: dict[tuple[int, int], list[tuple[tuple[str, ...], Fraction]]]

    @classmethod
    def up_to(cls, theory: Theory, limits: dict[tuple[int, int], Fraction]) -> _Paths:
        """Walks from s to t with R <= limits[(s, t)] (pairs not in ``limits`` are not kept)."""
        # Integer arithmetic in units of the common denominator: exact, and far faster than Fractions.
        unit = lcm(*(r.denominator for r in limits.values()), *(a.r_charge.denominator for a in theory.arrows))
        keep = {ends: int(limit * unit) for ends, limit in limits.items()}
        reach = max(keep.values(), default=0)
        fall = {node: int(value * unit) for node, value in descent(theory).items()}
        outgoing = defaultdict(list)
        for arrow in theory.arrows:
            outgoing[arrow.source].append((arrow.label, arrow.target, int(arrow.r_charge * unit)))
        found: dict[tuple[int, int], list[tuple[tuple[str, ...], int]]] = defaultdict(list)
        for start in theory.nodes:
            found[(start, start)].append(((), 0))
            stack = [((), start, 0)]
            while stack:
                walk, node, charge = stack.pop()
                for label, target, r in outgoing[node]:
                    extended = charge + r
                    if extended + fall[target] <= reach:
                        step = (*walk, label)
                        if extended <= keep.get((start, target), -1 - reach):
                            found[(start, target)].append((step, extended))
                        stack.append((step, target, extended))
        by_ends = {ends: [(walk, Fraction(charge, unit)) for walk, charge in walks] for ends, walks in found.items()}
        return cls(by_ends)

    def between(self, start: int, end: int) -> list[tuple[tuple[str, ...], Fraction]]:
        return self.by_ends.get((start, end), [])


def _singlet_monomials(theory: Theory, bound: Fraction) -> list[tuple[tuple[str, ...], Fraction]]:
    """Every monomial of singlets (the empty one included) with R-charge at most ``bound``."""
    monomials = [((), Fraction(0))]
    labels = sorted(theory.singlets, key=lambda s: s.label)
    degree = 1
    while labels and degree * min(s.r_charge for s in labels) <= bound:
        for combination in combinations_with_replacement(labels, degree):
            charge = sum((s.r_charge for s in combination), Fraction(0))
            if charge <= bound:
                monomials.append((tuple(s.label for s in combination), charge))
        degree += 1
    return monomials


def _derivatives(theory: Theory) -> dict[str, list[tuple[Fraction, tuple[str, ...], tuple[str, ...]]]]:
    """dW/dfield as (coefficient, singlets, open walk from the field's head round to its tail)."""
    singlet_labels = {s.label for s in theory.singlets}
    derivatives = defaultdict(list)
    for term in theory.superpotential:
        for position, label in enumerate(term.factors):
            rest = term.factors[position + 1:] + term.factors[:position]
            singlets = tuple(sorted(f for f in rest if f in singlet_labels))
            walk = tuple(f for f in rest if f not in singlet_labels)
            derivatives[label].append((term.coefficient, singlets, walk))
    return derivatives


def _word(singlets: tuple[str, ...], walk: tuple[str, ...]) -> Word:
    return tuple(sorted(singlets)), least_rotation(walk)


def words_and_relations(theory: Theory, bound: Fraction) -> tuple[dict[Fraction, set[Word]],
                                                                   dict[Fraction, list[Polynomial]]]:
    """Cyclic words and F-term relations with 0 < R <= bound, grouped by R-charge."""
    # Closed walks up to the window; for each arrow X, the walks closing dW/dX (R = 2 - R_X, below zero
    # when R_X > 2, so a closing walk may exceed the window) up to the window minus that.
    limits = {(node, node): bound for node in theory.nodes}
    for arrow in theory.arrows:
        ends = (arrow.source, arrow.target)
        limits[ends] = max(limits.get(ends, bound - 2 + arrow.r_charge), bound - 2 + arrow.r_charge)
    paths = _Paths.up_to(theory, limits)
    monomials = _singlet_monomials(theory, bound)
    words: dict[Fraction, set[Word]] = defaultdict(set)
    for node in theory.nodes:
        for walk, charge in paths.between(node, node):
            for singlets, extra in monomials:
                if walk and 0 < charge + extra <= bound:
                    words[charge + extra].add(_word(singlets, walk))
    for singlets, charge in monomials:
        if singlets:
            words[charge].add((singlets, ()))
    relations: dict[Fraction, list[Polynomial]] = defaultdict(list)
    charges = theory.field_r()
    for label, derivative in _derivatives(theory).items():
        arrow = theory.arrow(label)
        base = 2 - charges[label]
        closings = paths.between(arrow.source, arrow.target) if arrow else [((), Fraction(0))]
        for closing, closing_charge in closings:
            for singlets, extra in monomials:
                grade = base + closing_charge + extra
                if not 0 < grade <= bound:
                    continue
                polynomial: Polynomial = defaultdict(Fraction)
                for coefficient, term_singlets, walk in derivative:
                    polynomial[_word(singlets + term_singlets, walk + closing)] += coefficient
                relations[grade].append({w: c for w, c in polynomial.items() if c != 0})
    return words, relations


def rank(rows: list[Polynomial], columns: dict[Word, int]) -> int:
    """Exact rank over the rationals of sparse rows."""
    entries = {i: {columns[w]: QQ(c.numerator, c.denominator) for w, c in row.items()}
               for i, row in enumerate(rows) if row}
    if not entries:
        return 0
    matrix = DomainMatrix({i: entries[key] for i, key in enumerate(entries)}, (len(entries), len(columns)), QQ)
    return matrix.rank()


def graded_dimensions(theory: Theory, bound: Fraction) -> dict[Fraction, dict[str, int]]:
    """Per R-charge up to ``bound``: cyclic words, independent relations, and the ring's dimension."""
    words, relations = words_and_relations(planar_theory(theory), bound)
    table = {}
    for grade in sorted(set(words) | set(relations)):
        columns = {word: index for index, word in enumerate(sorted(words.get(grade, set())))}
        independent = rank(relations.get(grade, []), columns)
        table[grade] = {"words": len(columns), "relations": independent, "dimension": len(columns) - independent}
    return table
