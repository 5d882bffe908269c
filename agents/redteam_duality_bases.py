"""DualityCert red-team classes on the field basis and the size of rationals (issue 36, item 5).

- field_redefinitions: a seed pair (A, B the dual) with A or B rewritten by a change of field basis that
  no physics sees: a rational rotation (3/5, 4/5), (5/13, 12/13) or (8/17, 15/17) of two fields with the same
  gauge representation (the same source and target nodes) and the same R-charge, a shift X -> X + c Y of such
  a pair, or a rescaling X -> l X. The superpotential is rewritten by substitution and expanded as
  cyclic words; one to three such changes are composed. A redefinition is invertible, so the claim stays as right as the seed's: FAILED is a false
  failure.
- field_redefinitions_wrong: the same redefinition of A against a B that is not the dual (a seed dual
  perturbed in rank, R-charge or W): CERTIFIED is a false certificate.
- huge_rationals: every R-charge and coefficient of the seed pair written as a fraction of 4301-6000-digit
  numerator and denominator equal to its value, e.g. 2/3 as (2 10^k)/(3 10^k): the claim stays right, so a
  refusal is a false refusal and FAILED a false failure.
- huge_rationals_wrong: the same spelling of a wrong B: CERTIFIED is a false certificate.

The truth of each trial is the independent judge's label of the seed's own A against the B before its
rewriting (ground_truth.label): rewriting changes no label, and the judge never sees the rewritten text.
"""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from typing import Any

from physvec.agents.redteam import DETAIL_CHARS, Judged, _crash, _pick, seed_pairs
from physvec.verifiers.certificate import Verdict
from physvec.verifiers.dualitycert.ground_truth import Label, label
from physvec.verifiers.dualitycert.perturb import apply, candidates
from physvec.verifiers.dualitycert.registry import FINAL, certify as certify_claim
from physvec.verifiers.dualitycert.theory import MalformedTheory, Term, Theory, parse_claim

BASIS_CLASSES = ("field_redefinitions", "field_redefinitions_wrong", "huge_rationals", "huge_rationals_wrong")
ROTATIONS = ((Fraction(3, 5), Fraction(4, 5)), (Fraction(5, 13), Fraction(12, 13)), (Fraction(8, 17), Fraction(15, 17)))
"""Pythagorean cosines and sines: rotations with exact rational entries."""
HUGE_DIGITS = (4301, 6000)
"""Python refuses int(str) past 4300 digits by default: the smallest size that crosses it, up to 6000."""

Substitution = dict[str, list[tuple[Fraction, str]]]


def _equal_pairs(theory: Theory) -> list[tuple[str, str]]:
    """Pairs of fields a change of basis may mix: arrows with the same ends and R-charge, singlets of equal R."""
    groups: dict[tuple, list[str]] = {}
    for arrow in theory.arrows:
        groups.setdefault(("arrow", arrow.source, arrow.target, arrow.r_charge), []).append(arrow.label)
    for singlet in theory.singlets:
        groups.setdefault(("singlet", singlet.r_charge), []).append(singlet.label)
    return [(a, b) for labels in groups.values() for i, a in enumerate(labels) for b in labels[i + 1:]]


def _cyclic(factors: tuple[str, ...]) -> tuple[str, ...]:
    """A trace's canonical word: its least rotation (a trace is cyclic)."""
    return min(factors[i:] + factors[:i] for i in range(len(factors)))


def substituted(theory: Theory, substitution: Substitution) -> Theory:
    """W with each field replaced by its linear combination, expanded and collected as cyclic words."""
    collected: dict[tuple[str, ...], Fraction] = {}
    for term in theory.superpotential:
        words: list[tuple[Fraction, tuple[str, ...]]] = [(term.coefficient, ())]
        for factor in term.factors:
            words = [(c * d, word + (name,)) for c, word in words for d, name in substitution.get(factor, [(1, factor)])]
        for c, word in words:
            key = _cyclic(word)
            collected[key] = collected.get(key, Fraction(0)) + c
    terms = tuple(Term(coefficient=c, factors=w) for w, c in collected.items() if c)
    return theory.model_copy(update={"superpotential": terms})


def redefined(theory: Theory, rng: random.Random) -> tuple[Theory, str]:
    """``theory`` in another field basis: a rotation or shift of a pair of equal fields, or a rescaling of one
    field (the only change left to a theory whose fields all differ)."""
    pairs = _equal_pairs(theory)
    how = _pick(rng, ("rotation", "shift", "rescaling")) if pairs else "rescaling"
    if how == "rescaling":
        field = _pick(rng, [a.label for a in theory.arrows] + [s.label for s in theory.singlets])
        scale = Fraction(_pick(rng, (-1, 1)) * rng.randint(1, 7), rng.randint(1, 5))
        return substituted(theory, {field: [(scale, field)]}), f"rescaling {field} -> {scale} {field}"
    x, y = _pick(rng, pairs)
    if how == "rotation":
        cos, sin = _pick(rng, ROTATIONS)
        table = {x: [(cos, x), (sin, y)], y: [(-sin, x), (cos, y)]}
        return substituted(theory, table), f"rotation ({x}, {y}) by ({cos}, {sin})"
    c = Fraction(_pick(rng, (-1, 1)) * rng.randint(1, 5), rng.randint(1, 3))
    return substituted(theory, {x: [(Fraction(1), x), (c, y)]}), f"shift {x} -> {x} + {c} {y}"


def _wrong_dual(dual: Theory, rng: random.Random) -> tuple[Theory, str]:
    pool = candidates(dual)
    kind = _pick(rng, sorted(k for k, found in pool.items() if found))
    perturbation = _pick(rng, pool[kind])
    return apply(dual, perturbation), perturbation.name


def _huge(value: Fraction, digits: int) -> str:
    """``value`` as a fraction string whose numerator and denominator have at least ``digits`` digits, built
    as text (no int-to-str conversion, which the same 4300-digit limit refuses)."""
    zeros = "0" * (digits - len(str(value.denominator)))
    return f"{value.numerator}{zeros}/{value.denominator}{zeros}"


def huge_spelled(data: Any, digits: int) -> Any:
    """A dumped theory with every fraction string (R-charges and coefficients) spelled huge."""
    if isinstance(data, dict):
        return {k: (_huge(Fraction(v), digits) if k in ("r_charge", "coefficient") else huge_spelled(v, digits))
                for k, v in data.items()}
    if isinstance(data, list):
        return [huge_spelled(item, digits) for item in data]
    return data


def _dumped(theory: Theory) -> dict[str, Any]:
    return json.loads(json.dumps(theory.model_dump(mode="json")))


def _candidate(kind: str, rng: random.Random) -> tuple[str, Theory, Theory, dict[str, Any], str]:
    """(cell, A, B as the judge sees them, the claim as the checker reads it, variant)."""
    cell, a, dual = _pick(rng, seed_pairs())
    b, variant = (_wrong_dual(dual, rng) if kind.endswith("_wrong") else (dual, "the dual"))
    if kind.startswith("field_redefinitions"):
        side = "a" if kind.endswith("_wrong") or rng.random() < 0.5 else "b"
        rewritten, steps = a if side == "a" else b, []
        for _ in range(rng.randint(1, 3)):  # one change of basis, or a composition of up to three
            rewritten, how = redefined(rewritten, rng)
            steps.append(how)
        how = ", then ".join(steps)
        shown_a, shown_b = (rewritten, b) if side == "a" else (a, rewritten)
        return cell, a, b, {"theory_a": _dumped(shown_a), "theory_b": _dumped(shown_b)}, f"{variant}; {side}: {how}"
    digits = rng.randint(*HUGE_DIGITS)
    sides = _pick(rng, ("a", "b", "ab"))
    claim = {f"theory_{s}": huge_spelled(_dumped(t), digits) if s in sides else _dumped(t)
             for s, t in (("a", a), ("b", b))}
    return cell, a, b, claim, f"{variant}; {digits}-digit rationals in {sides}"


def basis_trial(kind: str, rng: random.Random) -> Judged:
    """One claim of ``kind`` certified at final strictness and judged by the seed's label.

    Why a trial may end unknown: the checker may decline a basis question it cannot decide (the issue allows
    unknown, never failed), or the independent judge may leave the seed pair or its perturbed B unlabelled."""
    cell, a, b, claim_data, variant = _candidate(kind, rng)
    variant = f"{cell}: {variant}"
    given = {"cell": cell, "claim": _clipped(claim_data)}
    try:
        truth, why = label(a, b)
    except Exception as error:  # the judge's own failure: the trial cannot be judged
        truth, why = Label.UNLABELLED, f"the ground truth raised {type(error).__name__}: {error}"
    try:
        claim = parse_claim(claim_data)
    except MalformedTheory as error:
        return Judged(variant, "refused", truth.value, false_refusal=truth is Label.RIGHT,
                      false_alarm=truth is Label.RIGHT, unknown=truth is Label.UNLABELLED,
                      detail=re.sub(r"\d{40,}", lambda m: f"<{len(m.group())} digits>", str(error))[:DETAIL_CHARS],
                      input=given)
    try:
        certificate = certify_claim(claim, FINAL)
    except Exception as error:
        return _crash(variant, error, given)
    verdict = certificate.verdict
    failed = [o.name for o in certificate.failed()]
    return Judged(variant, verdict.value, truth.value,
                  false_certificate=verdict is Verdict.CERTIFIED and truth is Label.WRONG,
                  false_failure=verdict is Verdict.FAILED and truth is Label.RIGHT,
                  unknown=truth is Label.UNLABELLED or verdict is Verdict.UNKNOWN,
                  false_alarm=truth is Label.RIGHT and verdict is not Verdict.CERTIFIED,
                  detail=f"{why}; failed rows: {', '.join(failed) or 'none'}"[:DETAIL_CHARS], input=given)


def _clipped(data: Any) -> Any:
    """The claim for the record, each huge fraction string cut to its first 40 characters and its length."""
    if isinstance(data, dict):
        return {k: _clipped(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_clipped(item) for item in data]
    if isinstance(data, str) and len(data) > 200:
        return f"{data[:40]}... ({len(data)} characters)"
    return data

