"""Each DualityCert obligation as a function from theories to one Obligation with its evidence table.

Per theory: the cubic gauge anomaly, the SU(2) Witten anomaly, the gauge-R anomaly, and the gauge
invariance and R-charge of every superpotential term.  Per claim: 't Hooft matching of Tr R and Tr R^3
and of the mixed anomalies of the non-R U(1)s, equal central charges a and c, the bounded chiral ring,
the operator map (B's relations are the images of A's at some node) and the copy guard.  Numbers in evidence are fraction strings.  A check that cannot decide (beyond its
work bound, or its input out of reach) says unknown and why; it never hangs.
"""

from __future__ import annotations

from fractions import Fraction

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.dualitycert.anomalies import (central_charges, cubic_anomaly, doublet_count, mixed_r_anomaly,
                                             r_trace)
from physvec.verifiers.dualitycert.bounds import WorkBoundExceeded, size_problems
from physvec.verifiers.dualitycert.chiral_ring import graded_stream, ring_preconditions, window
from physvec.verifiers.dualitycert.dualize import DualisationError, dualize
from physvec.verifiers.dualitycert.exact_linear import Q
from physvec.verifiers.dualitycert.field_basis import anomalies_on, cartan_subalgebra, hidden_symmetries, symmetry_algebra
from physvec.verifiers.dualitycert.global_symmetries import Anomalies, Underivable, flavour_symmetries, map_invariants
from physvec.verifiers.dualitycert.isomorphism import is_copy_of, same_sectors
from physvec.verifiers.dualitycert.memo import per_theory
from physvec.verifiers.dualitycert.normal_form import NotExact, normal_form
from physvec.verifiers.dualitycert.operator_map import compare_at_node
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


def _bounded(name: str, category: str, a: Theory, b: Theory) -> Obligation | None:
    """Unknown when either theory is beyond the size the bounded checks accept."""
    problems = size_problems(a, "A") + size_problems(b, "B")
    if not problems:
        return None
    return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                      message="not run: " + "; ".join(problems))


def chiral_ring(a: Theory, b: Theory, level: int) -> Obligation:
    """Generators of the single-trace chiral ring (chiral_ring.py) agree at every R-charge in the window
    of level L.  Grades are compared in increasing R as both sides are built, so a wrong B fails at its
    first differing grade without the rest being built."""
    name, category = "chiral_ring", "chiral_ring"
    if (too_large := _bounded(name, category, a, b)) is not None:
        return too_large
    blockers = [f"A: {p}" for p in ring_preconditions(a)] + [f"B: {p}" for p in ring_preconditions(b)]
    if blockers:
        return Obligation(name=name, category=category, outcome=Outcome.NOT_APPLICABLE,
                          message="the chiral ring cannot be computed: " + "; ".join(blockers),
                          evidence={"level": level})
    bound = window(level)
    streams = {"A": graded_stream(a, bound), "B": graded_stream(b, bound)}
    dims: dict[str, dict[Fraction, int]] = {"A": {}, "B": {}}
    reached = {"A": Fraction(-1), "B": Fraction(-1)}
    infinity = bound + 1

    def table() -> list[dict[str, object]]:
        return [{"r_charge": str(r), "A": dims["A"].get(r, 0), "B": dims["B"].get(r, 0)}
                for r in sorted(set(dims["A"]) | set(dims["B"]))]
    try:
        while min(reached.values()) < infinity:
            side = min(reached, key=lambda key: reached[key])
            step = next(streams[side], None)
            if step is None:
                reached[side] = infinity
            else:
                reached[side] = step[0]
                if step[1]:
                    dims[side][step[0]] = step[1]
            settled = min(reached.values())
            differing = [r for r in sorted(set(dims["A"]) | set(dims["B"]))
                         if r <= settled and dims["A"].get(r, 0) != dims["B"].get(r, 0)]
            if differing:
                return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                                  message=f"chiral ring generators differ at R = {differing[0]}",
                                  evidence={"level": level, "window": f"R <= {bound}", "grades": table()})
    except WorkBoundExceeded as error:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                          message=f"work bound reached before R = {bound} ({error}); grades agree up to "
                                  f"R = {min(reached.values())}",
                          evidence={"level": level, "grades": table()})
    evidence = {"level": level, "window": f"R <= {bound}", "grades": table()}
    if not dims["A"]:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN, evidence=evidence,
                          message=f"no single-trace operator with R <= {bound} on either side: nothing discriminates")
    return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED, evidence=evidence,
                      message=f"generators agree at every R-charge up to {bound}")


MAX_DUALISED_FIELDS = 128
"""dualize (exact integrating-out of massive fields) is run for the operator map and the self-dual exemption
only up to this many fields of A."""


def not_a_copy(a: Theory, b: Theory) -> Obligation:
    """B is not A in disguise (isomorphism.py), unless it is also A's Seiberg dual at some node.

    Rule for self-dual cells: when B is a copy of A and B has the same sectors as dualize(A, k) for some
    node k (dP1 nodes 0 and 1, dP2 phase I node 3), B is that dual, and the claim is judged by the other
    obligations; otherwise a copy fails.
    """
    name, category = "not_a_copy", "copy_guard"
    if (too_large := _bounded(name, category, a, b)) is not None:
        return too_large
    try:
        if not is_copy_of(b, a):
            return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED,
                              message="B is not A up to relabelling, conjugation, massive fields and decoupled sectors")
        if len(a.arrows) + len(a.singlets) > MAX_DUALISED_FIELDS:
            return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                              message=f"B is a copy of A; whether A is self-dual at some node is not checked beyond "
                                      f"{MAX_DUALISED_FIELDS} fields (work bound)")
        for node in a.nodes:
            try:
                dual = dualize(a, node)
            except DualisationError:
                continue
            if same_sectors(b, dual):
                return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED,
                                  evidence={"self_dual_node": node},
                                  message=f"B is a copy of A, and so is A's Seiberg dual at node {node}: "
                                          "a self-dual node, so the copy is that dual")
    except (NotExact, WorkBoundExceeded) as error:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                          message=f"whether B is a copy of A could not be decided: {error}")
    return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                      message="B is theory A itself (up to relabelling, conjugation, massive fields and decoupled "
                              "sectors), and A has no self-dual node")


def _plain(value: object) -> object:
    """Evidence in JSON: fractions as strings."""
    if isinstance(value, (Fraction, Q)):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def thooft_flavour_u1(a: Theory, b: Theory) -> Obligation:
    """Mixed anomalies of the non-R U(1)s with R (Tr Q, Tr R^2 Q, Tr R Q^2, Tr Q^3) match under the map
    the anomalies determine (global_symmetries.py).  A difference is a failure only when neither field
    basis hides symmetries; otherwise both sides are compared again on a Cartan subalgebra of all their
    symmetries (field_basis.py), which no redefinition of fields changes."""
    name, category = "thooft_flavour_u1", "thooft_anomaly"
    if (too_large := _bounded(name, category, a, b)) is not None:
        return too_large
    theories = {"A": a, "B": b}
    try:
        diagonal = {side: _diagonal_invariants(t) for side, t in theories.items()}
        found = {side: invariants for side, (_, invariants) in diagonal.items()}
    except Underivable as error:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                          message=f"no map of the global U(1)s can be derived: {error}")
    differing = _differing(found)
    evidence = {"A": _plain(found["A"]), "B": _plain(found["B"])}
    k = found["A"]["visible_u1s"]
    if not differing:
        pinned = len([d for d in found["A"].get("pinning_sequence", []) if d])
        return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED, evidence=evidence,
                          message=f"mixed anomalies of the {k} non-R U(1)s match (map pinned on {pinned} of {k} "
                                  "directions; basis-free invariants for the rest)")
    hidden = {side: hidden_symmetries(t, diagonal[side][0]) for side, t in theories.items()}
    if not any(hidden.values()):
        return Obligation(name=name, category=category, outcome=Outcome.FAILED, evidence=evidence,
                          message=f"mixed U(1) anomalies differ: {differing}")
    return _compared_on_cartan(name, category, theories, hidden, differing)


@per_theory(maxsize=256)
def _diagonal_invariants(theory: Theory) -> tuple[int, dict[str, object]]:
    """How many U(1)s act diagonally in the written basis, and their anomaly invariants.  Cached: a fixture set
    pairs each electric theory with every wrong dual of it (read only: the evidence is built from a copy)."""
    basis = flavour_symmetries(theory)
    return len(basis), map_invariants(Anomalies(theory, basis))


def _differing(found: dict[str, dict[str, object]]) -> str:
    """The invariants that differ between the sides ('' when none), contractions named."""
    a, b = found["A"], found["B"]
    differing = sorted(key for key in a.keys() | b.keys() if a.get(key) != b.get(key))
    contractions = [key for key in a.get("contractions", {})
                    if a["contractions"].get(key) != b.get("contractions", {}).get(key)]
    return ", ".join(differing) + (f" ({', '.join(contractions)})" if contractions else "")


def _compared_on_cartan(name: str, category: str, theories: dict[str, Theory],
                        hidden: dict[str, list | None], differing: str) -> Obligation:
    """The diagonal U(1)s differ but a field basis hides symmetries: compare the tori of all symmetries."""
    hiding = ", ".join(f"{side}'s basis hides {len(cartan) - len(flavour_symmetries(theories[side]))}"
                       for side, cartan in hidden.items() if cartan)
    try:
        tori = {side: cartan if cartan is not None else cartan_subalgebra(symmetry_algebra(theories[side]))
                for side, cartan in hidden.items()}
        found = {side: map_invariants(anomalies_on(theories[side], torus)) for side, torus in tori.items()}
    except Underivable as error:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                          message=f"the diagonal U(1)s differ ({differing}) but {hiding} symmetries, and on "
                                  f"the torus of all symmetries no map can be derived: {error}")
    evidence = {"diagonal_differs": differing, "A": _plain(found["A"]), "B": _plain(found["B"])}
    again = _differing(found)
    if again:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN, evidence=evidence,
                          message=f"mixed anomalies differ ({again}) on a Cartan subalgebra of all symmetries; "
                                  f"{hiding} symmetries, and a failure is reported only in bases that hide none")
    return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED, evidence=evidence,
                      message=f"mixed anomalies of the {found['A']['visible_u1s']} non-R U(1)s match on a Cartan "
                              f"subalgebra of all symmetries ({hiding} symmetries: a field redefinition explains "
                              f"the diagonal difference {differing})")


def operator_map(a: Theory, b: Theory) -> Obligation:
    """B's chiral-ring relations are the images of A's under the duality map at some node (operator_map.py):
    normal_form(B) is dualize(A, k), couplings included, up to labels, conjugation and field rescalings.

    The generator count cannot see which operator a singlet's F-term kills; this row can.  Certified when
    some node matches; failed when no node's dual has B's field content (ranks, arrows, singlets and their
    R-charges: no field redefinition changes those); unknown when the fields match but the couplings do
    not (a redefinition mixing fields of equal charges can drop or create a term, and none is searched),
    when a node could not be decided, or when no node of A can be dualised, naming why."""
    name, category = "operator_map", "operator_map"
    if (too_large := _bounded(name, category, a, b)) is not None:
        return too_large
    if len(a.arrows) + len(a.singlets) > MAX_DUALISED_FIELDS:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                          message=f"not run: A has more than {MAX_DUALISED_FIELDS} fields (work bound of dualize)")
    try:
        candidate = normal_form(b)
    except NotExact as error:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                          message=f"B's massive fields cannot be integrated out exactly: {error}")
    findings = []
    for node in a.nodes:
        finding = compare_at_node(a, candidate, node)
        findings.append(finding)
        if finding.couplings_match:
            return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED,
                              evidence={"node": node, "nodes": [f.row() for f in findings]},
                              message=f"B is A's Seiberg dual at node {node} with its couplings: every relation of "
                                      "B's chiral ring is the image of one of A's")
    evidence = {"nodes": [f.row() for f in findings]}
    undecided = [f for f in findings if f.dualisable and f.couplings_match is None and f.fields_match is not False]
    if undecided:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN, evidence=evidence,
                          message="the operator map could not be decided at node(s) "
                                  + ", ".join(f"{f.node} ({f.reason})" for f in undecided))
    if not any(f.dualisable for f in findings):
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN, evidence=evidence,
                          message="no node of A can be Seiberg-dualised here, so no operator map is known: "
                                  + "; ".join(f"node {f.node}: {f.reason}" for f in findings))
    near = [f.node for f in findings if f.fields_match]
    if near:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN, evidence=evidence,
                          message=f"B has the fields of the dual at node(s) {', '.join(map(str, near))} but not its "
                                  "couplings up to field rescalings, so B's chiral ring relates other operators, unless "
                                  "a redefinition mixing fields of equal charges (X -> X + c Y, or + c Y Z) maps one "
                                  "onto the other; such redefinitions are not searched, so this is no proof of error")
    return Obligation(name=name, category=category, outcome=Outcome.FAILED, evidence=evidence,
                      message="B's superpotential is not the image of A's at any node: B has the field content of no "
                              "node's dual")
