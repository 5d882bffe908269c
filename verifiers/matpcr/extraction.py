"""Claims read from free text by a deterministic parser of number-and-unit forms and class words.

Only the forms of the item's own constraint are read (a Raman item's text is never searched for 2theta),
so a number belonging to another quantity cannot become a claim of this one.  Every claim keeps the span it
was read from, so a referee can see what the parser took.  What the parser leaves out is not certified by
anyone: a chain with no readable claim has nothing checkable.  Negated class words ("not a metal",
"non-magnetic" read as a negation of "magnetic") are skipped rather than guessed.
"""

from __future__ import annotations

import re

from physvec.verifiers.matpcr.schema import Claim, Constraint, Span

NUMBER = r"(?<![\w.])(?P<value>-?\d+(?:\.\d+)?)"
HKL = r"\(\s*(?P<hkl>-?\d\s*,?\s*-?\d\s*,?\s*-?\d(?:\s*,?\s*-?\d)?)\s*\)"
DIFFRACTION = re.compile(
    rf"(?:{HKL}\s*(?:reflection|peak|line|plane)?s?\s*(?:(?:lies|is|appears|occurs|sits)\s+)?"
    rf"(?:at|near|around|of|=|≈|~|:)?\s*"
    rf"(?:2\s*θ|2\s*theta)?\s*(?:=|≈|~|:|of)?\s*)?{NUMBER}\s*(?P<unit>°|º|degrees?\b|deg\b)", re.IGNORECASE)
BRAGG_ANGLE_BEFORE = re.compile(r"(?<!2)(?<!2\s)(?:θ|theta)\s*(?:=|≈|~|:|of)?\s*$", re.IGNORECASE)
LENGTH = re.compile(rf"{NUMBER}\s*(?P<unit>nm|nanomet(?:er|re)s?|µm|μm|um|microns?|micromet(?:er|re)s?|mm)\b",
                    re.IGNORECASE)
NOT_A_FEATURE_BEFORE = re.compile(r"(scale\s*bar|bar\s+(?:of|is|=)|field\s+of\s+view|image\s+(?:width|height))"
                                  r"[^.;]*$", re.IGNORECASE)
RAMAN = re.compile(rf"{NUMBER}\s*(?P<unit>cm\s*\^?\s*[-−]\s*1|cm⁻¹|/\s*cm|wavenumbers?)", re.IGNORECASE)
HULL_ENERGY = re.compile(rf"{NUMBER}\s*(?P<unit>m?eV)\s*(?:/\s*atom|per\s+atom)", re.IGNORECASE)
STABLE = re.compile(r"\b(?:thermodynamically\s+)?stable\b|\bon\s+the\s+(?:convex\s+)?hull\b", re.IGNORECASE)
GAP = re.compile(rf"{NUMBER}\s*(?P<unit>eV)\b(?!\s*(?:/|per\b))", re.IGNORECASE)
GAP_CLASSES = re.compile(r"\b(?P<label>metal(?:lic)?|semiconduct(?:or|ing)|insulat(?:or|ing))\b", re.IGNORECASE)
MOMENT = re.compile(rf"{NUMBER}\s*(?:μ_?B|µ_?B|mu_?B|Bohr\s+magnetons?)\s*(?P<per>/\s*f\.?\s*u\.?|per\s+formula\s+unit|"
                    r"/\s*atom|per\s+atom)?", re.IGNORECASE)
MAGNETIC_WORDS = re.compile(r"\b(?P<label>antiferromagnet(?:ic)?|ferr[oi]magnet(?:ic)?|diamagnet(?:ic)?|"
                            r"paramagnet(?:ic)?|non-?magnetic)\b", re.IGNORECASE)
NEGATION_BEFORE = re.compile(r"(?:\bnot\s+(?:an?\s+|be\s+)?|n't\s+(?:an?\s+)?|\bnon-|\bno\s+)$", re.IGNORECASE)
LENGTH_UNITS = {"n": "nm", "µ": "um", "μ": "um", "u": "um", "m": "mm"}


def _span(match: re.Match[str]) -> Span:
    return Span(start=match.start(), end=match.end(), text=match.group(0))


def _negated(text: str, match: re.Match[str]) -> bool:
    return NEGATION_BEFORE.search(text[max(0, match.start() - 12):match.start()]) is not None


def _diffraction(text: str) -> list[Claim]:
    claims = []
    for match in DIFFRACTION.finditer(text):
        if match.group("hkl") is None and BRAGG_ANGLE_BEFORE.search(text[max(0, match.start() - 12):match.start()]):
            continue  # a Bragg angle theta, not 2theta
        hkl = [int(index) for index in re.findall(r"-?\d", match.group("hkl"))] if match.group("hkl") else None
        claims.append(Claim(constraint="diffraction", value=float(match.group("value")), unit="deg", hkl=hkl,
                            span=_span(match), extracted_by="parser"))
    return claims


def _length_unit(word: str) -> str:
    lowered = word.lower()
    if lowered.startswith(("micro", "µ", "μ", "um")):
        return "um"
    return "mm" if lowered == "mm" else LENGTH_UNITS.get(lowered[0], "nm")


def _microscopy(text: str) -> list[Claim]:
    return [Claim(constraint="microscopy", value=float(m.group("value")), unit=_length_unit(m.group("unit")),
                  span=_span(m), extracted_by="parser")
            for m in LENGTH.finditer(text) if not NOT_A_FEATURE_BEFORE.search(text[max(0, m.start() - 60):m.start()])]


def _raman(text: str) -> list[Claim]:
    return [Claim(constraint="raman", value=float(m.group("value")), unit="cm-1", span=_span(m), extracted_by="parser")
            for m in RAMAN.finditer(text)]


def _stability(text: str) -> list[Claim]:
    claims = [Claim(constraint="stability", value=float(m.group("value")),
                    unit="meV/atom" if m.group("unit").lower() == "mev" else "eV/atom", span=_span(m),
                    extracted_by="parser") for m in HULL_ENERGY.finditer(text)]
    claims += [Claim(constraint="stability", label="stable", span=_span(m), extracted_by="parser")
               for m in STABLE.finditer(text) if not _negated(text, m)]
    return claims


def _band_gap(text: str) -> list[Claim]:
    claims = [Claim(constraint="band_gap", value=float(m.group("value")), unit="eV", span=_span(m),
                    extracted_by="parser") for m in GAP.finditer(text)]
    for match in GAP_CLASSES.finditer(text):
        if _negated(text, match):
            continue
        word = match.group("label").lower()
        label = "metal" if word.startswith("metal") else "semiconductor" if word.startswith("semi") else "insulator"
        claims.append(Claim(constraint="band_gap", label=label, span=_span(match), extracted_by="parser"))
    return claims


def _magnetisation(text: str) -> list[Claim]:
    claims = [Claim(constraint="magnetisation", value=float(m.group("value")),
                    unit="muB/atom" if m.group("per") and "atom" in m.group("per").lower() else "muB/f.u.",
                    span=_span(m), extracted_by="parser") for m in MOMENT.finditer(text)]
    for match in MAGNETIC_WORDS.finditer(text):
        word = match.group("label").lower()
        if _negated(text, match) and not word.startswith("non"):
            continue
        label = "net_moment" if word.startswith(("ferro", "ferri")) else "zero_net_moment"
        claims.append(Claim(constraint="magnetisation", label=label, span=_span(match), extracted_by="parser"))
    return claims


PARSERS = {"diffraction": _diffraction, "microscopy": _microscopy, "raman": _raman, "stability": _stability,
           "band_gap": _band_gap, "magnetisation": _magnetisation}


def extract_claims(text: str, constraint: Constraint) -> list[Claim]:
    """The claims of ``constraint`` that the parser reads in ``text``, in the order they appear."""
    return sorted(PARSERS[constraint](text), key=lambda claim: claim.span.start if claim.span else 0)
