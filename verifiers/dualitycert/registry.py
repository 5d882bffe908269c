"""The obligation registry: every check DualityCert knows of, run on a claim, as one certificate.

The verdict follows the certificate core: failed if any obligation failed, else certified if any
certified, else unknown.  A certificate says which consistency conditions hold; it is not a proof of
duality.  Rows the checker does not compute are listed with status not_implemented, so a reader sees
what was not checked.

Every entry point (verify, the pipeline's domain-check node, the repair loop, the final judge) goes
through ``certify``, so the copy guard and the completeness rule below hold everywhere.

Completeness.  A claim is only as strong as its most discriminating check, and a check that could not
run proves nothing.  The row ``required_checks`` is unknown when a check the claim kind requires (REQUIRED:
the copy guard, the flavour-U(1) anomalies, the chiral ring and the operator map) did not decide (not applicable, unknown,
error, not run), or when any other check ended unknown or in error (a work bound, an input it cannot
read); its message and evidence name each one.  The row is required, so the claim's verdict is unknown
(the core certificate rule): a want of evidence is not evidence of a wrong dual, and only a check that
found one (a failed row) fails the claim.  A check
that raises is recorded as an error row with its traceback, never a crash.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from physvec.verifiers.certificate import Certificate, Obligation, Outcome, digest, not_implemented
from physvec.verifiers.dualitycert import obligations
from physvec.verifiers.dualitycert.memo import per_theory
from physvec.verifiers.dualitycert.theory import Claim, Theory

VERIFIER = "dualitycert"
INTERACTION_LEVEL = 3
"""Chiral-ring truncation level during a repair loop."""
FINAL_LEVEL = 5
"""Chiral-ring truncation level of the final judge: at least as strict as anything seen in the loop."""


@dataclass(frozen=True)
class Settings:
    """How hard to check: the chiral-ring level and whether the opt-in R-charge audits run."""

    level: int = INTERACTION_LEVEL
    audits: bool = False


INTERACTION = Settings(level=INTERACTION_LEVEL)
FINAL = Settings(level=FINAL_LEVEL)

PER_THEORY: tuple[Callable[[Theory, str], Obligation], ...] = (
    obligations.cubic_gauge_anomaly,
    obligations.witten_anomaly,
    obligations.gauge_r_anomaly,
    obligations.superpotential_gauge_invariance,
    obligations.superpotential_r_charge,
)
MATCHING: tuple[Callable[[Theory, Theory], Obligation], ...] = (
    obligations.thooft_tr_r,
    obligations.thooft_tr_r3,
    obligations.thooft_flavour_u1,
    obligations.central_charge_a,
    obligations.central_charge_c,
    obligations.not_a_copy,
    obligations.operator_map,
)
REQUIRED = ("not_a_copy", "thooft_flavour_u1", "chiral_ring", "operator_map")
"""Checks a duality claim cannot be certified without: the copy guard, the two that pin what Tr R and
Tr R^3 leave open (how R mixes with the flavour U(1)s; the W couplings, through the chiral ring), and the
operator map (which operators the couplings relate, which no count sees)."""
UNBUILT: tuple[tuple[str, str, str], ...] = (
    ("superconformal_index", "index", "the superconformal index is not computed"),
    ("deformation_matching", "deformations", "relevant and marginal deformations are not matched"),
    ("moduli_space_matching", "moduli_space", "moduli spaces are not computed"),
    ("conformal_manifold", "conformal_manifold", "conformal manifold dimensions are not computed"),
    ("generalized_symmetries", "generalized_symmetries", "one-form and higher-form symmetries are not compared"),
    ("protected_quantities", "protected_quantities", "protected quantities beyond a, c are not compared"),
)
AUDIT_NAMES = ("a_maximisation", "unitarity")


def _audits(claim: Claim, settings: Settings) -> list[Obligation]:
    if not settings.audits:
        return [Obligation(name=f"{side}.{name}", category="audit", outcome=Outcome.NOT_APPLICABLE,
                           message="opt-in audit not requested")
                for side in ("A", "B") for name in AUDIT_NAMES]
    found = []
    for side, theory in (("A", claim.theory_a), ("B", claim.theory_b)):
        from physvec.verifiers.dualitycert.audits import a_maximisation, unitarity  # sympy: only when asked for

        found += [a_maximisation(theory, side), unitarity(theory, side, settings.level)]
    return found


def claim_digest(claim: Claim) -> str:
    """sha256 of the claim's canonical JSON: the certificate names exactly what it checked."""
    return digest(json.dumps(claim.model_dump(mode="json"), sort_keys=True))


Check = tuple[str, Callable[[], list[Obligation]]]
"""A named unit of work of the registry and the obligations it produces (timed by the benchmark)."""


@per_theory(maxsize=2048)
def _per_theory(check: Callable[[Theory, str], Obligation], theory: Theory, side: str) -> Obligation:
    """A per-theory row, once per (check, theory, side): a repair loop and a fixture set check one A again and
    again.  Obligations are immutable and their evidence is never written after they are made."""
    return check(theory, side)


def _guarded(name: str, check: Callable[[], list[Obligation]]) -> Callable[[], list[Obligation]]:
    """The check, or one error row carrying its traceback if it raises."""
    def run() -> list[Obligation]:
        try:
            return check()
        except Exception as error:  # recorded, never raised: a claim must not crash the verdict
            return [Obligation(name=name, category="error", outcome=Outcome.ERROR,
                               message=f"{type(error).__name__}: {error}",
                               evidence={"traceback": traceback.format_exc(limit=8)[-4000:]})]
    return run


def planned_checks(claim: Claim, settings: Settings = INTERACTION) -> list[Check]:
    """The registry's work on ``claim``, in certificate order (the completeness row comes last, in certify)."""
    a, b = claim.theory_a, claim.theory_b
    checks: list[Check] = [(check.__name__, lambda check=check: [_per_theory(check, a, "A"), _per_theory(check, b, "B")])
                           for check in PER_THEORY]
    checks += [(check.__name__, lambda check=check: [check(a, b)]) for check in MATCHING]
    checks.append(("chiral_ring", lambda: [obligations.chiral_ring(a, b, settings.level)]))
    checks.append(("audits", lambda: _audits(claim, settings)))
    checks.append(("unbuilt", lambda: [not_implemented(name, category, why) for name, category, why in UNBUILT]))
    return [(name, _guarded(name, check)) for name, check in checks]


def completeness(found: list[Obligation]) -> Obligation:
    """``required_checks``: unknown (and required, so the verdict is unknown) when a required check did not
    decide (certified or failed), or when any other check ended unknown or in error.  A required check that
    failed already fails the claim."""
    outcome = {o.name: o for o in found}
    missing = [f"{name} ({outcome[name].outcome.value}: {outcome[name].message})" if name in outcome
               else f"{name} (not run)" for name in REQUIRED
               if name not in outcome or outcome[name].outcome not in (Outcome.CERTIFIED, Outcome.FAILED)]
    missing += [f"{o.name} ({o.outcome.value}: {o.message})" for o in found
                if o.outcome in (Outcome.UNKNOWN, Outcome.ERROR) and o.name not in REQUIRED
                and o.category != "audit"]
    if missing:
        return Obligation(name="required_checks", category="completeness", outcome=Outcome.UNKNOWN, required=True,
                          evidence={"could_not_run": missing},
                          message="not certified: these checks could not decide, so the claim lacks evidence "
                                  "(this is not evidence that B is wrong): " + "; ".join(missing))
    return Obligation(name="required_checks", category="completeness", outcome=Outcome.CERTIFIED,
                      message=f"every required check ran and decided: {', '.join(REQUIRED)}")


def certify(claim: Claim, settings: Settings = INTERACTION) -> Certificate:
    """Every registry row on ``claim``, then the completeness row."""
    found = [obligation for _, check in planned_checks(claim, settings) for obligation in check()]
    found.append(completeness(found))
    return Certificate(verifier=VERIFIER, subject_digest=claim_digest(claim), obligations=tuple(found),
                       summary={"level": settings.level, "audits": settings.audits})
