"""`reproduce` of an ITensors task: the Author writes Julia under the Julia contract, and on a machine
without Julia the run ends unknown with the reason (never certified, never failed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physvec.runstore.transcript import EventType, read_events
from tests.agents.test_pipeline import reproduce
from tests.support.scripted import write_replies
from physvec.verifiers.programming.julia_runtime import locate_julia

JULIA_SCRIPT = (Path(__file__).resolve().parents[1] / "fixtures" / "scripts" / "itensors" / "reference.jl").read_text()
# the run_ function diagonalises by itself instead of calling the effector: a contract breach
BREACHING = JULIA_SCRIPT.replace(
    '    energy, state = effector_dmrg(hamiltonian_heisenberg(sites, params["J"]), initialstate_neel(sites),\n'
    '                                  params["nsweeps"], params["maxdim"], params["cutoff"])',
    '    energy, state = dmrg(hamiltonian_heisenberg(sites, params["J"]), initialstate_neel(sites);\n'
    '                         nsweeps=params["nsweeps"], maxdim=params["maxdim"], cutoff=params["cutoff"])')


@pytest.mark.skipif(locate_julia().available, reason="Julia with juliacall is installed here")
def test_an_itensors_run_is_julia_refined_to_the_contract_and_ends_unknown_without_julia(tiny_task, runs_dir,
                                                                                          tmp_path):
    assert BREACHING != JULIA_SCRIPT
    data = json.loads(tiny_task.read_text())
    data["backend"] = "itensors"
    tiny_task.write_text(json.dumps(data))
    replies = write_replies(tmp_path / "r.json", f"```julia\n{BREACHING}```", f"```julia\n{JULIA_SCRIPT}```")
    code, run = reproduce(tiny_task, replies, runs_dir)
    assert [p.name for p in run.scripts()] == ["v01.jl"]
    assert run.scripts()[0].read_text() == JULIA_SCRIPT
    events = list(read_events(run.transcript_file))
    (refinement,) = [e for e in events if e.type is EventType.AUTHOR_REFINEMENT]
    assert any("effector_dmrg" in breach or "run" in breach for breach in refinement.data["breaches"])
    certificates = run.certificates()
    outcomes = {o.name: o for c in certificates.values() for o in c.obligations}
    assert outcomes["script_executes"].outcome.value == "unknown"
    assert outcomes["scientific:julia"].outcome.value == "unknown"
    assert "Julia is not installed" in outcomes["scientific:julia"].message
    assert run.metadata()["verdict"] == "unknown" and code != 0
