"""Benchmark fixtures: wrong duality claims made deterministically from the seed cells.

For each seed cell the certified dual B is perturbed at depth 1 (perturb.py).  A seeded random number
generator picks up to ``per_class`` candidates of each class (0: every candidate, an exhaustive scan).

Labels come from ground_truth.py, never from the verifier: a perturbed B is right when it is structurally
A's Seiberg dual at some node (a sign flip that a field rescaling absorbs), wrong when it is none, and
unlabelled when that could not be decided.  The judge behind them (mutation_judge.py) shares no code with
the verdict; the candidates are still perturbations of dualize.py's dual at the cell's node, and the
judge labels them like any other B.  Only then is the verifier asked, so a campaign sees the
verifier's own mistakes: a wrong B that the final judge certifies is a verifier miss, reported in the
manifest (``verifier_misses``) and on the command line, never a silent drop; one that only level 3
certifies is an interaction miss.

A wrong candidate becomes a fixture when it is well formed, fails at interaction strictness (the repair
loop needs feedback) and no earlier fixture has the same B.  Every candidate that does not become a
fixture is listed with its reason (``dropped``) and counted in the attrition table.  The manifest records
the SHA-256 of the configuration and of every fixture file, so a benchmark names exactly what it ran on.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from physvec.verifiers.certificate import Verdict
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.ground_truth import Label, label
from physvec.verifiers.dualitycert.perturb import CLASSES, Perturbation, apply, candidates
from physvec.verifiers.dualitycert.registry import FINAL, INTERACTION, certify
from physvec.verifiers.dualitycert.seeds import SeedCell, seed_cells
from physvec.verifiers.dualitycert.theory import Claim, Theory, structural_problems

MANIFEST = "manifest.json"
DROP_REASONS = ("seed_not_certified", "malformed", "duplicate", "equivalent_to_dual", "unlabelled", "interaction_miss",
                "verifier_miss")
"""interaction_miss: wrong, certified at level 3 but refused by the final judge; verifier_miss: wrong and
certified at final strictness, a mistake of the verifier."""


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
    """A wrong claim: a seed cell's electric theory and its perturbed dual, labelled by the ground truth."""

    cell: str
    perturbation: Perturbation
    claim: Claim
    failed: tuple[str, ...]
    label_reason: str = ""

    def to_json(self) -> str:
        return json.dumps({"cell": self.cell, "perturbation": self.perturbation.name, "label": Label.WRONG.value,
                           "label_reason": self.label_reason, "failed_obligations": list(self.failed),
                           **self.claim.model_dump(mode="json")}, indent=1) + "\n"


@dataclass
class Tally:
    """What became of every candidate: counts per (class, column) and a row per candidate not kept."""

    counts: Counter = field(default_factory=Counter)
    dropped: list[dict[str, str]] = field(default_factory=list)
    misses: list[dict[str, str]] = field(default_factory=list)

    def record(self, cell: str, perturbation: Perturbation, reason: str, detail: str = "") -> None:
        self.counts[(perturbation.kind, reason)] += 1
        if reason != "kept":
            row = {"cell": cell, "perturbation": perturbation.name, "reason": reason, "detail": detail}
            self.dropped.append(row)
            if reason == "verifier_miss":
                self.misses.append(row)


def _verdicts(claim: Claim) -> tuple[Verdict, Verdict, tuple[str, ...]]:
    interaction = certify(claim, INTERACTION)
    return interaction.verdict, certify(claim, FINAL).verdict, tuple(o.name for o in interaction.failed())


def _cell_fixtures(cell: SeedCell, rng: random.Random, config: FixtureConfig, tally: Tally,
                   seen: set[str]) -> list[Fixture]:
    electric = cell.electric()
    dual = dualize(electric, cell.node)
    seed_certified = certify(Claim(theory_a=electric, theory_b=dual), INTERACTION).verdict is Verdict.CERTIFIED
    fixtures = []
    for kind, pool in candidates(dual).items():
        chosen = len(pool) if config.per_class == 0 else min(config.per_class, len(pool))
        for perturbation in rng.sample(pool, chosen):
            tally.counts[(kind, "sampled")] += 1
            perturbed = apply(dual, perturbation)
            if not seed_certified:
                tally.record(cell.name, perturbation, "seed_not_certified")
                continue
            if problems := structural_problems(perturbed):
                tally.record(cell.name, perturbation, "malformed", "; ".join(problems))
                continue
            if _canonical(perturbed) in seen:
                tally.record(cell.name, perturbation, "duplicate")
                continue
            truth, why = label(electric, perturbed)
            if truth is Label.RIGHT:
                tally.record(cell.name, perturbation, "equivalent_to_dual", why)
                continue
            if truth is Label.UNLABELLED:
                tally.record(cell.name, perturbation, "unlabelled", why)
                continue
            claim = Claim(theory_a=electric, theory_b=perturbed)
            interaction, final, failed = _verdicts(claim)
            if interaction is not Verdict.FAILED:
                tally.record(cell.name, perturbation, "verifier_miss" if final is Verdict.CERTIFIED else "interaction_miss",
                             f"wrong ({why}) but {interaction.value} at interaction, {final.value} at final")
                continue
            seen.add(_canonical(perturbed))
            fixtures.append(Fixture(cell.name, perturbation, claim, failed, why))
            tally.record(cell.name, perturbation, "kept")
    return fixtures


def write_fixtures(folder: Path, config: FixtureConfig, fixtures: list[Fixture], tally: Tally | Counter) -> dict:
    """Each fixture as a file and the manifest naming them with their SHA-256; returns the manifest."""
    tally = tally if isinstance(tally, Tally) else Tally(counts=tally)
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for fixture in fixtures:
        text, file_name = fixture.to_json(), f"{len(entries):03d}_{fixture.cell}_{fixture.perturbation.kind}.json"
        (folder / file_name).write_text(text)
        entries.append({"file": file_name, "sha256": sha256(text), "cell": fixture.cell,
                        "class": fixture.perturbation.kind, "perturbation": fixture.perturbation.name,
                        "label": Label.WRONG.value, "failed_obligations": list(fixture.failed)})
    config_text = json.dumps(asdict(config), sort_keys=True)
    manifest = {"config": asdict(config), "config_sha256": sha256(config_text), "fixtures": entries,
                "attrition": {kind: {column: tally.counts[(kind, column)] for column in ("sampled", "kept", *DROP_REASONS)}
                              for kind in CLASSES},
                "label_source": "ground_truth: mutation_judge, an independent Seiberg dual of A at each node (quiver "
                                "mutation with potential, massive fields integrated out), compared up to "
                                "relabelling, conjugation and field rescalings; no code shared with the verdict",
                "verifier_misses": tally.misses, "dropped": tally.dropped}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def generate(config: FixtureConfig, folder: Path) -> dict:
    """Write every fixture the configuration makes, and the manifest, into ``folder``; return the manifest."""
    rng, tally, seen = random.Random(config.seed), Tally(), set()
    fixtures = [fixture for cell in seed_cells() for fixture in _cell_fixtures(cell, rng, config, tally, seen)]
    return write_fixtures(folder, config, fixtures, tally)


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
