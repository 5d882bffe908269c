"""Claims read from free text by a deterministic parser of quantities and class words, as a physicist writes them.

One pass finds every quantity (a number, an optional "± uncertainty" or range, and a unit) with patterns whose
repetitions are all bounded, so no input can make them backtrack: the work is linear in the text, which is
capped at MAX_TEXT_CHARS.  Each quantity is then read in its clause: the words right before it (2θ or the Bragg
angle θ, a width, a scale bar, a formation energy, a negation) and right after it (per Fe atom, per pixel,
absent).  pint converts the units (°C to K, Å to nm, meV to eV).

Only the forms of the item's own constraint are read (a Raman item's text is never searched for 2θ), so a
number belonging to another quantity cannot become a claim of this one.  What is read ambiguously is left out
rather than guessed: a range, an uncertainty, a width, "1,332" (a thousands separator or a decimal comma), a
negated or absent feature.  Left out is not certified by anyone: a chain with no readable claim has nothing
checkable.  Every claim keeps the span it was read from, so a referee can see what the parser took.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from physvec.verifiers.matpcr.schema import Claim, Constraint, MalformedInput, Span

MAX_TEXT_CHARS = 50_000
"""The longest reasoning text read: far above any answer to one item, far below what a linear scan notices."""
WINDOW = 60
"""How far before a quantity its clause is read (characters), cut at the clause's start."""

_NUMBER = (r"(?<![\w.,])(?P<{name}_sign>[-+−]?)(?P<{name}_int>\d{{1,12}})"
           r"(?:(?P<{name}_sep>[.,])(?P<{name}_frac>\d{{1,12}}))?(?:[eE](?P<{name}_exp>[-+−]?\d{{1,3}}))?")
_UNITS = {
    "celsius": r"°\s?C\b|℃|degrees?\s+C(?:elsius)?\b",
    "fahrenheit": r"°\s?F\b|degrees?\s+F(?:ahrenheit)?\b",
    "kelvin": r"K\b(?![-‐]?\s?(?:alpha|α|beta|β|edge|shell|point))|kelvins?\b",
    "degree": r"°|º|degrees?\b|deg\b",
    "wavenumber": r"cm\s?\^?\s?\(?[-−]\s?1\)?|cm⁻¹|/\s?cm\b|wavenumbers?\b",
    "nanometer": r"nm\b|nanomet(?:er|re)s?\b",
    "micrometer": r"µm\b|μm\b|um\b|microns?\b|micromet(?:er|re)s?\b",
    "millimeter": r"mm\b|millimet(?:er|re)s?\b",
    "angstrom": r"Å|angstr(?:ö|o)ms?\b",
    "picometer": r"pm\b|picomet(?:er|re)s?\b",
    "millielectron_volt": r"meV\b",
    "electron_volt": r"eV\b",
    "bohr_magneton": r"μ_?B\b|µ_?B\b|mu_?B\b|Bohr\s+magnetons?\b",
}
QUANTITY = re.compile(
    _NUMBER.format(name="a") + r"(?:\s{0,2}(?P<op>±|\+/-|\+-|–|—|-|to)\s{0,2}" + _NUMBER.format(name="b") + ")?"
    + r"\s{0,2}(?P<unit>" + "|".join(f"(?P<{name}>{pattern})" for name, pattern in _UNITS.items()) + ")")
HKL = re.compile(r"\(\s{0,2}(-?\d)\s{0,2},?\s{0,2}(-?\d)\s{0,2},?\s{0,2}(-?\d)(?:\s{0,2},?\s{0,2}(-?\d))?\s{0,2}\)")
CLAUSE_START = re.compile(r"[.!?](?:\s|$)|[;\n]|\bbut\b|\bwhereas\b|\bwhile\b")
NEGATION = re.compile(r"\b(?:not|never|no|nor|neither|without|absent|cannot|isn't|aren't|wasn't|weren't|doesn't|"
                      r"don't|didn't|lacks?|lacking)\b|\bnon-?$", re.IGNORECASE)
ABSENT_AFTER = re.compile(r"^\s{0,3}(?:is|was|are|were|remains?)?\s{0,3}(?:absent|missing|not\s+(?:observed|seen|"
                          r"present|found|detected))\b", re.IGNORECASE)
NOT_A_POSITION = re.compile(r"\b(?:fwhm|full\s+width|half[-\s]width|linewidth|line\s+width|width|broadening|"
                            r"broadened\s+by|spacing|step|shift(?:ed)?\s+by|offset|resolution|error|uncertainty|"
                            r"precision|accuracy)\b[^\d]{0,25}$|[±]\s{0,2}$|\+/-\s{0,2}$", re.IGNORECASE)
TWO_THETA = re.compile(r"(?:\b2\s?[-‐]?\s?(?:θ|Θ|theta)|\btwo[-\s]theta)", re.IGNORECASE)
BARE_THETA = re.compile(r"(?<![2\w‐-])(?<!2\s)(?:θ|Θ|\btheta)\b", re.IGNORECASE)
NOT_A_FEATURE = re.compile(r"(?:scale\s?bar|bar\s+length|field\s+of\s+view|fov|image\s+(?:width|height|size)|"
                           r"working\s+distance|\bwd|pixel\s+size|step\s+size|resolution|wavelength|magnification)"
                           r"\s{0,2}(?:of|is|was|=|:|shows|represents|reads|measures|at)?\s{0,3}"
                           r"(?:about|approximately|around|~|≈)?\s{0,2}$", re.IGNORECASE)
PER_PIXEL_AFTER = re.compile(r"^\s{0,2}(?:/|per)\s{0,2}(?:pixel|px)\b", re.IGNORECASE)
HULL_CONTEXT = re.compile(r"\bhull\b|\bE_?\{?hull\}?|decomposition\s+energy", re.IGNORECASE)
FORMATION_CONTEXT = re.compile(r"\bformation\b|\benthalp|Δ\s?H|\bcohesive\b|\bbinding\b|\btotal\s+energy\b",
                               re.IGNORECASE)
PER_ATOM_AFTER = re.compile(r"^\s{0,2}(?:/|per)\s{0,2}atom\b", re.IGNORECASE)
PER_QUANTITY_AFTER = re.compile(r"^\s{0,2}(?:/|per)\b")
"""an energy per something (per atom, /mol): an energy density, never a gap"""
GAP_CONTEXT = re.compile(r"\bgap\b|\bE_?\{?g\}?\b|absorption\s+edge", re.IGNORECASE)
MOMENT_PER_AFTER = re.compile(
    r"^\s{0,2}(?:/|per)\s{0,2}(?:(?P<formula>f\.?\s?u\.?|formula\s+units?)|(?P<atom>atoms?|sites?|ions?)\b|"
    r"(?:(?:an?|one)\s+)?(?P<element>[A-Z][a-z]?)(?:\s{0,2}(?:atoms?|ions?|sites?))?\b|"
    r"(?:atoms?|ions?)\s+of\s+(?P<element_after>[A-Z][a-z]?)\b)")
AT_TEMPERATURE = re.compile(r"\bat\s{0,2}(?P<value>-?\d{1,5}(?:\.\d{1,4})?)\s{0,2}(?P<unit>K\b|°\s?C\b|℃|°\s?F\b)|"
                            r"\b(?P<room>room[-\s]temperature|ambient\s+temperature)\b", re.IGNORECASE)
ROOM_TEMPERATURE_K = 298.15
STABLE = re.compile(r"\bmetastable\b|\b(?:thermodynamically\s+)?stable\b|\bon\s+the\s+(?:convex\s+)?hull\b",
                    re.IGNORECASE)
GAP_CLASSES = re.compile(r"\b(?P<label>metal(?:lic)?|semiconduct(?:or|ing)|insulat(?:or|ing))\b", re.IGNORECASE)
MAGNETIC_WORDS = re.compile(r"\b(?P<label>antiferromagnet(?:ic|ism)?|ferr[oi]magnet(?:ic|ism)?|"
                            r"diamagnet(?:ic|ism)?|paramagnet(?:ic|ism)?|non-?magnetic)\b", re.IGNORECASE)
ORDERINGS = {"antiferro": "antiferromagnetic", "ferro": "ferromagnetic", "ferri": "ferrimagnetic",
             "dia": "diamagnetic", "para": "paramagnetic"}
KIND_OF_UNIT = {"degree": "angle", "wavenumber": "wavenumber", "nanometer": "length", "micrometer": "length",
                "millimeter": "length", "angstrom": "length", "picometer": "length", "electron_volt": "energy",
                "millielectron_volt": "energy", "bohr_magneton": "moment", "celsius": "temperature",
                "fahrenheit": "temperature", "kelvin": "temperature"}
PINT_UNITS = {"celsius": "degC", "fahrenheit": "degF", "kelvin": "kelvin", "degree": "degree",
              "wavenumber": "1/cm", "nanometer": "nm", "micrometer": "um", "millimeter": "mm", "angstrom": "angstrom",
              "picometer": "pm", "electron_volt": "eV", "millielectron_volt": "meV", "bohr_magneton": "bohr_magneton"}


@cache
def _registry():  # -> pint.UnitRegistry; built once, on the first conversion
    import pint

    return pint.UnitRegistry()


def convert(value: float, unit: str, to: str) -> float:
    """``value`` in physvec's unit name ``unit`` expressed in the pint unit ``to``."""
    registry = _registry()
    return float(registry.Quantity(value, PINT_UNITS[unit]).to(to).magnitude)


@dataclass(frozen=True)
class Quantity:
    """A number with its unit as written, where it stands, and whether it was a range or had an uncertainty."""

    value: float | None
    """None: the number cannot be read without guessing (a comma before exactly three digits)"""
    unit: str
    start: int
    end: int
    text: str
    ranged: bool
    """a range ("20-30 nm", "20 to 30 nm"): no single value is claimed"""


def _number(match: re.Match[str], name: str) -> float | None:
    """The number group ``name`` as a float; None for "1,332" (thousands or a decimal comma: not guessed)."""
    separator, fraction = match.group(f"{name}_sep"), match.group(f"{name}_frac")
    if separator == "," and len(fraction) == 3:
        return None
    sign = "-" if match.group(f"{name}_sign") in ("-", "−") else ""
    exponent = (match.group(f"{name}_exp") or "").replace("−", "-")
    digits = match.group(f"{name}_int") + (f".{fraction}" if fraction else "")
    return float(f"{sign}{digits}" + (f"e{exponent}" if exponent else ""))


def quantities(text: str) -> list[Quantity]:
    """Every number-with-unit in the text, in order."""
    found = []
    for match in QUANTITY.finditer(text):
        unit = next(name for name in _UNITS if match.group(name) is not None)
        ranged = match.group("op") not in (None, "±", "+/-", "+-")
        found.append(Quantity(_number(match, "a"), unit, match.start(), match.end(), match.group(0), ranged))
    return found


def in_clauses(text: str, kind: str) -> Iterator[tuple[Quantity, str, str]]:
    """Each quantity of this kind of unit (KIND_OF_UNIT) with its clause before and after it."""
    for quantity in quantities(text):
        if KIND_OF_UNIT[quantity.unit] == kind:
            yield quantity, clause_before(text, quantity.start), clause_after(text, quantity.end)


def clause_before(text: str, start: int) -> str:
    """The text from the start of the quantity's clause (at most WINDOW characters back) up to it."""
    window = text[max(0, start - WINDOW):start]
    cuts = [match.end() for match in CLAUSE_START.finditer(window)]
    return window[cuts[-1]:] if cuts else window


def clause_after(text: str, end: int) -> str:
    window = text[end:end + WINDOW]
    cut = CLAUSE_START.search(window)
    return window[:cut.start()] if cut else window


def _negated(before: str, after: str = "") -> bool:
    """A negation anywhere in the clause before, or "is absent" right after.  The whole clause, not its last
    words: "No band, even a weak one, appears at 568 cm-1" negates its number across two commas, and reading a
    negation too eagerly only leaves a statement unchecked (unknown), never certified."""
    return NEGATION.search(before) is not None or ABSENT_AFTER.search(after) is not None


def _span(start: int, end: int, text: str) -> Span:
    return Span(start=start, end=end, text=text[start:end])


def _claim(constraint: Constraint, quantity: Quantity, text: str, **fields) -> Claim:
    return Claim(constraint=constraint, span=_span(quantity.start, quantity.end, text), extracted_by="parser",
                 **fields)


def _readable(quantity: Quantity, before: str, after: str, unchecked: list[Span]) -> bool:
    """A single stated value: not a width or uncertainty (a qualifier, skipped), and not a statement the parser
    cannot turn into a claim (a range, an unreadable comma, a negated or absent feature), which is recorded in
    ``unchecked``: a false one of those beside a true claim must not leave the text certified."""
    if NOT_A_POSITION.search(before) is not None:
        return False
    if quantity.value is None or quantity.ranged or _negated(before, after):
        unchecked.append(Span(start=quantity.start, end=quantity.end, text=quantity.text))
        return False
    return True


def _diffraction(text: str, unchecked: list[Span]) -> list[Claim]:
    claims = []
    for quantity, before, after in in_clauses(text, "angle"):
        if not _readable(quantity, before, after, unchecked):
            continue
        two_theta = [m.end() for m in TWO_THETA.finditer(before)]
        bare = [m.end() for m in BARE_THETA.finditer(before)]
        bragg_angle = bool(bare) and (not two_theta or bare[-1] > two_theta[-1])
        value = 2 * quantity.value if bragg_angle else quantity.value
        reflections = list(HKL.finditer(before))
        hkl, start = None, quantity.start
        if reflections and not re.search(r"\d", TWO_THETA.sub("", before[reflections[-1].end():])):
            hkl = [int(index) for index in reflections[-1].groups() if index is not None]
            start = quantity.start - len(before) + reflections[-1].start()  # the span shows the reflection too
        claims.append(Claim(constraint="diffraction", value=value, unit="deg", hkl=hkl,
                            span=_span(start, quantity.end, text), extracted_by="parser"))
    return claims


def _microscopy(text: str, unchecked: list[Span]) -> list[Claim]:
    claims = []
    for quantity, before, after in in_clauses(text, "length"):
        if NOT_A_FEATURE.search(before) or PER_PIXEL_AFTER.search(after) or not _readable(quantity, before, after,
                                                                                          unchecked):
            continue
        unit = {"micrometer": "um", "millimeter": "mm"}.get(quantity.unit, "nm")
        value = quantity.value if quantity.unit in ("nanometer", "micrometer", "millimeter") else \
            convert(quantity.value, quantity.unit, "nm")
        claims.append(_claim("microscopy", quantity, text, value=value, unit=unit))
    return claims


def _raman(text: str, unchecked: list[Span]) -> list[Claim]:
    claims = []
    for quantity, before, after in in_clauses(text, "wavenumber"):
        if _readable(quantity, before, after, unchecked):
            claims.append(_claim("raman", quantity, text, value=quantity.value, unit="cm-1"))
    return claims


def _stability(text: str, unchecked: list[Span]) -> list[Claim]:
    claims = []
    for quantity, before, after in in_clauses(text, "energy"):
        clause = before + after
        if (not PER_ATOM_AFTER.search(after) or not HULL_CONTEXT.search(clause) or FORMATION_CONTEXT.search(before)
                or not _readable(quantity, before, after, unchecked)):
            continue
        unit = "meV/atom" if quantity.unit == "millielectron_volt" else "eV/atom"
        claims.append(_claim("stability", quantity, text, value=quantity.value, unit=unit))
    for match in STABLE.finditer(text):
        if _negated(clause_before(text, match.start()), clause_after(text, match.end())):
            unchecked.append(_span(match.start(), match.end(), text))
        else:
            label = "metastable" if match.group(0).lower() == "metastable" else "stable"
            claims.append(Claim(constraint="stability", label=label, span=_span(match.start(), match.end(), text),
                                extracted_by="parser"))
    return claims


def _band_gap(text: str, unchecked: list[Span]) -> list[Claim]:
    claims = []
    for quantity, before, after in in_clauses(text, "energy"):
        if (PER_QUANTITY_AFTER.search(after) or not GAP_CONTEXT.search(before + after)
                or FORMATION_CONTEXT.search(before) or not _readable(quantity, before, after, unchecked)):
            continue
        value = quantity.value if quantity.unit == "electron_volt" else convert(quantity.value, quantity.unit, "eV")
        claims.append(_claim("band_gap", quantity, text, value=value, unit="eV"))
    for match in GAP_CLASSES.finditer(text):
        if _negated(clause_before(text, match.start()), clause_after(text, match.end())):
            unchecked.append(_span(match.start(), match.end(), text))
            continue
        word = match.group("label").lower()
        label = "metal" if word.startswith("metal") else "semiconductor" if word.startswith("semi") else "insulator"
        claims.append(Claim(constraint="band_gap", label=label, span=_span(match.start(), match.end(), text),
                            extracted_by="parser"))
    return claims


def temperature_of(clause: str) -> float | None:
    """The temperature a clause speaks of ("at 300 K", "at 25 °C", "at room temperature"), in kelvin."""
    match = AT_TEMPERATURE.search(clause)
    if match is None:
        return None
    if match.group("room"):
        return ROOM_TEMPERATURE_K
    unit = match.group("unit").replace(" ", "")
    name = "kelvin" if unit.upper() == "K" else "fahrenheit" if unit.endswith("F") else "celsius"
    return convert(float(match.group("value")), name, "kelvin")


def _per(after: str) -> tuple[str, str | None]:
    """(unit, element) of a moment from what follows it: per formula unit (the default), per atom, per Fe atom."""
    match = MOMENT_PER_AFTER.search(after)
    if match is None or match.group("formula"):
        return "muB/f.u.", None
    element = match.group("element") or match.group("element_after")
    return "muB/atom", element


def _magnetisation(text: str, unchecked: list[Span]) -> list[Claim]:
    claims = []
    for quantity, before, after in in_clauses(text, "moment"):
        if not _readable(quantity, before, after, unchecked):
            continue
        unit, element = _per(after)
        claims.append(_claim("magnetisation", quantity, text, value=quantity.value, unit=unit, per_element=element,
                             temperature_K=temperature_of(before + after)))
    for match in MAGNETIC_WORDS.finditer(text):
        word = match.group("label").lower()
        before, after = clause_before(text, match.start()), clause_after(text, match.end())
        non_magnetic = word.startswith("non")
        if _negated(before, after) and not non_magnetic:
            unchecked.append(_span(match.start(), match.end(), text))
            continue
        label = "zero_net_moment" if non_magnetic else next(name for prefix, name in ORDERINGS.items()
                                                           if word.startswith(prefix))
        claims.append(Claim(constraint="magnetisation", label=label, span=_span(match.start(), match.end(), text),
                            temperature_K=temperature_of(before + after), extracted_by="parser"))
    return claims


PARSERS = {"diffraction": _diffraction, "microscopy": _microscopy, "raman": _raman, "stability": _stability,
           "band_gap": _band_gap, "magnetisation": _magnetisation}


@dataclass(frozen=True)
class Reading:
    """What the parser read in a text: the claims, and the statements of the constraint it could not turn into
    claims (negated or absent features, ranges, ambiguous numbers), each with its span."""

    claims: list[Claim]
    unchecked: list[Span]


def read_reasoning(text: str, constraint: Constraint) -> Reading:
    """The claims of ``constraint`` in ``text`` and its statements left unchecked, each in the order they appear.

    Raises:
        MalformedInput: the text is longer than MAX_TEXT_CHARS.
    """
    if len(text) > MAX_TEXT_CHARS:
        raise MalformedInput(f"reasoning: {len(text)} characters, more than the parser reads ({MAX_TEXT_CHARS})")
    unchecked: list[Span] = []
    claims = PARSERS[constraint](text, unchecked)
    return Reading(sorted(claims, key=lambda claim: claim.span.start if claim.span else 0),
                   sorted(unchecked, key=lambda span: span.start))


def extract_claims(text: str, constraint: Constraint) -> list[Claim]:
    """The claims of ``constraint`` that the parser reads in ``text``, in the order they appear."""
    return read_reasoning(text, constraint).claims
