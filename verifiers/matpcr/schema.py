"""Items, reasoning chains and claims as files: their schema and the one way to read them.

An item is what the oracle judges against (a structure reference or a measured pattern, a scale bar, a
spectrum, a material id); its data are bound by whoever wrote the item, never by the model.  A claim is one
checkable statement about one item: a number with its unit, or a class label.  Every number is finite and
never a boolean (a NaN compares false with every tolerance, so a check on it would silently pass), and
unknown keys are errors, so a misspelled field is named instead of ignored.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from physvec.taskfiles.input_files import UnreadableInput, read_json_input

Constraint = Literal["diffraction", "microscopy", "raman", "stability", "band_gap", "magnetisation"]
CONSTRAINTS: tuple[Constraint, ...] = ("diffraction", "microscopy", "raman", "stability", "band_gap", "magnetisation")
CU_K_ALPHA1_ANGSTROM = 1.54056
"""Cu K-alpha1 (Bearden, Rev. Mod. Phys. 39, 78 (1967)); the default wavelength of a diffraction item."""

UNITS: dict[Constraint, tuple[str, ...]] = {
    "diffraction": ("deg",),
    "microscopy": ("nm", "um", "mm"),
    "raman": ("cm-1",),
    "stability": ("eV/atom", "meV/atom"),
    "band_gap": ("eV",),
    "magnetisation": ("muB/f.u.", "muB/atom"),
}
"""The unit of every numeric claim, per constraint; the parser normalises spellings (deg for the degree sign)."""

LABELS: dict[Constraint, tuple[str, ...]] = {
    "diffraction": (),
    "microscopy": (),
    "raman": (),
    "stability": ("stable", "metastable"),
    "band_gap": ("metal", "semiconductor", "insulator"),
    "magnetisation": ("zero_net_moment", "net_moment", "ferromagnetic", "ferrimagnetic", "antiferromagnetic",
                      "paramagnetic", "diamagnetic"),
}
"""The class labels a claim may give instead of a number.  Stability: 'stable' is on the hull within the
reference's uncertainty, 'metastable' above it by more but within a bound (tolerances.py); there is no
'unstable', which would say nothing a numeric hull distance does not.  Magnetisation: the net spontaneous
moment (an antiferromagnet has none) or the magnetic state, both at the claim's temperature."""


def _finite(value: Any) -> float:
    """A finite number as a float: no boolean, no string, no NaN or infinity."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"must be a finite number, not {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError("must be a finite number (this integer is too large for one)") from None
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, not {value}")
    return number


Number = Annotated[float, BeforeValidator(_finite)]
Pixels = Annotated[int, Field(strict=True, gt=0, le=1_000_000)]
"""an image side in pixels: an integer (never a boolean), at most a million (a larger one would overflow a float)"""
MillerIndex = Annotated[int, Field(strict=True, ge=-100, le=100)]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Pattern(_Strict):
    """A measured diffraction pattern: detector counts against 2theta in degrees, increasing.

    Intensities are counts (never negative): the oracle's noise model is Poisson (spectra.py).  At most
    100,000 channels (a 0.002-degree scan over 180 degrees), which bounds the oracle's work."""

    two_theta: list[Number] = Field(min_length=3, max_length=100_000)
    intensity: list[Annotated[float, Field(ge=0), BeforeValidator(_finite)]] = Field(min_length=3, max_length=100_000)

    @model_validator(mode="after")
    def _aligned(self) -> Pattern:
        _check_axis(self.two_theta, self.intensity, "two_theta")
        return self


def _check_axis(axis: list[float], values: list[float], name: str) -> None:
    if len(axis) != len(values):
        raise ValueError(f"{name} and intensity must have the same length ({len(axis)} != {len(values)})")
    if any(b <= a for a, b in zip(axis, axis[1:])):
        raise ValueError(f"{name} must increase strictly")


class DiffractionItem(_Strict):
    """A diffraction item: a reference structure (an id of structures.STRUCTURES) or a measured pattern."""

    constraint: Literal["diffraction"]
    id: str = Field(min_length=1)
    material: str | None = None
    pattern: Pattern | None = None
    wavelength_angstrom: Number = Field(CU_K_ALPHA1_ANGSTROM, ge=0.1, le=10.0)
    """X-ray and neutron wavelengths: a far shorter one would make the reference pattern hold billions of
    reflections"""
    resolution_deg: Annotated[float, Field(ge=0.005, le=0.5), BeforeValidator(_finite)] | None = None
    """the instrument's resolution (FWHM) in degrees 2theta, which is also the position tolerance; None: the
    oracle's default (diffraction.TOLERANCE_DEG, 0.1).  From a synchrotron powder beamline (~0.005) to a
    coarse laboratory instrument (0.5, beyond which a position claim could hardly fail)"""

    @model_validator(mode="after")
    def _one_source(self) -> DiffractionItem:
        if (self.material is None) == (self.pattern is None):
            raise ValueError("give exactly one of material (a reference structure id) and pattern")
        return self


class MicroscopyItem(_Strict):
    """A micrograph's scale bar (its length in pixels and in physical units) and the image size in pixels."""

    constraint: Literal["microscopy"]
    id: str = Field(min_length=1)
    scale_bar_px: Number = Field(gt=0)
    scale_bar_length: Number = Field(gt=0)
    scale_bar_unit: Literal["nm", "um", "mm"]
    image_width_px: Pixels
    image_height_px: Pixels


class RamanItem(_Strict):
    """A Raman spectrum: detector counts against Raman shift in cm^-1, increasing.

    Intensities are counts (never negative): the oracle's noise model is Poisson (spectra.py).  At most
    100,000 channels, which bounds the oracle's work."""

    constraint: Literal["raman"]
    id: str = Field(min_length=1)
    shift_cm1: list[Number] = Field(min_length=3, max_length=100_000)
    intensity: list[Annotated[float, Field(ge=0), BeforeValidator(_finite)]] = Field(min_length=3, max_length=100_000)
    material: str = ""
    """documentation only: the oracle reads the spectrum, never a table of lines"""
    resolution_cm1: Annotated[float, Field(ge=0.1, le=20.0), BeforeValidator(_finite)] | None = None
    """the spectrometer's resolution (FWHM) in cm^-1, the narrowest line it can show; None: the oracle's
    default (raman.RESOLUTION_CM1)"""

    @model_validator(mode="after")
    def _aligned(self) -> RamanItem:
        _check_axis(self.shift_cm1, self.intensity, "shift_cm1")
        return self


class MaterialItem(_Strict):
    """A material named by its id in the reference provider, for stability, band-gap class or magnetisation."""

    constraint: Literal["stability", "band_gap", "magnetisation"]
    id: str = Field(min_length=1)
    material: str = Field(min_length=1)


Item = Annotated[DiffractionItem | MicroscopyItem | RamanItem | MaterialItem, Field(discriminator="constraint")]


class Span(_Strict):
    """Where in a reasoning chain a claim was read: the evidence of its extraction."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str


class Claim(_Strict):
    """One checkable statement: a number with its unit, or a class label (exactly one of the two)."""

    constraint: Constraint
    value: Number | None = None
    unit: str | None = None
    label: str | None = None
    hkl: list[MillerIndex] | None = Field(None, min_length=3, max_length=4,
                                  description="diffraction only: the reflection the peak is assigned to")
    span: Span | None = None
    extracted_by: Literal["file", "parser", "model"] = "file"
    temperature_K: Number | None = Field(None, ge=0, description="magnetisation only: the temperature the claim "
                                         "is about (none: the ground state, 0 K)")
    per_element: str | None = Field(None, pattern=r"^[A-Z][a-z]?$", description="muB/atom only: the moment per "
                                    "atom of this element ('per Fe atom'); none: averaged over every atom")

    @model_validator(mode="after")
    def _well_formed(self) -> Claim:
        numeric, labelled = self.value is not None, self.label is not None
        if numeric == labelled:
            raise ValueError("give exactly one of value (with unit) and label")
        if numeric and self.unit not in UNITS[self.constraint]:
            raise ValueError(f"unit must be one of {list(UNITS[self.constraint])} for {self.constraint}, "
                             f"not {self.unit!r}")
        if labelled and self.label not in LABELS[self.constraint]:
            known = list(LABELS[self.constraint]) or "none (give a value)"
            raise ValueError(f"label must be one of {known} for {self.constraint}, not {self.label!r}")
        if labelled and self.unit is not None:
            raise ValueError("a labelled claim has no unit")
        if self.hkl is not None and self.constraint != "diffraction":
            raise ValueError("hkl belongs to diffraction claims only")
        if self.temperature_K is not None and self.constraint != "magnetisation":
            raise ValueError("temperature_K belongs to magnetisation claims only")
        if self.per_element is not None and self.unit != "muB/atom":
            raise ValueError("per_element belongs to muB/atom claims only")
        return self


class ReasoningChain(_Strict):
    """A model's free-text reasoning about one item; claims are extracted from it by extraction.py."""

    item: str = Field(min_length=1, description="the id of the item reasoned about")
    text: str
    model: str = ""


class ClaimsFile(_Strict):
    """What MatPCR judges: an item (inline, or a corpus item id) and claims about it, given directly or as a
    reasoning chain to extract them from."""

    item: Item | str
    claims: list[Claim] = Field(default_factory=list)
    reasoning: str | None = None

    @model_validator(mode="after")
    def _something_to_check(self) -> ClaimsFile:
        if not self.claims and self.reasoning is None:
            raise ValueError("give claims, or reasoning to extract them from")
        return self


class MalformedInput(ValueError):
    """An item, claim or claims file that cannot be read; the message names the field."""


def problems(error: ValidationError, prefix: str) -> str:
    """Every validation error as 'field.path: message', joined.  Pydantic's names for union branches
    ('tagged-union[...]', 'str') are dropped from the path, and the string branch of an item (a corpus id) is
    not reported when the object branch has something to say."""
    found = []
    for e in error.errors():
        loc = [str(part) for part in e["loc"] if "[" not in str(part)]
        if loc[-1:] == ["str"] and loc[:-1] == ["item"] and len(error.errors()) > 1:
            continue
        found.append(f"{prefix}{'.'.join(loc)}: {e['msg'].removeprefix('Value error, ')}")
    return "; ".join(found)


def parse_claims_file(data: Any) -> ClaimsFile:
    try:
        return ClaimsFile.model_validate(data)
    except ValidationError as error:
        raise MalformedInput(problems(error, "")) from None


def parse_item(data: Any) -> DiffractionItem | MicroscopyItem | RamanItem | MaterialItem:
    try:
        return TypeAdapter(Item).validate_python(data)
    except ValidationError as error:
        raise MalformedInput(problems(error, "item.")) from None


def read_json(path: Path, what: str) -> Any:
    """The JSON in ``path``; every way a file can be unreadable is a MalformedInput that says which."""
    try:
        return read_json_input(path, field_prefix=f"{what}.")
    except UnreadableInput as error:
        raise MalformedInput(f"{what} {error}") from None


SCHEMA_MODELS: dict[str, type[BaseModel]] = {"matpcr_claims": ClaimsFile, "matpcr_claim": Claim,
                                              "matpcr_reasoning": ReasoningChain}
"""The file kinds whose JSON Schemas `matpcr schemas` exports (an item's schema is part of the claims file's)."""
