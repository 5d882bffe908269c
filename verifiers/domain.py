"""Domain checkers named by a task (DualityCert, PHACT, MatPCR) as one verifier node.

DualityCert checks the task's claim file at final-judge strictness; its obligations appear here under
the prefix "dualitycert:".  Checkers not built yet report not_implemented; a task naming none gets a
not_applicable obligation.
"""

from __future__ import annotations

from pathlib import Path

from verifiers.certificate import Certificate, Obligation, Outcome, digest, not_implemented
from verifiers.dualitycert.registry import FINAL, certify
from verifiers.dualitycert.theory import MalformedTheory, parse_claim, read_json
from verifiers.protocol import Subject


def dualitycert_obligations(claim_file: Path) -> list[Obligation]:
    """The claim's DualityCert obligations (final settings), or one error naming why it cannot be read."""
    try:
        claim = parse_claim(read_json(claim_file))
    except MalformedTheory as error:
        return [Obligation(name="dualitycert:claim", category="dualitycert", outcome=Outcome.ERROR,
                           message=f"{claim_file.name}: {error}")]
    return [obligation.model_copy(update={"name": f"dualitycert:{obligation.name}"})
            for obligation in certify(claim, FINAL).obligations]


class DomainCheckVerifier:
    name = "domain_checks"

    def verify(self, subject: Subject) -> Certificate:
        obligations: list[Obligation] = []
        for check in subject.task.task.domain_checks:
            if check.checker == "dualitycert":
                obligations += dualitycert_obligations(subject.task.domain_inputs[check.checker])
            else:
                obligations.append(not_implemented(check.checker, check.checker,
                                                   f"the {check.checker} checker is not built yet"))
        if not obligations:
            obligations.append(Obligation(name="domain_checks", category="domain", outcome=Outcome.NOT_APPLICABLE,
                                          message="the task names no domain checker"))
        return Certificate(verifier=self.name, subject_digest=digest(subject.script.read_text()),
                           obligations=tuple(obligations))
