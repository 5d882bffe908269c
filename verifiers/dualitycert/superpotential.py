"""Superpotential terms as gauge-invariant closed walks of the quiver with R-charge 2."""

from __future__ import annotations

from fractions import Fraction

from physvec.verifiers.dualitycert.theory import Term, Theory


def walk_breaks(theory: Theory, term: Term) -> list[str]:
    """Where the arrows of a term (singlets skipped) fail to chain head to tail, cyclically.

    An empty list means the term is a trace over a closed walk of the quiver: gauge invariant.
    """
    arrows = [theory.arrow(label) for label in term.factors]
    chain = [arrow for arrow in arrows if arrow is not None]
    breaks = []
    for index, arrow in enumerate(chain):
        following = chain[(index + 1) % len(chain)]
        if arrow.target != following.source:
            breaks.append(f"{arrow.label} ends at node {arrow.target} but {following.label} starts at node "
                          f"{following.source}")
    return breaks


def term_r_charge(theory: Theory, term: Term) -> Fraction:
    """Sum of the R-charges of a term's factors."""
    charges = theory.field_r()
    return sum((charges[label] for label in term.factors), Fraction(0))
