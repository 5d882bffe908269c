"""Depth-1 perturbations of a magnetic theory: the faults a wrong duality claim is made of.

drop_w_term removes one superpotential term; flip_w_sign negates one term's coefficient;
r_charge_perturb moves one field's R-charge by +1/3 or -1/3; rank_perturb moves one node's rank by +1 or
-1.  Each perturbation names itself, so a fixture says exactly how it differs from a certified dual.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from physvec.verifiers.dualitycert.theory import Theory

CLASSES = ("drop_w_term", "flip_w_sign", "r_charge_perturb", "rank_perturb")
R_STEP = Fraction(1, 3)


@dataclass(frozen=True)
class Perturbation:
    """One change to a theory: its class, what it touches (term index, field label or node) and by how much."""

    kind: str
    target: str
    step: str = ""

    @property
    def name(self) -> str:
        return f"{self.kind}({self.target}{', ' + self.step if self.step else ''})"


def candidates(theory: Theory) -> dict[str, list[Perturbation]]:
    """Every depth-1 perturbation of ``theory``, by class."""
    terms = range(len(theory.superpotential))
    return {
        "drop_w_term": [Perturbation("drop_w_term", str(i)) for i in terms],
        "flip_w_sign": [Perturbation("flip_w_sign", str(i)) for i in terms],
        "r_charge_perturb": [Perturbation("r_charge_perturb", label, step) for label in theory.field_r()
                             for step in ("+1/3", "-1/3")],
        "rank_perturb": [Perturbation("rank_perturb", str(node), step) for node in theory.nodes
                         for step in ("+1", "-1")],
    }


def apply(theory: Theory, perturbation: Perturbation) -> Theory:
    """The perturbed theory (ranks may drop below 2: the caller decides what a malformed result means)."""
    kind, target = perturbation.kind, perturbation.target
    if kind == "drop_w_term":
        terms = list(theory.superpotential)
        del terms[int(target)]
        return theory.model_copy(update={"superpotential": tuple(terms)})
    if kind == "flip_w_sign":
        terms = list(theory.superpotential)
        terms[int(target)] = terms[int(target)].model_copy(update={"coefficient": -terms[int(target)].coefficient})
        return theory.model_copy(update={"superpotential": tuple(terms)})
    if kind == "r_charge_perturb":
        step = Fraction(perturbation.step)
        return theory.model_copy(update={
            "arrows": tuple(a.model_copy(update={"r_charge": a.r_charge + step}) if a.label == target else a
                            for a in theory.arrows),
            "singlets": tuple(s.model_copy(update={"r_charge": s.r_charge + step}) if s.label == target else s
                              for s in theory.singlets)})
    if kind == "rank_perturb":
        ranks = list(theory.ranks)
        ranks[int(target)] += int(perturbation.step)
        return theory.model_copy(update={"ranks": tuple(ranks)})
    raise ValueError(f"unknown perturbation class {kind!r} (known: {', '.join(CLASSES)})")
