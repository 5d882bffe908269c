"""Domain checkers named by a task (DualityCert, PHACT, MatPCR) as one verifier node.

None is built yet: each named checker reports not_implemented; a task naming none gets a
not_applicable obligation.
"""

from __future__ import annotations

from verifiers.certificate import Certificate, Obligation, Outcome, digest, not_implemented
from verifiers.protocol import Subject


class DomainCheckVerifier:
    name = "domain_checks"

    def verify(self, subject: Subject) -> Certificate:
        checks = subject.task.task.domain_checks
        obligations = [
            not_implemented(check.checker, check.checker, f"the {check.checker} checker is not built yet")
            for check in checks
        ] or [Obligation(name="domain_checks", category="domain", outcome=Outcome.NOT_APPLICABLE,
                         message="the task names no domain checker")]
        return Certificate(verifier=self.name, subject_digest=digest(subject.script.read_text()),
                           obligations=tuple(obligations))
