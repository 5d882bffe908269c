"""The dualitycert command line: exit codes and messages a user can act on."""

from __future__ import annotations

import json

from tests.verifiers.dualitycert.conftest import dp0_data
from physvec.cli.dualitycert import EXIT_BAD_INPUT, EXIT_CERTIFIED, EXIT_NOT_CERTIFIED, main


def test_dualize_prints_a_theory_that_verify_then_certifies(tmp_path, capsys):
    electric = tmp_path / "dp0.json"
    electric.write_text(json.dumps(dp0_data()))
    assert main(["dualize", str(electric), "--node", "1"]) == 0
    dual = json.loads(capsys.readouterr().out)
    assert dual["ranks"] == [3, 6, 3]
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({"theory_a": dp0_data(), "theory_b": dual}))
    assert main(["verify", str(claim), "--final", "--json"]) == EXIT_CERTIFIED
    assert json.loads(capsys.readouterr().out)["verdict"] == "certified"


def test_a_wrong_claim_is_not_certified(tmp_path, capsys):
    wrong = dp0_data()
    wrong["ranks"] = [4, 3, 3]
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({"theory_a": dp0_data(), "theory_b": wrong}))
    assert main(["verify", str(claim)]) == EXIT_NOT_CERTIFIED
    assert "cubic_gauge_anomaly" in capsys.readouterr().out


def test_malformed_input_exits_2_naming_the_problem(tmp_path, capsys):
    broken = dp0_data()
    broken["superpotential"][0]["factors"] = ["X0", "Nope"]
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({"theory_a": dp0_data(), "theory_b": broken}))
    assert main(["verify", str(claim)]) == EXIT_BAD_INPUT
    assert "theory_b.superpotential.0: unknown field 'Nope'" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing.json")]) == EXIT_BAD_INPUT
    assert "no such file" in capsys.readouterr().err
    electric = tmp_path / "dp0.json"
    electric.write_text(json.dumps(dp0_data()))
    assert main(["dualize", str(electric), "--node", "9"]) == EXIT_BAD_INPUT
    assert "node 9 is not a node" in capsys.readouterr().err


def test_analyze_without_runs_exits_2(tmp_path, capsys):
    assert main(["analyze", "--runs-dir", str(tmp_path / "none"), "--out", str(tmp_path / "out")]) == EXIT_BAD_INPUT
    assert "holds no finished episodes" in capsys.readouterr().err


def test_a_rank_written_as_text_or_float_is_refused(tmp_path, capsys):
    for rank in ("6", 6.0):
        wrong = dp0_data()
        wrong["ranks"][0] = rank
        claim = tmp_path / "claim.json"
        claim.write_text(json.dumps({"theory_a": dp0_data(), "theory_b": wrong}))
        assert main(["verify", str(claim), "--final"]) == EXIT_BAD_INPUT
        assert "theory_b.ranks.0" in capsys.readouterr().err


def test_verify_refuses_a_copy_of_a_at_final_strictness(tmp_path, capsys):
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({"theory_a": dp0_data(), "theory_b": dp0_data()}))
    assert main(["verify", str(claim), "--final", "--audits", "--json"]) == EXIT_NOT_CERTIFIED
    rows = {o["name"]: o["outcome"] for o in json.loads(capsys.readouterr().out)["obligations"]}
    assert rows["not_a_copy"] == "failed"


def test_bench_prints_the_seed_cells_at_levels_five_and_eight(capsys):
    assert main(["bench", "--seeds-only"]) == 0
    out = capsys.readouterr().out
    assert "L = 8" in out and "dp2_phase1_N2_node4" in out
