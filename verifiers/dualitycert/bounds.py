"""Work bounds: every DualityCert check counts what it builds and stops, with a reason, at a fixed limit.

A claim is adversarial input: two adjoints at R = 1/50 make the chiral-ring window hold astronomically
many words, a symmetric quiver can make graph matching exponential.  A count of work units (words,
basis vectors, matrix entries, matcher steps) is deterministic, so the same claim always ends the same
way on any machine; wall-clock timeouts would not be.  A check that runs out of work ends in
``unknown`` naming the bound, and an unknown required check keeps the claim from being certified.
"""

from __future__ import annotations

from dataclasses import dataclass

from physvec.verifiers.dualitycert.theory import Theory

MAX_NODES = 64
MAX_FIELDS = 512
MAX_TERMS = 2048
MAX_TERM_LENGTH = 32
"""The largest theory the checks beyond the linear-time anomaly sums will look at."""


class WorkBoundExceeded(RuntimeError):
    """A check needed more work than its bound allows; the message says which bound and where."""


@dataclass
class Budget:
    """A counter of work units that raises WorkBoundExceeded once ``limit`` is passed."""

    limit: int
    what: str
    used: int = 0

    def spend(self, units: int = 1) -> None:
        self.used += units
        if self.used > self.limit:
            raise WorkBoundExceeded(f"{self.what}: more than {self.limit} work units")


def size_problems(theory: Theory, side: str) -> list[str]:
    """Why ``theory`` is too large for the bounded checks (empty when it is not)."""
    sizes = (("gauge nodes", len(theory.ranks), MAX_NODES),
             ("fields", len(theory.arrows) + len(theory.singlets), MAX_FIELDS),
             ("W terms", len(theory.superpotential), MAX_TERMS),
             ("factors in one W term", max((len(t.factors) for t in theory.superpotential), default=0),
              MAX_TERM_LENGTH))
    return [f"{side}: {count} {what} exceed the bound {limit}" for what, count, limit in sizes if count > limit]
