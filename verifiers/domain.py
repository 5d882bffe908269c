"""Domain checkers named by a task (DualityCert, PHACT, MatPCR) as one verifier node.

DualityCert checks the task's claim file at final-judge strictness; its obligations appear here under
the prefix "dualitycert:".  PHACT judges a design file {"goal": GOAL, "design": DESIGN} (GOAL a goal
object or the id of a corpus goal) with its engine, under the prefix "phact:"; an engine impossibility
certificate is a failed "phact:goal_is_achievable" obligation carrying the certificate as evidence.  The
design file's own impossibility claim is one obligation among the others ("phact:design_claims_impossible",
failed when the design meets its goal), never the verdict.  MatPCR judges a claims file (an item, or a corpus
item id, with claims or reasoning to parse) with its oracles, one obligation per claim under the prefix
"matpcr:"; the oracles have one strictness, so the final judge sees what `matpcr check` prints.
Checkers not built yet report not_implemented; a task naming none gets a not_applicable obligation.
"""

from __future__ import annotations

from pathlib import Path

from physvec.verifiers.certificate import Certificate, Obligation, Outcome, digest, not_implemented
from physvec.verifiers.dualitycert.registry import FINAL, certify
from physvec.verifiers.dualitycert.theory import MalformedTheory, parse_claim, read_json
from physvec.verifiers.matpcr import oracles as matpcr
from physvec.verifiers.matpcr.schema import MalformedInput as MalformedClaims
from physvec.verifiers.matpcr.schema import parse_claims_file
from physvec.verifiers.matpcr.schema import read_json as read_matpcr_json
from physvec.verifiers.phact import contract as phact
from physvec.verifiers.phact.corpus import corpus_goal
from physvec.verifiers.phact.domains import Domain
from physvec.verifiers.phact.schema import Design, Goal, MalformedInput, parse_design, parse_goal
from physvec.verifiers.phact.schema import read_json as read_phact_json  # dualitycert has its own read_json
from physvec.verifiers.protocol import Subject


def dualitycert_obligations(claim_file: Path) -> list[Obligation]:
    """The claim's DualityCert obligations (final settings), or one error naming why it cannot be read."""
    try:
        claim = parse_claim(read_json(claim_file))
    except MalformedTheory as error:
        return [Obligation(name="dualitycert:claim", category="dualitycert", outcome=Outcome.ERROR,
                           message=f"{claim_file.name}: {error}")]
    return [obligation.model_copy(update={"name": f"dualitycert:{obligation.name}"})
            for obligation in certify(claim, FINAL).obligations]


def read_phact_check(design_file: Path) -> tuple[Goal, Domain, Design]:
    """The goal, its engine and the design of a PHACT domain-check file, or MalformedInput naming the field."""
    data = read_phact_json(design_file, "design file")
    if not isinstance(data, dict) or set(data) != {"goal", "design"} or not isinstance(data["design"], dict):
        raise MalformedInput("the file needs exactly 'goal' (an object or a corpus goal id) and 'design' (an object)")
    goal, domain = corpus_goal(data["goal"]) if isinstance(data["goal"], str) else parse_goal(data["goal"])
    return goal, domain, parse_design({"goal": goal.id, **data["design"]})


def phact_obligations(design_file: Path) -> list[Obligation]:
    """The engine's obligations for the design file, or one error naming the field it cannot read."""
    try:
        goal, domain, design = read_phact_check(design_file)
    except MalformedInput as error:
        return [Obligation(name="phact:design", category="phact", outcome=Outcome.ERROR,
                           message=f"{design_file.name}: {error}")]
    certificate = phact.certify(goal, domain, design)
    obligations = [o.model_copy(update={"name": f"phact:{o.name}"}) for o in certificate.obligations]
    if certificate.impossibility is not None:
        obligations.append(Obligation(name="phact:goal_is_achievable", category="phact", outcome=Outcome.FAILED,
                                      message="the engine proves that no design within the goal's bounds meets it",
                                      evidence=certificate.impossibility))
    return obligations


def matpcr_obligations(claims_file: Path) -> list[Obligation]:
    """One obligation per claim of the file, or one error naming the field that cannot be read."""
    try:
        certificate = matpcr.certify(parse_claims_file(read_matpcr_json(claims_file, "claims")))
    except MalformedClaims as error:
        return [Obligation(name="matpcr:claims", category="matpcr", outcome=Outcome.ERROR,
                           message=f"{claims_file.name}: {error}")]
    return [o.model_copy(update={"name": f"matpcr:{o.name}"}) for o in certificate.obligations]


class DomainCheckVerifier:
    name = "domain_checks"

    def verify(self, subject: Subject) -> Certificate:
        obligations: list[Obligation] = []
        for check in subject.task.task.domain_checks:
            if check.checker == "dualitycert":
                obligations += dualitycert_obligations(subject.task.domain_inputs[check.checker])
            elif check.checker == "phact":
                obligations += phact_obligations(subject.task.domain_inputs[check.checker])
            elif check.checker == "matpcr":
                obligations += matpcr_obligations(subject.task.domain_inputs[check.checker])
            else:
                obligations.append(not_implemented(check.checker, check.checker,
                                                   f"the {check.checker} checker is not built yet"))
        if not obligations:
            obligations.append(Obligation(name="domain_checks", category="domain", outcome=Outcome.NOT_APPLICABLE,
                                          message="the task names no domain checker"))
        return Certificate(verifier=self.name, subject_digest=digest(subject.script.read_text()),
                           obligations=tuple(obligations))
