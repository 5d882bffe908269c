"""Evaluation items drawn per (constraint type, seed), each with the facts a question about it may state.

The facts are the item's inputs (a structure's space group, Wyckoff sites and lattice constants, a
spectrum, a scale bar, a material's formula), never what an oracle computes from them: no peak position,
hull energy, gap or moment reaches a prompt.  The draw is deterministic in (constraint, seed), so a resumed
or repeated evaluation asks the same questions.
"""

from __future__ import annotations

import fnmatch
import random
from dataclasses import dataclass
from typing import Any

from physvec.verifiers.matpcr.corpus import Item, corpus_item
from physvec.verifiers.matpcr.references import OfflineSnapshot
from physvec.verifiers.matpcr.schema import Constraint, MicroscopyItem
from physvec.verifiers.matpcr.spectra import LINES
from physvec.verifiers.matpcr.structures import STRUCTURES

RAMAN_TABLE_STEP = 4
"""Every fourth point (2 cm^-1) of a spectrum goes into the question: lines stay resolved, the prompt short."""
QUANTITY = {"stability": "formation_enthalpy", "band_gap": "band_gap", "magnetisation": "magnetisation"}


@dataclass(frozen=True)
class Draw:
    constraint: Constraint
    seed: int
    index: int
    item: Item
    facts: dict[str, Any]


def _pool(constraint: Constraint, provider: OfflineSnapshot) -> list[str]:
    """The corpus ids an item of this constraint is drawn from (microscopy items are generated instead)."""
    if constraint == "diffraction":
        return [f"diffraction:{name}" for name in STRUCTURES]
    if constraint == "raman":
        return [f"raman:{name}" for name in LINES]
    return [f"{constraint}:{record.id}" for record in provider.records.values()
            if getattr(record, QUANTITY[constraint]) is not None]


def _facts(item: Item, provider: OfflineSnapshot, rng: random.Random) -> dict[str, Any]:
    if item.constraint == "diffraction":
        record = STRUCTURES[str(item.material)]
        return {"formula": record.formula, "space_group": record.space_group, "a": record.a, "c": record.c,
                "sites": [f"{s.species} {s.wyckoff} {s.coords}" for s in record.sites],
                "wavelength": item.wavelength_angstrom}
    if item.constraint == "raman":
        step = RAMAN_TABLE_STEP
        return {"table": list(zip(item.shift_cm1[::step], item.intensity[::step]))}
    if item.constraint == "microscopy":
        return {"feature_px": rng.randint(5, min(item.image_width_px, item.image_height_px))}
    return {"formula": provider.record(str(item.material)).formula}


def _microscopy_item(rng: random.Random, seed: int, index: int) -> MicroscopyItem:
    return MicroscopyItem(constraint="microscopy", id=f"microscopy:drawn:{seed}:{index}",
                          scale_bar_px=rng.randint(50, 400), scale_bar_length=rng.choice([20, 50, 100, 200, 500, 1000]),
                          scale_bar_unit=rng.choice(["nm", "um"]), image_width_px=rng.choice([1024, 2048]),
                          image_height_px=rng.choice([768, 1024, 2048]))


def draw(constraint: Constraint, n: int, seed: int, provider: OfflineSnapshot, items: str = "*") -> list[Draw]:
    """n items of one constraint for one seed (with replacement once the pool is used up), filtered by a glob
    over item ids; an empty pool is a ValueError naming the glob."""
    rng = random.Random(f"{constraint}:{seed}")
    draws = []
    if constraint == "microscopy":
        for index in range(n):
            item = _microscopy_item(rng, seed, index)
            draws.append(Draw(constraint, seed, index, item, _facts(item, provider, rng)))
        return draws
    pool = [item_id for item_id in _pool(constraint, provider) if fnmatch.fnmatch(item_id, items)]
    if not pool:
        raise ValueError(f"no {constraint} item matches {items!r}")
    order = rng.sample(pool, len(pool))
    for index in range(n):
        item_id = order[index % len(order)]
        if constraint == "raman":
            item_id = f"{item_id}:{seed}"
        item = corpus_item(item_id)
        draws.append(Draw(constraint, seed, index, item, _facts(item, provider, rng)))
    return draws
