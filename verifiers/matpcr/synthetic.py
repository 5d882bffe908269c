"""Synthetic labelled claims for exercising the detector where no model output exists (CI, a dry run).

Injection cases (injection.py: correct claims and constructed violations, labelled by the oracle) are written
as sentences in three fixed styles, each style standing for a source.  A detector score on these says how the
machinery behaves, not how any model writes; reports name them synthetic.
"""

from __future__ import annotations

from physvec.verifiers.matpcr.detector import Example
from physvec.verifiers.matpcr.injection import sample
from physvec.verifiers.matpcr.oracles import judge
from physvec.verifiers.matpcr.references import OfflineSnapshot
from physvec.verifiers.matpcr.schema import CONSTRAINTS, Claim
from physvec.verifiers.certificate import Outcome

STYLES = {
    "synthetic-terse": "{subject}: {said}.",
    "synthetic-hedged": "From the data, {subject} is probably {said}, though this should be confirmed.",
    "synthetic-assertive": "Clearly {subject} must be {said}; this follows directly from the physics.",
}
SUBJECTS = {"diffraction": "the peak", "microscopy": "the particle size", "raman": "the Raman line",
            "stability": "the energy above the hull", "band_gap": "the material", "magnetisation": "the net moment"}


def _said(claim: Claim) -> str:
    if claim.label is not None:
        return claim.label.replace("_", " ")
    unit = {"deg": "degrees 2theta", "um": "µm", "cm-1": "cm^-1", "muB/f.u.": "μB per formula unit",
            "muB/atom": "μB per atom"}.get(str(claim.unit), str(claim.unit))
    return f"{claim.value:g} {unit}"


def synthetic_examples(per_family: int, seed: int, provider: OfflineSnapshot) -> list[Example]:
    """per_family claims of each family (half of them injected violations), labelled by the oracle."""
    examples = []
    for family in CONSTRAINTS:
        for index, case in enumerate(sample(family, 0.5, per_family, seed, provider)):
            style = sorted(STYLES)[index % len(STYLES)]
            outcome = judge(case.item, case.claim, provider).outcome
            if outcome in (Outcome.CERTIFIED, Outcome.FAILED):
                text = STYLES[style].format(subject=SUBJECTS[family], said=_said(case.claim))
                examples.append(Example(text, outcome is Outcome.FAILED, family, style))
    return examples
