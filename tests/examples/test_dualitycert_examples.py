"""The example claims shipped for users verify as their names say."""

from __future__ import annotations

from pathlib import Path

from physvec.cli.dualitycert import EXIT_CERTIFIED, EXIT_NOT_CERTIFIED, main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "dualitycert"


def test_the_dp0_dual_claim_certifies_and_the_wrong_r_claim_does_not(capsys):
    assert main(["verify", str(EXAMPLES / "dp0_node0_claim.json"), "--final"]) == EXIT_CERTIFIED
    assert main(["verify", str(EXAMPLES / "dp0_node0_wrong_r_claim.json")]) == EXIT_NOT_CERTIFIED
    assert "B.superpotential_r_charge" in capsys.readouterr().out
