"""Reference values for stability, band-gap class and magnetisation, behind one provider interface.

Two providers: the offline snapshot shipped with the package (snapshot.json, read here, every value paired
with its source; a value without one is a schema error), and the Materials Project through ``mp-api``, used
only when a user has a key and network.  An oracle asks a provider for records and computes what it can
itself (the hull, in stability.py), so a provider supplies measured or computed inputs, never a verdict.
"""

from __future__ import annotations

import datetime
import itertools
import re
from functools import cache
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from physvec.verifiers.matpcr.schema import Number

SNAPSHOT = Path(__file__).with_name("snapshot.json")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Sourced(_Strict):
    """One reference value and where it comes from, with its uncertainty where the source states one (the
    oracles fall back on the per-source defaults of tolerances.py otherwise)."""

    value: Number
    source: str = Field(min_length=1)
    uncertainty: Number | None = Field(None, ge=0)
    uncertainty_source: str | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _uncertainty_named(self) -> Sourced:
        if (self.uncertainty is None) != (self.uncertainty_source is None):
            raise ValueError("give uncertainty and uncertainty_source together")
        return self


class FormationEnthalpy(Sourced):
    unit: Literal["kJ/mol", "eV/atom"]
    """kJ/mol per formula unit as thermochemical tables give it, or eV/atom as DFT databases do"""


class BandGap(Sourced):
    value: Number = Field(ge=0)
    method: Literal["experiment", "semilocal_dft"]
    """a semilocal functional (LDA, GGA/PBE) underestimates gaps: bandgap.py widens such a reference upwards"""


class RoomTemperatureMagnetisation(_Strict):
    """A ferromagnet's saturation magnetisation at room temperature and at 0 K, as a table prints both."""

    gauss_room_temperature: Number = Field(gt=0)
    gauss_zero_kelvin: Number = Field(gt=0)
    source: str = Field(min_length=1)

    @property
    def fraction(self) -> float:
        """The room-temperature moment over the saturation one."""
        return self.gauss_room_temperature / self.gauss_zero_kelvin


class Magnetisation(Sourced):
    """Saturation (0 K) spontaneous moment per formula unit, in Bohr magnetons (zero for an antiferromagnet)."""

    value: Number = Field(ge=0)
    method: Literal["experiment", "semilocal_dft"] = "experiment"
    """a semilocal-DFT moment is spin only: magnetism.py widens it for the orbital moment it omits"""
    room_temperature: RoomTemperatureMagnetisation | None = None


Order = Literal["ferromagnetic", "ferrimagnetic", "antiferromagnetic", "paramagnetic", "diamagnetic"]
ORDERED: tuple[Order, ...] = ("ferromagnetic", "ferrimagnetic", "antiferromagnetic")


class MagneticOrder(_Strict):
    """The magnetic state of the ground state and, for an ordered one, the temperature it ends at (Curie or
    Neel); above it the material is paramagnetic."""

    order: Order
    ordering_temperature_K: Number | None = Field(None, gt=0)
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _ordering_temperature(self) -> MagneticOrder:
        if (self.order in ORDERED) != (self.ordering_temperature_K is not None):
            raise ValueError("an ordered state (ferro-, ferri-, antiferromagnetic) needs ordering_temperature_K, "
                             "a para- or diamagnet has none")
        return self


class MaterialRecord(_Strict):
    id: str = Field(min_length=1)
    formula: str = Field(pattern=r"^([A-Z][a-z]?\d*)+$")
    formation_enthalpy: FormationEnthalpy | None = None
    band_gap: BandGap | None = None
    magnetisation: Magnetisation | None = None
    magnetic_order: MagneticOrder | None = None

    def elements(self) -> frozenset[str]:
        return frozenset(re.findall(r"[A-Z][a-z]?", self.formula))

    def counts(self) -> dict[str, int]:
        """Atoms of each element in one formula unit."""
        found: dict[str, int] = {}
        for element, count in re.findall(r"([A-Z][a-z]?)(\d*)", self.formula):
            found[element] = found.get(element, 0) + int(count or 1)
        return found


class Snapshot(_Strict):
    description: str = Field(min_length=1)
    materials: list[MaterialRecord]


class UnknownMaterial(KeyError):
    """The provider holds no record of this material id."""


class ReferenceProvider(Protocol):
    name: str

    def record(self, material_id: str) -> MaterialRecord:
        """The material's record (UnknownMaterial if there is none)."""

    def chemical_system(self, elements: frozenset[str]) -> list[MaterialRecord]:
        """Every record with a formation enthalpy whose elements all lie in ``elements``."""


class OfflineSnapshot:
    """The records of a snapshot file (by default the one shipped with the package)."""

    name = "offline snapshot"

    def __init__(self, records: list[MaterialRecord]) -> None:
        self.records = {record.id: record for record in records}

    def record(self, material_id: str) -> MaterialRecord:
        try:
            return self.records[material_id]
        except KeyError:
            raise UnknownMaterial(material_id) from None

    def chemical_system(self, elements: frozenset[str]) -> list[MaterialRecord]:
        return [r for r in self.records.values() if r.formation_enthalpy is not None and r.elements() <= elements]


@cache
def offline_snapshot(path: Path = SNAPSHOT) -> OfflineSnapshot:
    """The snapshot in ``path``, validated (ValueError naming the field when a record lacks its source)."""
    try:
        return OfflineSnapshot(Snapshot.model_validate_json(path.read_text()).materials)
    except ValidationError as error:
        first = error.errors()[0]
        raise ValueError(f"{path}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


class MaterialsProject:
    """The Materials Project through mp-api: needs the ``mp`` extra, an API key and network (never in tests)."""

    name = "Materials Project"

    def __init__(self, api_key: str) -> None:
        from mp_api.client import MPRester

        self.rester = MPRester(api_key)
        self.retrieved = datetime.date.today().isoformat()

    def _source(self, field: str) -> str:
        return f"Materials Project summary endpoint (mp-api), field {field}, retrieved {self.retrieved}"

    def _records(self, documents: list) -> list[MaterialRecord]:
        return [MaterialRecord(
            id=str(doc.material_id), formula=doc.composition_reduced.formula.replace(" ", ""),
            formation_enthalpy=FormationEnthalpy(value=doc.formation_energy_per_atom, unit="eV/atom",
                                                 source=self._source("formation_energy_per_atom")),
            band_gap=BandGap(value=doc.band_gap, method="semilocal_dft", source=self._source("band_gap")),
            magnetisation=Magnetisation(value=abs(doc.total_magnetization_normalized_formula_units or 0.0),
                                        method="semilocal_dft",
                                        source=self._source("total_magnetization_normalized_formula_units")))
            for doc in documents]

    def record(self, material_id: str) -> MaterialRecord:
        fields = ["material_id", "composition_reduced", "formation_energy_per_atom", "band_gap",
                  "total_magnetization_normalized_formula_units"]
        found = self._records(self.rester.materials.summary.search(material_ids=[material_id], fields=fields))
        if not found:
            raise UnknownMaterial(material_id)
        return found[0]

    def chemical_system(self, elements: frozenset[str]) -> list[MaterialRecord]:
        fields = ["material_id", "composition_reduced", "formation_energy_per_atom", "band_gap",
                  "total_magnetization_normalized_formula_units"]
        systems = ["-".join(sorted(subset)) for size in range(1, len(elements) + 1)
                   for subset in itertools.combinations(elements, size)]
        return self._records(self.rester.materials.summary.search(chemsys=systems, fields=fields))
