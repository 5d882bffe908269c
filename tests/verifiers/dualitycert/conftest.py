"""Small theories written out by hand for the DualityCert tests."""

from __future__ import annotations

from typing import Any

import pytest

from physvec.verifiers.dualitycert.seeds import seed_cells
from physvec.verifiers.dualitycert.theory import Claim, Theory, parse_theory


def arrow(label: str, source: int, target: int, r: str) -> dict[str, Any]:
    return {"label": label, "source": source, "target": target, "r_charge": r}


def dp0_data(rank: int = 3) -> dict[str, Any]:
    """The dP0 quiver (C^3/Z3): three arrows along each edge 0 -> 1 -> 2 -> 0, R = 2/3, W = eps_ijk X Y Z."""
    arrows = [arrow(f"{name}{i}", s, t, "2/3") for name, s, t in (("X", 0, 1), ("Y", 1, 2), ("Z", 2, 0))
              for i in range(3)]
    signs = {(0, 1, 2): "1", (1, 2, 0): "1", (2, 0, 1): "1", (0, 2, 1): "-1", (2, 1, 0): "-1", (1, 0, 2): "-1"}
    terms = [{"coefficient": c, "factors": [f"X{i}", f"Y{j}", f"Z{k}"]} for (i, j, k), c in signs.items()]
    return {"name": "dP0", "node_labels": ["a", "b", "c"], "ranks": [rank] * 3, "arrows": arrows,
            "superpotential": terms}


@pytest.fixture
def dp0() -> Theory:
    return parse_theory(dp0_data())


@pytest.fixture(scope="session")
def seed_claims() -> dict[str, Claim]:
    """Every seed cell's electric theory with its Seiberg dual."""
    from physvec.verifiers.dualitycert.dualize import dualize

    claims = {}
    for cell in seed_cells():
        electric = cell.electric()
        claims[cell.name] = Claim(theory_a=electric, theory_b=dualize(electric, cell.node))
    return claims
