"""Literature seed quivers (dP0, dP1, dP2, F0, SPP, C3/(Z2xZ2)) and the catalogue of seed cells: an
electric theory and the node whose Seiberg dual must certify against it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from physvec.verifiers.dualitycert.theory import Theory, parse_theory, read_json

SEED_FOLDER = Path(__file__).parent


@dataclass(frozen=True)
class SeedCell:
    family: str
    rank: int
    node: int
    electric_file: str

    @property
    def name(self) -> str:
        return f"{self.family}_N{self.rank}_node{self.node}"

    def electric(self) -> Theory:
        return parse_theory(read_json(SEED_FOLDER / self.electric_file))


def seed_cells() -> list[SeedCell]:
    """The catalogue's cells in file order."""
    catalogue = json.loads((SEED_FOLDER / "catalog.json").read_text())
    return [SeedCell(entry["family"], entry["N"], entry["dualized_node"], entry["electric"]) for entry in catalogue]
