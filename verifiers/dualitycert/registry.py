"""The obligation registry: every check DualityCert knows of, run on a claim, as one certificate.

The verdict follows the certificate core: failed if any obligation failed, else certified if any
certified, else unknown.  A certificate says which consistency conditions hold; it is not a proof of
duality.  Rows the checker does not compute are listed with status not_implemented, so a reader sees
what was not checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from physvec.verifiers.certificate import Certificate, Obligation, Outcome, digest, not_implemented
from physvec.verifiers.dualitycert import obligations
from physvec.verifiers.dualitycert.audits import a_maximisation, unitarity
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
    obligations.central_charge_a,
    obligations.central_charge_c,
)
UNBUILT: tuple[tuple[str, str, str], ...] = (
    ("superconformal_index", "index", "the superconformal index is not computed"),
    ("operator_map", "operator_map", "no map of chiral operators between A and B is checked"),
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
        found += [a_maximisation(theory, side), unitarity(theory, side, settings.level)]
    return found


def claim_digest(claim: Claim) -> str:
    """sha256 of the claim's canonical JSON: the certificate names exactly what it checked."""
    return digest(json.dumps(claim.model_dump(mode="json"), sort_keys=True))


Check = tuple[str, Callable[[], list[Obligation]]]
"""A named unit of work of the registry and the obligations it produces (timed by the benchmark)."""


def planned_checks(claim: Claim, settings: Settings = INTERACTION) -> list[Check]:
    """The registry's work on ``claim``, in certificate order."""
    a, b = claim.theory_a, claim.theory_b
    checks: list[Check] = [(check.__name__, lambda check=check: [check(a, "A"), check(b, "B")]) for check in PER_THEORY]
    checks += [(check.__name__, lambda check=check: [check(a, b)]) for check in MATCHING]
    checks.append(("chiral_ring", lambda: [obligations.chiral_ring(a, b, settings.level)]))
    checks.append(("audits", lambda: _audits(claim, settings)))
    checks.append(("unbuilt", lambda: [not_implemented(name, category, why) for name, category, why in UNBUILT]))
    return checks


def certify(claim: Claim, settings: Settings = INTERACTION) -> Certificate:
    """Every registry row on ``claim``."""
    found = [obligation for _, check in planned_checks(claim, settings) for obligation in check()]
    return Certificate(verifier=VERIFIER, subject_digest=claim_digest(claim), obligations=tuple(found),
                       summary={"level": settings.level, "audits": settings.audits})
