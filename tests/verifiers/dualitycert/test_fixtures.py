"""Fixture generation: deterministic, every fixture fails, attrition accounted, manifest hashes checked."""

from __future__ import annotations

import json

import pytest

from physvec.verifiers.certificate import Verdict
from physvec.verifiers.dualitycert.fixtures import MANIFEST, FixtureConfig, generate, load_fixtures
from physvec.verifiers.dualitycert.perturb import CLASSES
from physvec.verifiers.dualitycert.registry import INTERACTION, certify


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fixtures")
    return folder, generate(FixtureConfig(seed=7, per_class=1), folder)


def test_the_same_seed_gives_the_same_fixtures(generated, tmp_path):
    folder, manifest = generated
    again = generate(FixtureConfig(seed=7, per_class=1), tmp_path)
    assert again == manifest
    assert [(tmp_path / e["file"]).read_text() for e in again["fixtures"]] == \
        [(folder / e["file"]).read_text() for e in manifest["fixtures"]]


def test_every_fixture_fails_and_every_candidate_is_accounted_for(generated):
    folder, manifest = generated
    for name, claim in load_fixtures(folder):
        assert certify(claim, INTERACTION).verdict is Verdict.FAILED, name
    for kind in CLASSES:
        row = manifest["attrition"][kind]
        assert row["sampled"] == sum(value for column, value in row.items() if column != "sampled")
    kept = sum(manifest["attrition"][kind]["kept"] for kind in CLASSES)
    assert kept == len(manifest["fixtures"]) > 0


def test_an_edited_fixture_is_refused(generated, tmp_path):
    folder, manifest = generated
    for path in folder.iterdir():
        (tmp_path / path.name).write_text(path.read_text())
    first = tmp_path / manifest["fixtures"][0]["file"]
    first.write_text(first.read_text().replace('"1"', '"-1"', 1))
    with pytest.raises(ValueError, match="SHA-256 differs"):
        load_fixtures(tmp_path)
    assert json.loads((tmp_path / MANIFEST).read_text())["config_sha256"] == manifest["config_sha256"]


def _one_cell(monkeypatch, verdict_label):
    import random

    from physvec.verifiers.dualitycert import fixtures
    from physvec.verifiers.dualitycert.seeds import seed_cells

    monkeypatch.setattr(fixtures, "label", lambda electric, candidate: verdict_label)
    cell = next(c for c in seed_cells() if c.name == "dp0_toric_N3_node0")
    tally = fixtures.Tally()
    found = fixtures._cell_fixtures(cell, random.Random(0), FixtureConfig(per_class=0), tally, set())
    return found, tally


def test_labels_come_from_the_ground_truth_and_verifier_misses_are_reported(monkeypatch):
    from physvec.verifiers.dualitycert.ground_truth import Label

    # Pretend every candidate is wrong: the sign flips a rescaling absorbs are certified by the verifier
    # (rightly), so a generator that trusted the verdict would drop them silently; this one reports them.
    found, tally = _one_cell(monkeypatch, (Label.WRONG, "told so"))
    assert tally.misses and all(row["reason"] == "verifier_miss" for row in tally.misses)
    assert {row["perturbation"].split("(")[0] for row in tally.misses} == {"flip_w_sign"}
    assert all(certify(f.claim, INTERACTION).verdict is Verdict.FAILED for f in found)


def test_a_candidate_that_cannot_be_labelled_is_listed_not_dropped(monkeypatch):
    from physvec.verifiers.dualitycert.ground_truth import Label

    found, tally = _one_cell(monkeypatch, (Label.UNLABELLED, "undecided"))
    assert not found
    unlabelled = [row for row in tally.dropped if row["reason"] == "unlabelled"]
    assert unlabelled and all(row["detail"] == "undecided" for row in unlabelled)
    assert len(tally.dropped) == sum(v for (_, column), v in tally.counts.items() if column != "sampled")
