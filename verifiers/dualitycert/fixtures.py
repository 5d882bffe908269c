"""Benchmark fixtures: wrong duality claims made deterministically from the seed cells.

For each seed cell the certified dual B is perturbed at depth 1 (perturb.py).  A seeded random number
generator picks up to ``per_class`` candidates of each class (0: every candidate, an exhaustive scan); a
candidate becomes a fixture only if the seed pair certifies, the perturbed theory is well formed, the
perturbed pair fails at interaction strictness, and no earlier fixture has the same B.  A cell whose dual
is isomorphic to A (a self-dual node) gives no fixture: the copy guard would refuse its correct repair.
Every candidate that does not become a fixture is counted under the reason it was dropped (the attrition
table).  The manifest records the SHA-256 of the configuration and of every fixture file, so a benchmark
names exactly what it ran on.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from physvec.verifiers.certificate import Verdict
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.isomorphism import is_copy_of
from physvec.verifiers.dualitycert.perturb import CLASSES, Perturbation, apply, candidates
from physvec.verifiers.dualitycert.registry import INTERACTION, certify
from physvec.verifiers.dualitycert.seeds import SeedCell, seed_cells
from physvec.verifiers.dualitycert.theory import Claim, Theory, structural_problems

MANIFEST = "manifest.json"
DROP_REASONS = ("seed_not_certified", "seed_dual_is_copy", "malformed", "still_certified", "duplicate")


@dataclass(frozen=True)
class FixtureConfig:
    """What determines the fixture set: the seed number and how many candidates per class and cell."""

    seed: int = 0
    per_class: int = 3


def sha256(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()


def _canonical(theory: Theory) -> str:
    return json.dumps(theory.model_dump(mode="json"), sort_keys=True)


@dataclass(frozen=True)
class Fixture:
    """A wrong claim: a seed cell's electric theory and its perturbed dual."""

    cell: str
    perturbation: Perturbation
    claim: Claim
    failed: tuple[str, ...]

    def to_json(self) -> str:
        return json.dumps({"cell": self.cell, "perturbation": self.perturbation.name,
                           "failed_obligations": list(self.failed), **self.claim.model_dump(mode="json")},
                          indent=1) + "\n"


def _cell_fixtures(cell: SeedCell, rng: random.Random, config: FixtureConfig, attrition: Counter,
                   seen: set[str]) -> list[Fixture]:
    electric = cell.electric()
    dual = dualize(electric, cell.node)
    seed_certified = certify(Claim(theory_a=electric, theory_b=dual), INTERACTION).verdict is Verdict.CERTIFIED
    self_dual = is_copy_of(dual, electric)
    fixtures = []
    for kind, pool in candidates(dual).items():
        chosen = len(pool) if config.per_class == 0 else min(config.per_class, len(pool))
        for perturbation in rng.sample(pool, chosen):
            attrition[(kind, "sampled")] += 1
            perturbed = apply(dual, perturbation)
            reason = None
            if not seed_certified:
                reason = "seed_not_certified"
            elif self_dual:
                reason = "seed_dual_is_copy"
            elif structural_problems(perturbed):
                reason = "malformed"
            elif _canonical(perturbed) in seen:
                reason = "duplicate"
            if reason is None:
                claim = Claim(theory_a=electric, theory_b=perturbed)
                certificate = certify(claim, INTERACTION)
                if certificate.verdict is not Verdict.FAILED:
                    reason = "still_certified"
                else:
                    seen.add(_canonical(perturbed))
                    fixtures.append(Fixture(cell.name, perturbation, claim,
                                            tuple(o.name for o in certificate.failed())))
            attrition[(kind, reason or "kept")] += 1
    return fixtures


def write_fixtures(folder: Path, config: FixtureConfig, fixtures: list[Fixture], attrition: Counter) -> dict:
    """Each fixture as a file and the manifest naming them with their SHA-256; returns the manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for fixture in fixtures:
        text, file_name = fixture.to_json(), f"{len(entries):03d}_{fixture.cell}_{fixture.perturbation.kind}.json"
        (folder / file_name).write_text(text)
        entries.append({"file": file_name, "sha256": sha256(text), "cell": fixture.cell,
                        "class": fixture.perturbation.kind, "perturbation": fixture.perturbation.name,
                        "failed_obligations": list(fixture.failed)})
    config_text = json.dumps(asdict(config), sort_keys=True)
    manifest = {"config": asdict(config), "config_sha256": sha256(config_text), "fixtures": entries,
                "attrition": {kind: {column: attrition[(kind, column)] for column in ("sampled", "kept", *DROP_REASONS)}
                              for kind in CLASSES}}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def generate(config: FixtureConfig, folder: Path) -> dict:
    """Write every fixture the configuration makes, and the manifest, into ``folder``; return the manifest."""
    rng, attrition, seen = random.Random(config.seed), Counter(), set()
    fixtures = [fixture for cell in seed_cells() for fixture in _cell_fixtures(cell, rng, config, attrition, seen)]
    return write_fixtures(folder, config, fixtures, attrition)


def load_fixtures(folder: Path) -> list[tuple[str, Claim]]:
    """(file name, claim) of every fixture in a manifest, refusing a file whose SHA-256 changed."""
    manifest = json.loads((folder / MANIFEST).read_text())
    fixtures = []
    for entry in manifest["fixtures"]:
        text = (folder / entry["file"]).read_text()
        if sha256(text) != entry["sha256"]:
            raise ValueError(f"{entry['file']}: SHA-256 differs from the manifest (the fixture was edited)")
        data = json.loads(text)
        fixtures.append((entry["file"], Claim.model_validate({"theory_a": data["theory_a"], "theory_b": data["theory_b"]})))
    return fixtures
