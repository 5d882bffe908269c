"""Providers behind one factory, and the model client that records, retries and budgets calls."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from physvec.agents.model_client import (
    REPEAT_SEED, REPEAT_TEMPERATURE, BudgetExhausted, ModelClient, ModelRepeats, ModelUnavailable, RetryPolicy,
    request_hash,
)
from physvec.agents.providers import (
    ModelSpecError, ProviderSettings, ScriptedChatModel, ScriptExhausted, make_chat_model,
)
from physvec.agents.replies import InvalidModelReply, extract_script
from physvec.runstore.transcript import EventType, Transcript
from tests.support.chat_completions_server import ChatCompletionsServer

FAST_RETRY = RetryPolicy(attempts=6, base_delay_s=0.01, max_delay_s=0.05)
QUESTION = [HumanMessage("What is the ground-state energy?")]


def scripted(tmp_path, *replies) -> ScriptedChatModel:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"replies": list(replies)}))
    return make_chat_model(f"scripted:{path}")


def test_scripted_model_serves_replies_in_order_and_never_cycles(tmp_path):
    model = scripted(tmp_path, "one", {"content": "two"})
    assert [model.invoke(QUESTION).content for _ in range(2)] == ["one", "two"]
    with pytest.raises(ScriptExhausted):
        model.invoke(QUESTION)


def test_scripted_model_supports_tools_and_continues_after_served_replies(tmp_path):
    model = scripted(tmp_path, "one", "two")
    assert model.bind_tools([]) is model
    path = tmp_path / "replies.json"
    assert make_chat_model(f"scripted:{path}", already_served=1).invoke(QUESTION).content == "two"


def test_a_scripted_folder_serves_each_task_its_own_file_and_names_a_missing_one(tmp_path):
    """One campaign, one model spec, a different fixture per task."""
    (tmp_path / "task-a.json").write_text(json.dumps({"replies": ["for a"]}))
    (tmp_path / "task-b.json").write_text(json.dumps(["for b"]))
    assert make_chat_model(f"scripted:{tmp_path}", task_id="task-a").invoke(QUESTION).content == "for a"
    assert make_chat_model(f"scripted:{tmp_path}", task_id="task-b").invoke(QUESTION).content == "for b"
    with pytest.raises(ModelSpecError, match="holds no task-c.json for task task-c"):
        make_chat_model(f"scripted:{tmp_path}", task_id="task-c")
    with pytest.raises(ScriptExhausted):  # without a task the folder is only checked, and serves nothing
        make_chat_model(f"scripted:{tmp_path}").invoke(QUESTION)


@pytest.mark.parametrize(("spec", "words"), [
    ("gpt-4", "must look like"), ("anthropic:claude", "unknown model provider"),
    ("scripted:/absent.json", "no such file"), ("replay:/absent", "no transcript"),
])
def test_bad_specs_are_model_spec_errors(spec, words):
    with pytest.raises(ModelSpecError, match=words):
        make_chat_model(spec)


def test_openai_spec_builds_a_client_without_network(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    model = make_chat_model("openai:qwen2.5-coder", ProviderSettings(timeout_s=5))
    assert model.model_name == "qwen2.5-coder" and model.max_retries == 0


def test_replay_serves_the_replies_a_run_recorded(tmp_path):
    transcript = Transcript(tmp_path / "transcript.jsonl")
    client = ModelClient(scripted(tmp_path, "first", "second"), transcript, 10_000)
    client.ask("author", QUESTION, node="author", step=1)
    client.ask("author", QUESTION, node="author", step=2)
    replay = make_chat_model(f"replay:{tmp_path}")
    assert [replay.invoke(QUESTION).content for _ in range(2)] == ["first", "second"]


class TestModelClient:
    def test_every_call_is_recorded_with_tokens_and_latency(self, tmp_path):
        transcript = Transcript(tmp_path / "t.jsonl")
        client = ModelClient(scripted(tmp_path, "answer"), transcript, 10_000)
        assert client.ask("author", QUESTION, node="author", step=3) == "answer"
        (event,) = transcript.events()
        assert event.type is EventType.MODEL_CALL and event.step == 3
        assert event.data["request_hash"] == request_hash("author", QUESTION)
        assert event.data["input_tokens"] > 0 and event.data["output_tokens"] > 0
        assert event.data["tokens_counted"] == "approximate" and event.data["latency_s"] >= 0
        assert client.tokens_used == event.data["input_tokens"] + event.data["output_tokens"]

    def test_a_completed_call_of_an_interrupted_step_is_served_from_the_record(self, tmp_path):
        transcript = Transcript(tmp_path / "t.jsonl")
        ModelClient(scripted(tmp_path, "paid once"), transcript, 10_000).ask("author", QUESTION, "author", 3)
        resumed = ModelClient(scripted(tmp_path, "must not be asked"), transcript, 10_000)
        assert resumed.ask("author", QUESTION, node="author", step=3) == "paid once"
        assert resumed.model.i == 0, "the model was asked again"
        types = [e.type for e in transcript.events()]
        assert types == [EventType.MODEL_CALL, EventType.MODEL_REPLY_REUSED]

    def test_the_same_request_at_a_later_step_is_asked_anew(self, tmp_path):
        transcript = Transcript(tmp_path / "t.jsonl")
        ModelClient(scripted(tmp_path, "a"), transcript, 10_000).ask("author", QUESTION, "author", 3)
        resumed = ModelClient(scripted(tmp_path, "x", "b"), transcript, 10_000)
        resumed.model.i = 1
        assert resumed.ask("author", QUESTION, node="author", step=5) == "b"

    def test_budget_stops_before_the_call_that_would_exceed_it(self, tmp_path):
        transcript = Transcript(tmp_path / "t.jsonl")
        client = ModelClient(scripted(tmp_path, "a", "b"), transcript, token_budget=1)
        client.ask("author", QUESTION, node="author", step=1)
        with pytest.raises(BudgetExhausted):
            client.ask("author", QUESTION, node="author", step=2)
        assert transcript.events()[-1].type is EventType.BUDGET_EXHAUSTED
        assert client.model.i == 1

    def test_non_retryable_provider_errors_stop_without_retrying(self, tmp_path):
        transcript = Transcript(tmp_path / "t.jsonl")
        client = ModelClient(scripted(tmp_path), transcript, 10_000, FAST_RETRY)
        with pytest.raises(ModelUnavailable, match="ScriptExhausted"):
            client.ask("author", QUESTION, node="author", step=1)
        assert transcript.events() == []

    def test_openai_compatible_server_faults_are_retried_and_recorded_as_infrastructure(self, tmp_path):
        behaviours = ["429", "500", "timeout", "malformed", "the answer"]
        with ChatCompletionsServer(behaviours, timeout_sleep_s=1.5) as server:
            model = make_chat_model("openai:test-model", ProviderSettings(base_url=server.base_url, timeout_s=0.5))
            transcript = Transcript(tmp_path / "t.jsonl")
            client = ModelClient(model, transcript, 10_000, FAST_RETRY)
            assert client.ask("author", QUESTION, node="author", step=1) == "the answer"
            log = [entry["behaviour"] for entry in server.request_log]
        assert log == ["429", "500", "timeout", "malformed", "reply"]
        faults = [e for e in transcript.events() if e.type is EventType.INFRASTRUCTURE_FAULT]
        assert [f.data["attempt"] for f in faults] == [1, 2, 3, 4]
        assert "429" in faults[0].data["message"] and "Timeout" in faults[2].data["error"]
        (call,) = [e for e in transcript.events() if e.type is EventType.MODEL_CALL]
        assert call.data["attempts"] == 5 and call.data["tokens_counted"] == "server"
        assert call.data["input_tokens"] == 11

    def test_a_provider_that_keeps_failing_is_unavailable(self, tmp_path):
        with ChatCompletionsServer(["500"] * 3) as server:
            model = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url, timeout_s=2))
            client = ModelClient(model, Transcript(tmp_path / "t.jsonl"), 10_000,
                                 RetryPolicy(attempts=3, base_delay_s=0.01))
            with pytest.raises(ModelUnavailable, match="3 times in a row; the last: .*500"):
                client.ask("author", QUESTION, node="author", step=1)
            assert len(server.request_log) == 3
        faults = [e for e in client.transcript.events() if e.type is EventType.INFRASTRUCTURE_FAULT]
        assert [f.data["retry_in_s"] for f in faults][-1] is None, "the last fault announces no retry"


TOOL = {"type": "function", "function": {"name": "propose_design", "description": "submit a design",
                                         "parameters": {"type": "object", "properties": {"values": {"type": "object"}},
                                                        "required": ["values"]}}}


def test_tool_calls_over_an_openai_compatible_server_are_recorded_and_served_again_on_resume(tmp_path):
    call = {"name": "propose_design", "args": {"values": {"resistance_ohm": 1000.0}}}
    with ChatCompletionsServer([{"content": "", "tool_calls": [call]}]) as server:
        model = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url, timeout_s=5))
        transcript = Transcript(tmp_path / "t.jsonl")
        reply = ModelClient(model, transcript, 10_000, FAST_RETRY).ask_message("phact", QUESTION, "phact", 1,
                                                                               tools=[TOOL])
        assert server.request_log[0]["tools"] == ["propose_design"]
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [(call["name"], call["args"])]
    (recorded,) = [e for e in transcript.events() if e.type is EventType.MODEL_CALL]
    assert recorded.data["tool_calls"][0]["args"] == call["args"] and recorded.data["tools"] == ["propose_design"]
    resumed = ModelClient(scripted(tmp_path), transcript, 10_000)  # a script with no replies: nothing is asked
    again = resumed.ask_message("phact", QUESTION, "phact", 1, tools=[TOOL])
    assert [c["args"] for c in again.tool_calls] == [call["args"]]


def test_the_request_hash_tells_offered_tools_and_tool_calls_apart():
    assert request_hash("r", QUESTION) != request_hash("r", QUESTION, tools=[TOOL])
    with_call = [*QUESTION, AIMessage(content="", tool_calls=[{"name": "propose_design", "args": {"values": {}}, "id": "1"}])]
    assert request_hash("r", with_call) != request_hash("r", [*QUESTION, AIMessage(content="")])


@pytest.mark.parametrize("reply", ["I cannot help.", "```python\n```", "```\n\n```"])
def test_replies_without_a_script_are_invalid(reply):
    with pytest.raises(InvalidModelReply):
        extract_script(reply)


def test_the_first_fenced_script_is_extracted():
    assert extract_script("text\n```python\nprint(1)\n```\nmore\n```python\nprint(2)\n```") == "print(1)\n"


def test_a_script_fenced_inside_a_docstring_that_quotes_the_prompt_is_found_by_parsing():
    """Qwen2.5-Coder-1.5B opened a docstring quoting the system prompt, then fenced the script inside it and
    closed one fence: the first block does not parse, the inner one does."""
    nested = ('```python\n"""\nThe contract says:\n- PARAMS = {...}\n\n```python\n'
              'PARAMS = {"L": 4}\n\n\ndef main() -> None:\n    print(PARAMS)\n```\n')
    assert extract_script(nested) == 'PARAMS = {"L": 4}\n\n\ndef main() -> None:\n    print(PARAMS)\n'
    unparsable = "```python\ndef broken(:\n```\n"
    assert extract_script(unparsable) == "def broken(:\n", "no block parses: the first, for the contract to name"
    assert extract_script("```julia\nfunction main()\nend\n```") == "function main()\nend\n"
    with pytest.raises(InvalidModelReply):
        extract_script("```json\n{\"a\": 1}\n```")


class Answer(BaseModel):
    energy: float


def test_a_call_with_a_reply_schema_sends_it_as_json_schema_response_format(tmp_path):
    with ChatCompletionsServer(['{"energy": -1.5}']) as server:
        model = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url, timeout_s=5))
        client = ModelClient(model, Transcript(tmp_path / "t.jsonl"), 10_000, FAST_RETRY)
        assert client.ask("plan", QUESTION, node="plan", step=1, schema=Answer) == '{"energy": -1.5}'
        sent = server.request_log[0]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "Answer"
    assert sent["json_schema"]["schema"]["properties"]["energy"]["type"] == "number"
    (call,) = [e for e in client.transcript.events() if e.type is EventType.MODEL_CALL]
    assert call.data["structured_output"] is True and call.data["schema"] == "Answer"


def test_a_server_that_rejects_response_format_is_asked_once_more_without_and_never_with_it_again(tmp_path):
    with ChatCompletionsServer(["400_response_format", "first", "second"]) as server:
        model = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url, timeout_s=5))
        client = ModelClient(model, Transcript(tmp_path / "t.jsonl"), 10_000, FAST_RETRY)
        assert client.ask("plan", QUESTION, node="plan", step=1, schema=Answer) == "first"
        assert client.ask("plan", QUESTION, node="plan", step=2, schema=Answer) == "second"
        sent = [entry["response_format"] for entry in server.request_log]
    assert sent[0] is not None and sent[1:] == [None, None]
    (fault,) = [e for e in client.transcript.events() if e.type is EventType.INFRASTRUCTURE_FAULT]
    assert "without response_format" in fault.data["fallback"]


def test_the_request_hash_tells_a_reply_schema_apart():
    assert request_hash("r", QUESTION) != request_hash("r", QUESTION, schema=Answer)


def test_a_repeated_reply_to_the_same_request_is_asked_again_with_another_seed_and_temperature(tmp_path):
    with ChatCompletionsServer(["same script", "same script", "another script"]) as server:
        model = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url, timeout_s=5))
        client = ModelClient(model, Transcript(tmp_path / "t.jsonl"), 10_000, FAST_RETRY, notice_repeats=True)
        assert client.ask("repair", QUESTION, node="repair", step=1) == "same script"
        assert client.ask("repair", QUESTION, node="repair", step=2) == "another script"
        sampling = [(entry["seed"], entry["temperature"]) for entry in server.request_log]
    assert sampling[2] == (REPEAT_SEED, REPEAT_TEMPERATURE) and sampling[1][0] is None
    (repeat,) = [e for e in client.transcript.events() if e.type is EventType.REPEATED_REPLY]
    assert repeat.step == 2 and repeat.data["retry"] == {"seed": REPEAT_SEED, "temperature": REPEAT_TEMPERATURE}


def test_a_model_that_repeats_itself_after_the_changed_seed_stops_the_loop_with_that_reason(tmp_path):
    client = ModelClient(scripted(tmp_path, "same", "same", "same"), Transcript(tmp_path / "t.jsonl"), 10_000,
                         notice_repeats=True)
    client.ask("repair", QUESTION, node="repair", step=1)
    with pytest.raises(ModelRepeats, match="the model repeats itself"):
        client.ask("repair", QUESTION, node="repair", step=2)
    assert [e.type for e in client.transcript.events()].count(EventType.MODEL_CALL) == 3, "one retry, no more"


def test_the_same_reply_to_different_requests_is_no_repeat(tmp_path):
    client = ModelClient(scripted(tmp_path, "yes", "yes"), Transcript(tmp_path / "t.jsonl"), 10_000,
                         notice_repeats=True)
    client.ask("judge", QUESTION, node="judge", step=1)
    assert client.ask("judge", [HumanMessage("Another question")], node="judge", step=1) == "yes"
    assert not [e for e in client.transcript.events() if e.type is EventType.REPEATED_REPLY]


def test_a_model_the_server_does_not_serve_is_unavailable_at_once_even_with_a_reply_schema(tmp_path):
    with ChatCompletionsServer(["404_model", "never asked"]) as server:
        model = make_chat_model("openai:gone", ProviderSettings(base_url=server.base_url, timeout_s=5))
        client = ModelClient(model, Transcript(tmp_path / "t.jsonl"), 10_000, FAST_RETRY)
        with pytest.raises(ModelUnavailable, match="not found"):
            client.ask("plan", QUESTION, node="plan", step=1, schema=Answer)
        assert len(server.request_log) == 1, "no retry and no structured-output fallback for a missing model"


def test_a_campaign_client_measures_repeats_instead_of_stopping_on_them(tmp_path):
    client = ModelClient(scripted(tmp_path, "same", "same"), Transcript(tmp_path / "t.jsonl"), 10_000)
    client.ask("dualitycert_repair", QUESTION, node="repair", step=1)
    assert client.ask("dualitycert_repair", QUESTION, node="repair", step=2) == "same"
