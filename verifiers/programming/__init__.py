"""The Programming verifier: does the Author's script run?

Built so far: syntax, one sandboxed plain execution, and the results/figure contract.  Unit tests of
element functions and layered integration tests are obligations reported as not_implemented until
their issue lands; they never certify.
"""

from __future__ import annotations

from verifiers.certificate import Certificate, Outcome, digest, not_implemented
from verifiers.execution import (
    execute_script, execution_obligation, figure_obligation, results_obligation, syntax_obligation,
)
from verifiers.protocol import Subject


class ProgrammingVerifier:
    name = "programming"

    def verify(self, subject: Subject) -> Certificate:
        source = subject.script.read_text()
        obligations = [syntax_obligation(source)]
        if obligations[0].outcome is Outcome.CERTIFIED:
            result = execute_script(subject.script, subject.workdir, subject.pool, subject.limits)
            obligations += [execution_obligation(result), results_obligation(subject.workdir),
                            figure_obligation(subject.workdir)]
        obligations += [
            not_implemented("unit_tests", "unit", "element-function unit tests are not built yet"),
            not_implemented("integration_tests", "integration", "layered integration tests are not built yet"),
        ]
        return Certificate(verifier=self.name, subject_digest=digest(source), obligations=tuple(obligations))
