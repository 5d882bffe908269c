"""Gauge anomalies of one theory and the 't Hooft traces of its R-symmetry, in exact rationals.

Representation content follows the orientation convention of theory.py: an arrow i -> j is the
fundamental of SU(N_i) times the antifundamental of SU(N_j); i -> i is the adjoint of SU(N_i).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any

from physvec.verifiers.dualitycert.memo import per_theory
from physvec.verifiers.dualitycert.theory import Arrow, Theory

HALF = Fraction(1, 2)


@dataclass(frozen=True)
class NodeCharge:
    """How one arrow transforms under one gauge node."""

    arrow: Arrow
    kind: str
    """'fundamental', 'antifundamental' or 'adjoint'"""
    multiplicity: int
    """dimension under the other gauge factor (1 for an adjoint)"""


def charged_at(theory: Theory, node: int) -> list[NodeCharge]:
    """Every arrow charged under ``node``, with its representation there."""
    charges = []
    for arrow in theory.arrows_at(node):
        if arrow.is_adjoint:
            charges.append(NodeCharge(arrow, "adjoint", 1))
        elif arrow.source == node:
            charges.append(NodeCharge(arrow, "fundamental", theory.ranks[arrow.target]))
        else:
            charges.append(NodeCharge(arrow, "antifundamental", theory.ranks[arrow.source]))
    return charges


def cubic_anomaly(theory: Theory, node: int) -> int:
    """SU(N)^3 anomaly of ``node``: fundamentals +1, antifundamentals -1, adjoints 0, times multiplicity."""
    sign = {"fundamental": 1, "antifundamental": -1, "adjoint": 0}
    return sum(sign[c.kind] * c.multiplicity for c in charged_at(theory, node))


def doublet_count(theory: Theory, node: int) -> int:
    """Weyl doublets of an SU(2) node: bifundamentals count their multiplicity, adjoints are triplets."""
    return sum(c.multiplicity for c in charged_at(theory, node) if c.kind != "adjoint")


def dynkin_index(kind: str, rank: int) -> Fraction:
    """T(fund) = T(antifund) = 1/2, T(adj) = N."""
    return Fraction(rank) if kind == "adjoint" else HALF


def mixed_r_anomaly(theory: Theory, node: int) -> Fraction:
    """SU(N)^2 U(1)_R anomaly: N (gauginos, R = 1) + sum over charged fields of T(rep) dim_other (R - 1)."""
    rank = theory.ranks[node]
    return rank + sum(dynkin_index(c.kind, rank) * c.multiplicity * (c.arrow.r_charge - 1)
                      for c in charged_at(theory, node))


def field_dimension(theory: Theory, arrow: Arrow) -> int:
    """Number of components: N_i N_j for a bifundamental, N^2 - 1 for an adjoint."""
    if arrow.is_adjoint:
        return theory.ranks[arrow.source] ** 2 - 1
    return theory.ranks[arrow.source] * theory.ranks[arrow.target]


def r_trace(theory: Theory, power: int, charges: Sequence[Any] | None = None) -> Any:
    """Tr R^power over fermions: gauginos (R = 1) plus chiral fermions (R - 1), singlets included.

    ``charges`` replaces the encoded R-charges, in the order of ``theory.field_r()`` (a-maximisation
    passes sympy expressions); by default the trace is an exact Fraction of the encoded ones.
    """
    if charges is None:
        return _encoded_trace(theory, power)
    dims = [field_dimension(theory, arrow) for arrow in theory.arrows] + [1] * len(theory.singlets)
    gauginos = Fraction(sum(rank ** 2 - 1 for rank in theory.ranks))
    return gauginos + sum(d * (r - 1) ** power for d, r in zip(dims, charges, strict=True))


@per_theory(maxsize=1024)
def _encoded_trace(theory: Theory, power: int) -> Fraction:
    """r_trace on the encoded R-charges, once per theory, summed in integers over their common denominator."""
    charges = list(theory.field_r().values())
    dims = [field_dimension(theory, arrow) for arrow in theory.arrows] + [1] * len(theory.singlets)
    scale = lcm(1, *(r.denominator for r in charges))
    total = sum(d * (r.numerator * (scale // r.denominator) - scale) ** power for d, r in zip(dims, charges, strict=True))
    return sum(rank ** 2 - 1 for rank in theory.ranks) + Fraction(total, scale ** power)


def central_charges(theory: Theory) -> tuple[Fraction, Fraction]:
    """a = 3/32 (3 Tr R^3 - Tr R) and c = 1/32 (9 Tr R^3 - 5 Tr R) on the encoded R-charges."""
    linear, cubic = r_trace(theory, 1), r_trace(theory, 3)
    return Fraction(3, 32) * (3 * cubic - linear), Fraction(1, 32) * (9 * cubic - 5 * linear)
