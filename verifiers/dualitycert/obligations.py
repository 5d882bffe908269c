"""Each DualityCert obligation as a function from theories to one Obligation with its evidence table.

Per theory: the cubic gauge anomaly, the SU(2) Witten anomaly, the gauge-R anomaly, and the gauge
invariance and R-charge of every superpotential term.  Per claim: 't Hooft matching of Tr R and Tr R^3,
equal central charges a and c, and the bounded chiral ring.  Numbers in evidence are fraction strings.
"""

from __future__ import annotations

from fractions import Fraction

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.dualitycert.anomalies import (central_charges, cubic_anomaly, doublet_count, mixed_r_anomaly,
                                             r_trace)
from physvec.verifiers.dualitycert.chiral_ring import graded_dimensions, ring_preconditions, window
from physvec.verifiers.dualitycert.superpotential import term_r_charge, walk_breaks
from physvec.verifiers.dualitycert.theory import Theory


def _verdict(failures: list[str]) -> Outcome:
    return Outcome.FAILED if failures else Outcome.CERTIFIED


def _named(side: str, name: str) -> str:
    return f"{side}.{name}"


def cubic_gauge_anomaly(theory: Theory, side: str) -> Obligation:
    """SU(N)^3 cancels at every node: fundamentals minus antifundamentals, weighted by multiplicity.

    SU(2) has no cubic invariant (its fundamental is pseudo-real), so its row is reported but cannot
    fail; the Witten anomaly is its consistency condition.
    """
    table = [{"node": theory.node_labels[n], "anomaly": cubic_anomaly(theory, n),
              "identically_zero": theory.ranks[n] == 2} for n in theory.nodes]
    failures = [row["node"] for row in table if row["anomaly"] != 0 and not row["identically_zero"]]
    return Obligation(name=_named(side, "cubic_gauge_anomaly"), category="gauge_anomaly", outcome=_verdict(failures),
                      message=f"SU(N)^3 anomaly does not cancel at {', '.join(failures)}" if failures
                      else "SU(N)^3 anomaly cancels at every node", evidence={"nodes": table})


def witten_anomaly(theory: Theory, side: str) -> Obligation:
    """Every SU(2) node sees an even number of Weyl doublets."""
    su2 = [n for n in theory.nodes if theory.ranks[n] == 2]
    name = _named(side, "witten_anomaly")
    if not su2:
        return Obligation(name=name, category="gauge_anomaly", outcome=Outcome.NOT_APPLICABLE,
                          message="no SU(2) node")
    table = [{"node": theory.node_labels[n], "doublets": doublet_count(theory, n)} for n in su2]
    failures = [row["node"] for row in table if row["doublets"] % 2]
    return Obligation(name=name, category="gauge_anomaly", outcome=_verdict(failures),
                      message=f"odd number of doublets at {', '.join(failures)}" if failures
                      else "every SU(2) node has an even number of doublets", evidence={"nodes": table})


def gauge_r_anomaly(theory: Theory, side: str) -> Obligation:
    """SU(N)^2 U(1)_R cancels at every node, so the encoded R is a candidate superconformal R."""
    table = [{"node": theory.node_labels[n], "anomaly": str(mixed_r_anomaly(theory, n))} for n in theory.nodes]
    failures = [row["node"] for row in table if row["anomaly"] != "0"]
    return Obligation(name=_named(side, "gauge_r_anomaly"), category="gauge_anomaly", outcome=_verdict(failures),
                      message=f"gauge-R anomaly at {', '.join(failures)}" if failures
                      else "gauge-R anomaly cancels at every node", evidence={"nodes": table})


def _no_superpotential(name: str) -> Obligation:
    return Obligation(name=name, category="superpotential", outcome=Outcome.NOT_APPLICABLE,
                      message="the theory has no superpotential")


def superpotential_gauge_invariance(theory: Theory, side: str) -> Obligation:
    """Every W term is the trace of a closed walk of the quiver (singlets anywhere)."""
    name = _named(side, "superpotential_gauge_invariance")
    if not theory.superpotential:
        return _no_superpotential(name)
    table = [{"term": index, "factors": list(term.factors), "breaks": walk_breaks(theory, term)}
             for index, term in enumerate(theory.superpotential)]
    failures = [str(row["term"]) for row in table if row["breaks"]]
    return Obligation(name=name, category="superpotential", outcome=_verdict(failures),
                      message=f"W terms {', '.join(failures)} are not closed walks" if failures
                      else "every W term is a closed walk", evidence={"terms": table})


def superpotential_r_charge(theory: Theory, side: str) -> Obligation:
    """Every W term has R-charge exactly 2."""
    name = _named(side, "superpotential_r_charge")
    if not theory.superpotential:
        return _no_superpotential(name)
    table = [{"term": index, "factors": list(term.factors), "r_charge": str(term_r_charge(theory, term))}
             for index, term in enumerate(theory.superpotential)]
    failures = [str(row["term"]) for row in table if row["r_charge"] != "2"]
    return Obligation(name=name, category="superpotential", outcome=_verdict(failures),
                      message=f"W terms {', '.join(failures)} do not have R = 2" if failures
                      else "every W term has R = 2", evidence={"terms": table})


def _match(name: str, category: str, quantity: str, a: Fraction, b: Fraction) -> Obligation:
    return Obligation(name=name, category=category, outcome=_verdict([] if a == b else [quantity]),
                      message=f"{quantity}: A = {a}, B = {b}" + ("" if a == b else f" (differ by {b - a})"),
                      evidence={"A": str(a), "B": str(b)})


def thooft_tr_r(a: Theory, b: Theory) -> Obligation:
    return _match("thooft_tr_r", "thooft_anomaly", "Tr R", r_trace(a, 1), r_trace(b, 1))


def thooft_tr_r3(a: Theory, b: Theory) -> Obligation:
    return _match("thooft_tr_r3", "thooft_anomaly", "Tr R^3", r_trace(a, 3), r_trace(b, 3))


def central_charge_a(a: Theory, b: Theory) -> Obligation:
    return _match("central_charge_a", "central_charge", "a", central_charges(a)[0], central_charges(b)[0])


def central_charge_c(a: Theory, b: Theory) -> Obligation:
    return _match("central_charge_c", "central_charge", "c", central_charges(a)[1], central_charges(b)[1])


def chiral_ring(a: Theory, b: Theory, level: int) -> Obligation:
    """Single-trace chiral ring dimensions equal at every R-charge in the window of level L."""
    name = "chiral_ring"
    blockers = [f"A: {p}" for p in ring_preconditions(a)] + [f"B: {p}" for p in ring_preconditions(b)]
    if blockers:
        return Obligation(name=name, category="chiral_ring", outcome=Outcome.NOT_APPLICABLE,
                          message="; ".join(blockers), evidence={"level": level})
    bound = window(level)
    dims_a, dims_b = graded_dimensions(a, bound), graded_dimensions(b, bound)
    table = [{"r_charge": str(r), "A": dims_a.get(r, {}).get("dimension", 0), "B": dims_b.get(r, {}).get("dimension", 0)}
             for r in sorted(set(dims_a) | set(dims_b))]
    evidence = {"level": level, "window": f"R <= {bound}", "grades": table}
    failures = [row["r_charge"] for row in table if row["A"] != row["B"]]
    if failures:
        return Obligation(name=name, category="chiral_ring", outcome=Outcome.FAILED,
                          message=f"chiral ring dimensions differ at R = {', '.join(failures)}", evidence=evidence)
    if not any(row["A"] for row in table):
        return Obligation(name=name, category="chiral_ring", outcome=Outcome.UNKNOWN,
                          message=f"no single-trace operator with R <= {bound} on either side", evidence=evidence)
    return Obligation(name=name, category="chiral_ring", outcome=Outcome.CERTIFIED,
                      message=f"dimensions agree at every R-charge up to {bound}", evidence=evidence)
