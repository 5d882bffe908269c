"""The MatPCR examples the README can point at: silicon's allowed reflections certify; the (200) reflection,
placed exactly where Bragg's law puts it, fails because the diamond structure extinguishes it."""

from __future__ import annotations

from pathlib import Path

from physvec.cli.matpcr import EXIT_CERTIFIED, EXIT_NOT_CERTIFIED, main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "matpcr"


def test_the_consistent_claims_certify_and_the_violating_ones_fail_on_the_extinct_reflection(capsys):
    assert main(["check", str(EXAMPLES / "si_diffraction_consistent.json")]) == EXIT_CERTIFIED
    capsys.readouterr()
    assert main(["check", str(EXAMPLES / "si_diffraction_violating.json")]) == EXIT_NOT_CERTIFIED
    assert "systematically" in capsys.readouterr().out
