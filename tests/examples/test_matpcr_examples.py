"""The MatPCR examples the README can point at: silicon's allowed reflections certify; the (200) reflection,
placed exactly where Bragg's law puts it, fails because the diamond structure extinguishes it."""

from __future__ import annotations

from pathlib import Path

from physvec.cli.conventions import EXIT_CERTIFIED, EXIT_NOT_CERTIFIED
from physvec.cli.matpcr import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "matpcr"


def test_the_consistent_claims_certify_and_the_violating_ones_fail_on_the_extinct_reflection(capsys):
    assert main(["check", str(EXAMPLES / "si_diffraction_consistent.json")]) == EXIT_CERTIFIED
    capsys.readouterr()
    assert main(["check", str(EXAMPLES / "si_diffraction_violating.json")]) == EXIT_NOT_CERTIFIED
    assert "systematically" in capsys.readouterr().out


def test_the_example_task_names_matpcr_and_its_domain_check_certifies_the_claims(tmp_path):
    from types import SimpleNamespace

    from physvec.taskfiles.loading import load_task
    from physvec.verifiers.domain import DomainCheckVerifier

    loaded = load_task(EXAMPLES / "si_gap_task" / "task.json")
    assert loaded.domain_inputs["matpcr"] == EXAMPLES / "si_gap_task" / "claims.json"
    script = tmp_path / "script.py"
    script.write_text("PARAMS = {}\n")
    certificate = DomainCheckVerifier().verify(SimpleNamespace(script=script, task=loaded))
    assert certificate.verdict.value == "certified"
    assert [o.name for o in certificate.obligations] == ["matpcr:band_gap:0:1.1 eV", "matpcr:band_gap:1:semiconductor"]
