"""Ground truth for benchmark fixtures and the red team: is a candidate B a Seiberg dual of A?

A campaign must be able to see the verifier's own mistakes, so a label cannot come from the code that
decides the verdict.  The verdict's operator-map obligation compares normal_form(B) with dualize(A, k)
(normal_form.py, dualize.py, isomorphism.py, couplings.py); a label from that same code would agree with
every one of its bugs.  Labels therefore come from mutation_judge.py: Seiberg duality written a second time
from the physics (quiver mutation with potential, the baryonic shift of the dual quarks' R-charges, massive
fields removed by substituting their F-terms), compared by its own isomorphism search with its own exact
test of which coefficient changes a field rescaling over C produces.  It imports none of the verdict's
modules (tests/verifiers/dualitycert/test_mutation_judge.py asserts it).

Where the two disagree, one of them is wrong: benchmarks/duality_judges_agreement.py labels the seed cells'
duals at every node, disguised copies of them, every depth-1 perturbation and the red-team classes with
both, and lists each disagreement.
"""

from __future__ import annotations

from enum import StrEnum

from physvec.verifiers.dualitycert.mutation_judge import judge
from physvec.verifiers.dualitycert.theory import Theory


class Label(StrEnum):
    RIGHT = "right"
    WRONG = "wrong"
    UNLABELLED = "unlabelled"


def label(electric: Theory, candidate: Theory) -> tuple[Label, str]:
    """RIGHT when ``candidate`` is A's Seiberg dual at some node (up to relabelling, conjugation, massive
    fields and field rescalings), WRONG when it is the dual at none, UNLABELLED with the reason when the
    judge could not decide (a mass it cannot integrate out exactly, an inconsistent A, its work bound)."""
    truth, why = judge(electric, candidate)
    return {True: Label.RIGHT, False: Label.WRONG, None: Label.UNLABELLED}[truth], why
