"""The run-level judge: the verdict of a whole reproduction from its stage certificates.

Stricter than a single certificate's rule: a reproduction is certified only when no stage failed,
no stage left an obligation unbuilt or errored, and every stage either certified or was entirely
not applicable (a guard that did not fail, such as provenance, counts as nothing either way).  So a placeholder
can never let a run through.
"""

from __future__ import annotations

from collections.abc import Iterable

from physvec.verifiers.certificate import Certificate, Outcome, Verdict


def judge_run(certificates: Iterable[Certificate], run_completed: bool = True) -> Verdict:
    """The reproduction's verdict from the latest certificate of each stage; a run that stopped before its
    graph's end (the model or the budget gave out, so later stages never judged the script) is unknown at
    best."""
    certificates = list(certificates)
    if not run_completed:
        verdict = judge_run(certificates)
        return verdict if verdict in (Verdict.FAILED, Verdict.IMPOSSIBLE) else Verdict.UNKNOWN
    verdicts = {certificate.verdict for certificate in certificates}
    if Verdict.IMPOSSIBLE in verdicts:
        return Verdict.IMPOSSIBLE
    if Verdict.FAILED in verdicts:
        return Verdict.FAILED
    for certificate in certificates:
        only_not_applicable = all(o.outcome is Outcome.NOT_APPLICABLE or (o.guard and o.outcome is not Outcome.FAILED)
                                  for o in certificate.obligations)
        if not certificate.is_complete or (certificate.verdict is not Verdict.CERTIFIED and not only_not_applicable):
            return Verdict.UNKNOWN
    return Verdict.CERTIFIED if Verdict.CERTIFIED in verdicts else Verdict.UNKNOWN
