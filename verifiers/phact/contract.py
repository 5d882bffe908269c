"""The structural contract: what a goal fixes, what a design may write, and the engine's verdict.

A goal file binds some inputs of its domain and frees the others (each with bounds, or a list of
choices); targets constrain derived quantities, with the goal's tolerance.  A design may write only the
free inputs, all of them, within their bounds; every certified number is computed by the domain's
engine from the goal's bound values and the design's free values, so nothing the model says about an
outcome can reach the certificate.

Verdicts: certified when every obligation holds; impossible only with an engine-made certificate (the
bound inputs alone miss a target that no free input reaches, the best value a search over the free box
achieves still misses a target, or each target is reachable alone but the least total shortfall over the
box is still positive), and only when the miss exceeds the numerical resolution of the search and the
float evaluation behind it (a smaller miss is no proof: the verdict is unknown, with both numbers); unknown
when the engine is outside its competence.  A design that meets every target is a witness against
impossibility: no search result overrides it, and a design file that meets its goal while claiming the goal impossible fails on that claim, by name.  Where the search cannot cover
the box (search.ProofOutOfReach) the engine claims no impossibility and says why.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from physvec.verifiers.certificate import Certificate, Obligation, Outcome, digest
from physvec.verifiers.phact.domains import DOMAINS, Domain
from physvec.verifiers.phact.engines import ENGINE_REFUSALS, OutsideCompetence
from physvec.verifiers.phact.schema import Design, Goal, margin, meets, unmet

VERIFIER = "phact"


def contract_obligations(goal: Goal, design: Design) -> list[Obligation]:
    """The design may write only free inputs, must write each, and must stay within their bounds."""
    written = set(design.values)
    forged = sorted(written & set(goal.bound))
    unknown = sorted(written - set(goal.bound) - set(goal.free))
    missing = sorted(set(goal.free) - written)
    outside = sorted(name for name in written & set(goal.free) if not goal.free[name].admits(design.values[name]))

    def row(name: str, bad: list[str], message: str) -> Obligation:
        return Obligation(name=name, category="contract", outcome=Outcome.FAILED if bad else Outcome.CERTIFIED,
                          message=f"{message}: {', '.join(bad)}" if bad else "holds", evidence={"inputs": bad})
    return [row("writes_only_free_inputs", forged + unknown, "the design writes inputs the goal binds or does not have"),
            row("sets_every_free_input", missing, "the design leaves free inputs unset"),
            row("free_inputs_within_bounds", outside, "the design leaves the bounds of")]


def target_obligations(goal: Goal, values: dict[str, Any]) -> list[Obligation]:
    return [Obligation(name=f"target:{t.quantity} {t.op} {t.value:g}", category="target",
                       outcome=Outcome.CERTIFIED if meets(t, float(values[t.quantity]), goal.tolerance) else Outcome.FAILED,
                       message=f"{t.quantity} = {float(values[t.quantity]):.6g}",
                       evidence={"quantity": t.quantity, "value": float(values[t.quantity]), "op": t.op,
                                 "target": t.value, "tolerance": goal.tolerance})
            for t in goal.targets]


def impossibility(goal: Goal, domain: Domain) -> dict[str, Any] | None:
    """An engine-made certificate that no design in the free box meets some target, or None.

    It depends on the goal alone, so it is computed once per goal and process (a proposer loop asks
    after every failed design); so is a refusal.

    Raises:
        OutsideCompetence: the engine cannot decide (it evaluates nothing in the box, or the search cannot
            cover it); the message says why.
    """
    proof, refused = _impossibility_of(goal.model_dump_json(), domain.name)
    if refused:
        raise OutsideCompetence(refused)
    return copy.deepcopy(proof)


@functools.lru_cache(maxsize=1024)
def _impossibility_of(goal_json: str, domain_name: str) -> tuple[dict[str, Any] | None, str]:
    try:
        return _search_impossibility(Goal.model_validate_json(goal_json), DOMAINS[domain_name]), ""
    except ENGINE_REFUSALS as error:
        return None, str(error) or type(error).__name__


def _resolved(miss: float, resolution: float, what: str) -> dict[str, float]:
    """The miss and the resolution for a proof's evidence, when the miss exceeds the resolution.

    Raises:
        WithinResolution: the miss is no larger than what the search and float evaluation can resolve.
    """
    from physvec.verifiers.phact.search import WithinResolution

    if not miss > resolution:
        raise WithinResolution(f"the best design found misses {what} by {miss:.3g}, within the numerical resolution "
                               f"{resolution:.3g} of the search and float evaluation: no proof either way")
    return {"miss": miss, "resolution": resolution}


def _search_impossibility(goal: Goal, domain: Domain) -> dict[str, Any] | None:
    """The first target no design reaches by more than the numerical resolution, else the joint proof, else None.

    A target missed only within the resolution does not stop the search for a real proof elsewhere; with none,
    it makes the goal undecided (WithinResolution), never impossible.  So does a sampled search in which the
    engine declined designs (ProofOutOfReach): a grid does not resolve where the region the engine can judge
    ends, and a design that meets the target may lie between a judged point and a declined one."""
    # the search (numpy, networkx) is imported only where a design misses its goal
    from physvec.verifiers.phact.search import EXHAUSTIVE, WithinResolution, best_value, resolution

    undecided: OutsideCompetence | None = None
    for target in goal.targets:
        depends = {name for name in goal.free if domain.reaches(name, target.quantity)}
        if not depends:
            value = float(domain.evaluate(dict(goal.bound), [target.quantity])[target.quantity])
            point: dict[str, Any] = {name: free.first() for name, free in goal.free.items()}
            evidence = {"reason": "the bound inputs alone fix this quantity", "value": value}
            exhaustive = True
        else:
            found = best_value(goal, domain, target)
            value, point, exhaustive = found.score, found.point, found.method == EXHAUSTIVE
            evidence = {"reason": "no design in the free box reaches it", "best_achievable": value, "at": point,
                        "free_inputs_on_path": sorted(depends), **found.evidence()}
        if meets(target, value, goal.tolerance):
            continue
        if (edge := _unresolved_edge(found if depends else None)) is not None:
            undecided = undecided or edge
            continue
        try:
            shown = _resolved(-margin(target, value, goal.tolerance),
                              resolution(goal, domain, point, exhaustive, [target])[0], target.quantity)
        except WithinResolution as error:
            undecided = undecided or error
            continue
        return {"target": target.model_dump(), **evidence, **shown}
    proof = _joint_impossibility(goal, domain) if len(goal.targets) > 1 and goal.free else None
    if proof is None and undecided is not None:
        raise undecided
    return proof


def _unresolved_edge(found: Any) -> OutsideCompetence | None:
    """ProofOutOfReach when a sampled search (not an exhaustive one) met designs the engine declined."""
    from physvec.verifiers.phact.search import EXHAUSTIVE, ProofOutOfReach

    if found is None or not found.declined or found.method == EXHAUSTIVE:
        return None
    return ProofOutOfReach(f"the search met {found.declined} designs outside the engine's competence ({found.reason});"
                           " a sampled search does not resolve where that region begins, so no impossibility is"
                           " claimed")


def _joint_impossibility(goal: Goal, domain: Domain) -> dict[str, Any] | None:
    """Each target alone is reachable; whether the best compromise still misses them together, by more than
    the resolution of the total shortfall (each target's resolution in units of its threshold, as ``shortfall``)."""
    from physvec.verifiers.phact.search import EXHAUSTIVE, least_shortfall, resolution

    found = least_shortfall(goal, domain)
    if found is None:
        return None
    if (edge := _unresolved_edge(found)) is not None:
        raise edge
    wanted = [t.quantity for t in goal.targets]
    values = domain.evaluate({**goal.bound, **found.point}, wanted)
    if not unmet(goal, values):
        return None
    each = resolution(goal, domain, found.point, found.method == EXHAUSTIVE, goal.targets)
    shown = _resolved(found.score, sum(r / max(abs(t.value), 1e-12) for r, t in zip(each, goal.targets, strict=True)),
                      "the targets together (total relative shortfall)")
    return {"targets": [t.model_dump() for t in goal.targets],
            "reason": "each target is reachable alone, but no design in the free box meets them together",
            "least_total_shortfall": found.score, "at": found.point,
            "values_there": {t.quantity: float(values[t.quantity]) for t in goal.targets}, **found.evidence(), **shown}


def _claim_obligation(meets_goal: bool, proof: dict[str, Any] | None, undecided: str) -> Obligation:
    """The design file's own claim that its goal is impossible, judged like any other claim."""
    if meets_goal:
        outcome, message = Outcome.FAILED, "the design claims its goal is impossible, yet it meets every target itself"
    elif proof is not None:
        outcome, message = Outcome.CERTIFIED, "the engine's impossibility certificate confirms the claim"
    elif undecided:
        outcome, message = Outcome.UNKNOWN, f"the engine cannot decide the claim: {undecided}"
    else:
        outcome, message = Outcome.FAILED, "the engine finds no impossibility certificate for the goal"
    return Obligation(name="design_claims_impossible", category="impossibility", outcome=outcome, message=message)


def certify(goal: Goal, domain: Domain, design: Design) -> Certificate:
    """The engine's verdict on a design for a goal.

    A design meeting every target is certified evidence that the goal is possible, so the impossibility
    search runs only for a design that does not (a search is evidence, a witness is proof).  The design's
    own impossibility claim never sets the verdict: it is an obligation of its own, failed when the design
    refutes it or the engine has no certificate for it."""
    obligations = contract_obligations(goal, design)
    summary: dict[str, Any] = {"goal": goal.id, "domain": domain.name, "design_claims_impossible": design.claims_impossible}
    subject = digest(json.dumps({"goal": goal.model_dump(mode="json"), "design": design.model_dump(mode="json")},
                                sort_keys=True, default=str))
    proof, declined, undecided = None, False, ""
    if all(o.outcome is Outcome.CERTIFIED for o in obligations):
        try:
            values = domain.evaluate({**goal.bound, **design.values})
            summary["derived"] = {n.name: values[n.name] for n in domain.derived}
            obligations += target_obligations(goal, values)
        except ENGINE_REFUSALS as error:
            # outside competence nothing is certified: only the contract's failures stand beside "unknown"
            declined = True
            obligations = [o for o in obligations if o.outcome is Outcome.FAILED] + [Obligation(
                name="engine_competence", category="competence", outcome=Outcome.UNKNOWN, message=str(error))]
    meets_goal = not declined and all(o.outcome is Outcome.CERTIFIED for o in obligations)
    if not meets_goal:
        try:
            proof = impossibility(goal, domain)
        except ENGINE_REFUSALS as error:
            undecided = str(error)
            if not declined:
                obligations.append(Obligation(name="engine_competence", category="competence", outcome=Outcome.UNKNOWN,
                                              message=f"the engine cannot decide whether the goal is possible: {error}"))
    if design.claims_impossible:
        obligations.append(_claim_obligation(meets_goal, proof, undecided))
    return Certificate(verifier=VERIFIER, subject_digest=subject, obligations=tuple(obligations),
                       impossibility=proof, summary=summary)
