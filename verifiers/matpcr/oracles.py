"""The six oracles behind one call: a claims file in, a certificate with one obligation per claim out.

Claims come from the file, and from its reasoning text through the deterministic parser; each obligation
says which (its evidence names the span read).  A claim about another constraint than the item's, or an
item whose reference is unknown, is malformed input named by field, never a verdict.  No claim, no
certificate: a reasoning chain with nothing checkable in it is one unknown obligation.
"""

from __future__ import annotations

from collections.abc import Callable

from physvec.verifiers.certificate import Certificate, Obligation, Outcome, digest
from physvec.verifiers.matpcr import bandgap, diffraction, magnetism, microscopy, raman, stability
from physvec.verifiers.matpcr.bounds import bounded
from physvec.verifiers.matpcr.corpus import Item, corpus_item
from physvec.verifiers.matpcr.extraction import Reading, read_reasoning
from physvec.verifiers.matpcr.judgement import Judgement
from physvec.verifiers.matpcr.references import ReferenceProvider, UnknownMaterial, offline_snapshot
from physvec.verifiers.matpcr.schema import Claim, ClaimsFile, MalformedInput, Span
from physvec.verifiers.matpcr.structures import STRUCTURES

VERIFIER = "matpcr"
ORACLES: dict[str, Callable[..., Judgement]] = {
    "diffraction": diffraction.judge, "microscopy": microscopy.judge, "raman": raman.judge,
    "stability": stability.judge, "band_gap": bandgap.judge, "magnetisation": magnetism.judge}
NEEDS_PROVIDER = ("stability", "band_gap", "magnetisation")


def resolve(claims_file: ClaimsFile, provider: ReferenceProvider) -> tuple[Item, list[Claim], Reading]:
    """The item, every claim (the file's, then the parser's) and what the parser read; MalformedInput names a field
    that cannot stand."""
    item = corpus_item(claims_file.item) if isinstance(claims_file.item, str) else claims_file.item
    material = getattr(item, "material", None)
    if item.constraint == "diffraction" and material is not None and material not in STRUCTURES:
        raise MalformedInput(f"item.material: no reference structure {material!r} (known: {', '.join(STRUCTURES)})")
    if item.constraint in NEEDS_PROVIDER:
        try:
            provider.record(str(material))
        except UnknownMaterial:
            raise MalformedInput(f"item.material: {provider.name} holds no material {material!r}") from None
    for index, claim in enumerate(claims_file.claims):
        if claim.constraint != item.constraint:
            raise MalformedInput(f"claims.{index}.constraint: {claim.constraint!r} does not match the item's "
                                 f"{item.constraint!r}")
    reading = read_reasoning(claims_file.reasoning, item.constraint) if claims_file.reasoning else Reading([], [])
    return item, distinct([*claims_file.claims, *reading.claims]), reading


def distinct(claims: list[Claim]) -> list[Claim]:
    """Each statement once (same value, unit, label, reflection, temperature and element), the first occurrence
    kept: repeating a claim the oracle accepts must not raise a response's consistency rate, and a moment
    claimed at 4 K and at 1100 K, or per atom and per Fe atom, are two statements."""
    seen, kept = set(), []
    for claim in claims:
        key = (claim.value, claim.unit, claim.label, tuple(claim.hkl or ()), claim.temperature_K, claim.per_element)
        if key not in seen:
            seen.add(key)
            kept.append(claim)
    return kept


def judge(item: Item, claim: Claim, provider: ReferenceProvider) -> Judgement:
    """The oracle of the item's constraint on one claim, within its time and memory bounds (bounds.py)."""
    oracle = ORACLES[item.constraint]
    arguments = (item, claim, provider) if item.constraint in NEEDS_PROVIDER else (item, claim)
    return bounded(lambda: oracle(*arguments))


def _describe(claim: Claim) -> str:
    said = claim.label if claim.label is not None else f"{claim.value:g} {claim.unit}"
    return said + (f" ({''.join(map(str, claim.hkl))})" if claim.hkl else "")


def obligation(index: int, claim: Claim, judgement: Judgement) -> Obligation:
    evidence = {**judgement.evidence, "extracted_by": claim.extracted_by}
    if claim.span is not None:
        evidence["span"] = claim.span.model_dump()
    return Obligation(name=f"{claim.constraint}:{index}:{_describe(claim)}", category=claim.constraint,
                      outcome=judgement.outcome, message=judgement.message, evidence=evidence, sealed=judgement.sealed)


def unchecked_obligation(constraint: str, span: Span) -> Obligation:
    """A statement of the reasoning the parser could not turn into a claim (a negation, an absence, a range): it
    is neither checked nor ignored, since a false one beside a true claim would otherwise leave the reasoning
    certified; it keeps the certificate from certifying."""
    return Obligation(name=f"{constraint}:unchecked:{span.text}", category=constraint, outcome=Outcome.UNKNOWN,
                      required=True, evidence={"span": span.model_dump(), "extracted_by": "parser"},
                      message="a statement the parser cannot check (negated, absent, a range or an ambiguous "
                              "number): the reasoning is not certified while it stands unchecked")


def certify(claims_file: ClaimsFile, provider: ReferenceProvider | None = None) -> Certificate:
    """Every claim judged by its oracle (MalformedInput when the file's item or claims cannot stand)."""
    provider = provider or offline_snapshot()
    item, claims, reading = resolve(claims_file, provider)
    obligations = [obligation(index, claim, judge(item, claim, provider)) for index, claim in enumerate(claims)]
    obligations += [unchecked_obligation(item.constraint, span) for span in reading.unchecked]
    if not obligations:
        obligations.append(Obligation(name="claims", category=item.constraint, outcome=Outcome.UNKNOWN,
                                      message="no checkable claim: the parser read no number-and-unit form or "
                                              "class word of this constraint in the reasoning"))
    checked = [o for o in obligations if o.outcome in (Outcome.CERTIFIED, Outcome.FAILED)]
    summary = {"item": item.id, "constraint": item.constraint, "claims": len(claims),
               "checkable": len(checked), "consistent": sum(o.outcome is Outcome.CERTIFIED for o in checked),
               "parsed_from_reasoning": sum(c.extracted_by == "parser" for c in claims)}
    return Certificate(verifier=VERIFIER, subject_digest=digest(claims_file.model_dump_json()),
                       obligations=tuple(obligations), summary=summary)
