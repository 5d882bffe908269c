"""`physvec bench whole` charges the certified script only the verification of its own version, in wall seconds
and in the seconds of the programs that verification ran."""

from __future__ import annotations

import json

from physvec.cli.bench_whole import FinalVerification, final_verification


def _event(kind: str, node: str | None, **data) -> str:
    return json.dumps({"type": kind, "node": node, "data": data})


def test_only_the_verifier_nodes_that_judged_the_final_version_are_counted(tmp_path):
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text("\n".join([
        _event("node_finished", "author", seconds=5.0),
        _event("script_written", "author", version=1),
        _event("certificate", "programming", verifier="programming", version=1),
        _event("node_finished", "programming_verify", seconds=30.0),
        _event("node_finished", "programming_repair", seconds=2.0),
        _event("script_written", "programming_repair", version=2),
        _event("certificate", "programming", verifier="programming", version=2),
        _event("node_finished", "programming_verify", seconds=20.0, program_seconds=36.0),
        _event("certificate", "scientific", verifier="scientific", version=2),
        _event("node_finished", "scientific_verify", seconds=12.5, program_seconds=20.0),
        _event("certificate", "convergence", verifier="convergence", version=2),
        _event("node_finished", "convergence", seconds=7.5),
        _event("node_finished", "report", seconds=1.0),
    ]) + "\n")
    assert final_verification(transcript) == FinalVerification(2, 40.0, 56.0)


def test_a_verifier_node_without_a_certificate_is_charged_to_no_version(tmp_path):
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text("\n".join([
        _event("script_written", "author", version=1),
        _event("node_finished", "programming_verify", seconds=30.0),
    ]) + "\n")
    assert final_verification(transcript) == FinalVerification(1, 0.0, 0.0)
