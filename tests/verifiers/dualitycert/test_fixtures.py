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
