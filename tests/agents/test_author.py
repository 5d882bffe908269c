"""The Author agent with a scripted model: a structured plan, retrieval of its queries, and a first
script refined until the contract analysis passes; every rendered prompt is in the transcript."""

from __future__ import annotations

import json

from physvec.agents.model_client import REPEAT_SEED
from physvec.knowledge_base.sources import library_files
from physvec.knowledge_base.store import KnowledgeBase
from physvec.runstore.transcript import EventType, read_events
from tests.agents.test_pipeline import reproduce, set_limits
from tests.support.scripted import GOOD_SCRIPT, variant, write_replies
from physvec.verifiers.programming.contract import analyse_script

PLAN = {
    "system": "open spin-1/2 Heisenberg chain of four sites",
    "hamiltonian": "H = J sum_i S_i . S_{i+1}, S = sigma/2",
    "parameters": [{"name": "L", "value": 4, "source": "Eq. 1"}, {"name": "J", "value": 1.0, "source": "Eq. 1"}],
    "method": "exact diagonalisation with numpy",
    "observables": ["ground-state energy"],
    "scaled_down": "nothing",
    "queries": ["background Hamiltonian of a Heisenberg chain", "library pipeline of a transverse field Ising chain"],
}
# the run_ function computes the spectrum itself instead of calling an element function
BREACHING = variant('    levels = observable_spectrum(hamiltonian_heisenberg(params["L"], params["J"]))',
                    '    levels = np.linalg.eigvalsh(hamiltonian_heisenberg(params["L"], params["J"]))')


def test_the_author_plans_retrieves_and_refines_until_the_contract_holds(tiny_task, runs_dir, tmp_path, monkeypatch):
    assert analyse_script(BREACHING).breaches and not analyse_script(GOOD_SCRIPT).breaches
    store = tmp_path / "kb"
    KnowledgeBase(store).build(library_files())
    monkeypatch.setenv("PHYSVEC_KB", str(store))
    set_limits(tiny_task, author_plan=True)
    plan_reply = "Plan:\n```json\n" + json.dumps(PLAN) + "\n```\n"
    replies = write_replies(tmp_path / "r.json", "I would rather start coding.", plan_reply, BREACHING, GOOD_SCRIPT)
    code, run = reproduce(tiny_task, replies, runs_dir)
    assert code == 0
    events = list(read_events(run.transcript_file))
    (invalid,) = [e for e in events if e.type is EventType.INVALID_MODEL_REPLY]
    assert invalid.data["role"] == "author_plan" and "not JSON" in invalid.data["problem"]
    (plan,) = [e for e in events if e.type is EventType.PLAN]
    assert plan.data["author_plan"]["system"] == PLAN["system"]
    assert json.loads((run.path / "plan.json").read_text())["queries"] == PLAN["queries"]
    retrievals = {e.data["query"]: e.data for e in events if e.type is EventType.RETRIEVAL}
    for query in PLAN["queries"]:
        assert retrievals[query]["summary"] and retrievals[query]["sources"], query
    (refinement,) = [e for e in events if e.type is EventType.AUTHOR_REFINEMENT]
    assert any("run_ground_state" in breach for breach in refinement.data["breaches"])
    assert (run.path / "scripts" / "v01.py").read_text() == GOOD_SCRIPT, "the refined script is version 1"
    calls = [e for e in events if e.type is EventType.MODEL_CALL]
    assert [c.data["role"] for c in calls] == ["author_plan", "author_plan", "author", "author"]
    assert all(c.data["prompt"] for c in calls), "every rendered prompt is recorded"
    assert "Your plan" in json.dumps(calls[2].data["prompt"]) and "contract" in json.dumps(calls[3].data["prompt"])


def test_the_plan_prompt_asks_for_json_under_a_system_message_that_asks_for_json_not_a_script(
        tiny_task, runs_dir, tmp_path):
    set_limits(tiny_task, author_plan=True)
    plan_reply = "```json\n" + json.dumps(PLAN) + "\n```\n"
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", plan_reply, GOOD_SCRIPT), runs_dir)
    calls = [e for e in read_events(run.transcript_file) if e.type is EventType.MODEL_CALL]
    plan_system = calls[0].data["prompt"][0]
    assert plan_system["type"] == "system" and "JSON object" in plan_system["content"]
    assert "python" not in plan_system["content"].lower()
    assert calls[0].data["schema"] == "AuthorPlan", "the plan call names its reply schema"
    assert "fenced block" in calls[1].data["prompt"][0]["content"], "the author's system message keeps the contract"


def test_a_plan_that_never_validates_ends_the_plan_step_visibly_and_the_author_is_told_it_has_none(
        tiny_task, runs_dir, tmp_path):
    set_limits(tiny_task, author_plan=True, author_attempts=2)
    replies = write_replies(tmp_path / "r.json", "no json here", '{"system": "chain"}', GOOD_SCRIPT)
    code, run = reproduce(tiny_task, replies, runs_dir)
    events = list(read_events(run.transcript_file))
    (failed,) = [e for e in events if e.type is EventType.PLAN_FAILED]
    assert failed.node == "plan" and "2 attempts" in failed.data["reason"]
    assert "required fields" in failed.data["reason"], "the last attempt's problem is the reason"
    assert not (run.path / "plan.json").exists()
    author_call = [e for e in events if e.type is EventType.MODEL_CALL and e.data["role"] == "author"][0]
    assert "You have no plan: planning failed" in json.dumps(author_call.data["prompt"])


def test_a_plan_reply_that_repeats_itself_is_asked_once_with_another_seed_then_the_plan_step_ends(
        tiny_task, runs_dir, tmp_path):
    set_limits(tiny_task, author_plan=True, author_attempts=3)
    replies = write_replies(tmp_path / "r.json", "no json here", "no json here", "no json here", GOOD_SCRIPT)
    code, run = reproduce(tiny_task, replies, runs_dir)
    events = list(read_events(run.transcript_file))
    plan_calls = [e for e in events if e.type is EventType.MODEL_CALL and e.data["role"] == "author_plan"]
    assert [c.data.get("seed") for c in plan_calls] == [None, None, REPEAT_SEED], "one retry, then no more"
    (failed,) = [e for e in events if e.type is EventType.PLAN_FAILED]
    assert failed.data["reason"].startswith("the model repeats itself")
    assert code == 0, "the Author still writes the script without a plan"


def test_an_author_whose_last_script_still_breaks_the_contract_ends_failed_with_the_breaches_unverified(
        tiny_task, runs_dir, tmp_path):
    """A breached script would only fail every later check: the author step hands none on."""
    set_limits(tiny_task, author_attempts=2)
    also_breaching = BREACHING.replace("levels[0]", "min(levels)")
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", BREACHING, also_breaching), runs_dir)
    assert code != 0
    metadata = run.metadata()
    assert metadata["status"] == "author_failed"
    assert "breaks the contract" in metadata["ended_by"] and "run_ground_state" in metadata["ended_by"]
    assert "2 attempt" in metadata["ended_by"]
    events = list(read_events(run.transcript_file))
    refinements = [e.data for e in events if e.type is EventType.AUTHOR_REFINEMENT]
    assert [r["final"] for r in refinements] == [False, True]
    assert not (run.path / "scripts" / "v01.py").exists()
    assert not any(e.type is EventType.CERTIFICATE and e.data["verifier"] == "programming" for e in events)


def test_a_prompt_too_long_for_the_servers_context_loses_retrieved_snippets_first_and_never_the_task(
        tiny_task, runs_dir, tmp_path, monkeypatch):
    """Against llama.cpp's /props context on a real loopback server: the Author's request is trimmed until the
    context holds its whole script reply, by dropping the last retrieved snippets; the task stays whole."""
    from physvec.agents.provider_profile import SCRIPT_REPLY_TOKENS
    from physvec.cli.main import reproduce_main
    from physvec.runstore.store import list_runs
    from tests.support.chat_completions_server import ChatCompletionsServer
    from tests.support.scripted import fenced

    store = tmp_path / "kb"
    KnowledgeBase(store).build(library_files())
    monkeypatch.setenv("PHYSVEC_KB", str(store))
    set_limits(tiny_task, programming_iterations=0)
    context = SCRIPT_REPLY_TOKENS + 2_000
    with ChatCompletionsServer([fenced(GOOD_SCRIPT)], models=["m"], context_tokens=context) as server:
        reproduce_main([str(tiny_task), "--model", "openai:m", "--base-url", server.base_url,
                        "--runs-dir", str(runs_dir)])
    (run,) = list_runs(runs_dir)
    events = list(read_events(run.transcript_file))
    retrieved = json.loads((run.path / "retrieval.json").read_text())
    (trim,) = [e.data for e in events if e.type is EventType.PROMPT_TRIMMED]
    assert trim["role"] == "author" and trim["context_tokens"] == context
    assert trim["snippets_dropped"] >= 1 and trim["snippets_kept"] + trim["snippets_dropped"] == min(len(retrieved), 12)
    assert trim["paper_chars_kept"] == trim["paper_chars"], "the paper is only shortened once every snippet is gone"
    (call,) = [e.data for e in events if e.type is EventType.MODEL_CALL]
    assert call["max_tokens"] == SCRIPT_REPLY_TOKENS, "the whole script reply fits"
    prompt = json.dumps(call["prompt"])
    task = json.loads(tiny_task.read_text())
    assert task["request"] in json.loads(prompt)[1]["content"], "the task is never trimmed"
    kept = [snippet["qualname"] for snippet in retrieved[:trim["snippets_kept"]]]
    assert all(name in prompt for name in kept)


def test_an_author_reply_repeated_after_feedback_is_asked_with_another_seed_then_ends_as_a_repeat(
        tiny_task, runs_dir, tmp_path):
    """The same breached script back after being told its breaches: feedback changed nothing, so the next
    attempt is sampled differently; the same reply again ends the run, naming the repeat."""
    set_limits(tiny_task, author_attempts=3)
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", BREACHING, BREACHING, BREACHING), runs_dir)
    assert code != 0
    events = list(read_events(run.transcript_file))
    calls = [e.data for e in events if e.type is EventType.MODEL_CALL]
    assert [c.get("seed") for c in calls] == [None, None, REPEAT_SEED]
    assert [e.data["attempt"] for e in events if e.type is EventType.REPEATED_REPLY] == [2]
    assert run.metadata()["status"] == "model_repeats"
    assert run.metadata()["ended_by"].startswith("the model repeats itself: author gave the same reply after feedback")


def test_a_repeated_author_reply_that_changes_under_the_new_seed_goes_on(tiny_task, runs_dir, tmp_path):
    set_limits(tiny_task, author_attempts=3)
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", BREACHING, BREACHING, GOOD_SCRIPT), runs_dir)
    assert code == 0
    assert (run.path / "scripts" / "v01.py").read_text() == GOOD_SCRIPT
