"""The library builder keeps only proposed functions that pass a unit test in a background pipeline."""

from __future__ import annotations

import json

from physvec.cli.main import physvec_main
from tests.support.scripted import fenced, write_replies

PROPOSAL = '''from tenpy.networks.mps import MPS


def observable_total_sz(psi: MPS) -> float:
    """The total magnetisation, a conserved quantum number of the pipelines' ground states."""
    return float(sum(psi.expectation_value("Sz")))


def observable_entropy(psi: MPS) -> float:
    return float(psi.no_such_method())


def sampler_metropolis(L: int) -> list:
    return [0] * L
'''


def test_proposed_functions_that_pass_a_unit_test_are_kept_and_the_rest_are_logged_with_reasons(tmp_path, capsys):
    replies = write_replies(tmp_path / "r.json", fenced(PROPOSAL))
    out = tmp_path / "contrib"
    code = physvec_main(["library", "build", "--backend", "tenpy", "--request", "observables of spin chains",
                         "--model", f"scripted:{replies}", "--out", str(out)])
    assert code == 0
    log = {entry["function"]: entry for entry in map(json.loads, (out / "build_log.jsonl").read_text().splitlines())}
    assert log["observable_total_sz"]["accepted"] and log["observable_total_sz"]["pipeline"]
    assert not log["observable_entropy"]["accepted"] and "no_such_method" in log["observable_entropy"]["reason"]
    assert not log["sampler_metropolis"]["accepted"] and "no tenpy pipeline has the role sampler" in \
        log["sampler_metropolis"]["reason"]
    kept = (out / "tenpy.py").read_text()
    assert "def observable_total_sz" in kept and "observable_entropy" not in kept
    assert "from tenpy.networks.mps import MPS" in kept


def test_the_builder_needs_a_language_model(tmp_path, monkeypatch):
    monkeypatch.delenv("PHYSVEC_MODEL", raising=False)
    assert physvec_main(["library", "build", "--backend", "tenpy", "--request", "x", "--out", str(tmp_path)]) == 2
    assert physvec_main(["library", "build", "--backend", "tenpy", "--request", "x", "--model", "library",
                         "--out", str(tmp_path)]) == 2
