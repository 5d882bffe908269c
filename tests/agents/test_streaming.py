"""Replies are streamed: the text and the server's token counts are what a whole reply would have carried,
progress reaches an observer while the call runs, each call records its speed and its timeout, a server that
falls silent or crawls past the bound is retried as a provider fault, and ``--timeout auto`` measures the
bound from the server's speed (real HTTP server on loopback)."""

from __future__ import annotations

import argparse
import io

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from rich.console import Console

from physvec.agents.model_client import CallProgress, ModelClient, RetryPolicy
from physvec.agents.provider_profile import CallTimeout, MeasuredTimeout, ProviderProfile, ServerSpeed
from physvec.agents.providers import ProviderSettings, ScriptedChatModel, make_chat_model
from physvec.cli.arguments import seconds_none_or_auto
from physvec.cli.run_display import LiveDisplay
from physvec.runstore.transcript import EventType, Transcript
from tests.support.chat_completions_server import ChatCompletionsServer

FAST_RETRY = RetryPolicy(attempts=3, base_delay_s=0.01, max_delay_s=0.05)
QUESTION = [HumanMessage("What is the ground-state energy?")]
REPLY = "E0 = -0.4431 per site,\n  from the Bethe ansatz.\n"


def _client(server: ChatCompletionsServer, tmp_path, profile: ProviderProfile = ProviderProfile(),
            timeout_s: float | None = 5.0) -> ModelClient:
    model = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url, timeout_s=timeout_s))
    return ModelClient(model, Transcript(tmp_path / "t.jsonl"), 10**6, FAST_RETRY, profile=profile)


def _calls(client: ModelClient) -> list[dict]:
    return [e.data for e in client.transcript.events() if e.type is EventType.MODEL_CALL]


def _faults(client: ModelClient) -> list[dict]:
    return [e.data for e in client.transcript.events() if e.type is EventType.INFRASTRUCTURE_FAULT]


def test_a_streamed_reply_is_the_text_and_token_counts_the_whole_reply_carries(tmp_path):
    with ChatCompletionsServer([REPLY, REPLY]) as server:
        whole = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url, timeout_s=5)).invoke(QUESTION)
        streamed = _client(server, tmp_path)
        assert streamed.ask("author", QUESTION, node="author", step=1) == whole.content == REPLY
        assert [entry["stream"] for entry in server.request_log] == [False, True]
    (call,) = _calls(streamed)
    assert call["tokens_counted"] == "server", "the usage chunk asked for with stream_options arrived"
    assert (call["input_tokens"], call["output_tokens"]) == (whole.usage_metadata["input_tokens"],
                                                             whole.usage_metadata["output_tokens"])


def test_streamed_tool_call_pieces_are_joined_into_one_call(tmp_path):
    call = {"name": "propose_design", "args": {"values": {"resistance_ohm": 1000.0}}}
    tool = {"type": "function", "function": {"name": "propose_design", "description": "submit a design",
                                             "parameters": {"type": "object"}}}
    with ChatCompletionsServer([{"content": "", "tool_calls": [call]}]) as server:
        reply = _client(server, tmp_path).ask_message("phact", QUESTION, "phact", 1, tools=[tool])
        assert server.request_log[0]["stream"]
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [(call["name"], call["args"])]


def test_the_observer_sees_rising_token_counts_while_the_call_runs(tmp_path):
    seen: list[CallProgress] = []
    with ChatCompletionsServer(["the server sends a chunk per word"]) as server:
        client = _client(server, tmp_path, ProviderProfile(progress=seen.append))
        client.ask("author", QUESTION, node="author", step=1)
    assert [p.tokens for p in seen] == [1, 2, 3, 4, 5, 6, 7], "one report per chunk of the reply"
    assert {(p.role, p.node) for p in seen} == {("author", "author")}
    assert all(a.seconds <= b.seconds for a, b in zip(seen, seen[1:]))
    assert seen[0].tokens_per_s is None and seen[-1].tokens_per_s > 0, "a rate needs two tokens"
    assert len(client.transcript.events()) == 1, "progress is not written to the transcript"


def test_each_call_records_its_time_to_first_token_and_tokens_per_second(tmp_path):
    with ChatCompletionsServer(["one two three four five six seven eight nine ten"], first_token_delay_s=0.3,
                               chunk_delay_s=0.05) as server:
        client = _client(server, tmp_path)
        client.ask("author", QUESTION, node="author", step=1)
    (call,) = _calls(client)
    assert call["first_token_s"] >= 0.3
    # 11 server tokens over at least 9 chunk gaps of 0.05 s after the first word: at most 11 / 0.45 tok/s
    assert 3 <= call["output_tokens_per_s"] <= 11 / 0.45
    assert call["latency_s"] >= call["first_token_s"] + 9 * 0.05


def test_a_model_that_cannot_stream_answers_in_one_chunk_with_its_tool_calls(tmp_path):
    calls = [{"name": "propose_design", "args": {"values": {}}, "id": "1"}]
    seen: list[CallProgress] = []
    model = ScriptedChatModel(responses=[AIMessage(content="done", tool_calls=calls)])
    client = ModelClient(model, Transcript(tmp_path / "t.jsonl"), 10**6, profile=ProviderProfile(
        progress=seen.append, timeout=MeasuredTimeout()))
    reply = client.ask_message("phact", QUESTION, "phact", 1, tools=[{"type": "function", "function": {"name": "x"}}])
    assert reply.content == "done" and reply.tool_calls[0]["args"] == {"values": {}}
    assert [p.tokens for p in seen] == [1]
    (call,) = _calls(client)
    assert call["output_tokens_per_s"] is None, "a reply in one chunk has no rate"


def test_a_server_that_stalls_mid_reply_past_the_measured_timeout_is_retried_as_a_provider_fault(tmp_path):
    measured = MeasuredTimeout(margin_s=0.4)
    behaviours = ["a first reply to measure the server by", {"content": "half a reply", "stall_after": 2}, "the answer"]
    with ChatCompletionsServer(behaviours, timeout_sleep_s=3.0) as server:
        client = _client(server, tmp_path, ProviderProfile(timeout=measured), timeout_s=None)
        client.ask("author", QUESTION, node="author", step=1)
        assert client.ask("author", [HumanMessage("again")], node="author", step=2) == "the answer"
        assert [entry["behaviour"] for entry in server.request_log] == ["reply"] * 3
    first, second = _calls(client)
    assert first["timeout_s"] > 1000, "before any measurement: as slow as 2 tokens/s for 4096 tokens"
    assert second["silence_timeout_s"] < 1 and second["attempts"] == 2, "measured on loopback: the margin and little more"
    (fault,) = _faults(client)
    assert "Timeout" in fault["error"] and fault["attempt"] == 1


def test_a_fixed_timeout_bounds_the_whole_streamed_reply_not_only_each_silence(tmp_path):
    """``--timeout S`` stays the seconds one request may take: a server that trickles 20 chunks over 2 s is
    never silent for 0.5 s, and is still stopped at 0.5 s."""
    with ChatCompletionsServer([" ".join(["word"] * 20), "ok"], chunk_delay_s=0.1) as server:
        client = _client(server, tmp_path, ProviderProfile(timeout=0.5), timeout_s=0.5)
        assert client.ask("author", QUESTION, node="author", step=1) == "ok"
    (fault,) = _faults(client)
    assert fault["error"] == "TimeoutError" and "longer than 0.5 s" in fault["message"]
    (call,) = _calls(client)
    assert call["timeout_s"] == call["silence_timeout_s"] == 0.5 and call["attempts"] == 2


def test_the_measured_timeout_follows_the_slowest_speed_seen():
    rule = MeasuredTimeout(safety=3.0, margin_s=30.0, first_prompt_tokens_per_s=20.0, first_output_tokens_per_s=2.0)
    speed = ServerSpeed()
    assert rule.bound(1000, 4096, speed) == CallTimeout(silence_s=3 * (50 + 0.5) + 30, total_s=3 * (50 + 2048) + 30)
    speed.measure(prompt_tokens=1000, first_token_s=10.0, output_tokens_per_s=8.0)
    speed.measure(prompt_tokens=1000, first_token_s=2.0, output_tokens_per_s=4.0)
    assert (speed.prompt_tokens_per_s, speed.output_tokens_per_s) == (100.0, 4.0)
    assert rule.bound(1000, 400, speed).total_s == 3 * (10 + 100) + 30
    assert ProviderProfile(timeout=7.0).call_timeout(1000, 400, speed) == CallTimeout(7.0, 7.0)
    assert ProviderProfile().call_timeout(1000, 400, speed) is None, "no timeout of ours: the chat model's own"


@pytest.mark.parametrize(("text", "parsed"), [("auto", "auto"), ("AUTO", "auto"), ("none", None), ("90", 90.0)])
def test_timeout_is_seconds_none_or_auto(text, parsed):
    assert seconds_none_or_auto(text) == parsed


def test_a_bad_timeout_names_all_three_forms():
    with pytest.raises(argparse.ArgumentTypeError, match="neither a number of seconds nor 'none'; or 'auto'"):
        seconds_none_or_auto("soon")


def test_reproduce_timeout_auto_says_the_timeout_is_measured(capsys):
    from physvec.cli.main import _check_provider

    with ChatCompletionsServer([], models=["m"]) as server:
        settings = ProviderSettings(base_url=server.base_url, timeout_s=None,
                                    profile=ProviderProfile(timeout=MeasuredTimeout()))
        assert _check_provider("openai:m", settings, FAST_RETRY).profile.timeout == MeasuredTimeout()
    assert "timeout is measured from the server's speed" in capsys.readouterr().err


def _display() -> tuple[LiveDisplay, io.StringIO]:
    log = io.StringIO()
    return LiveDisplay(Console(file=log, force_terminal=False, width=200)), log


def test_off_a_terminal_a_long_call_prints_its_progress_at_most_every_ten_seconds():
    display, log = _display()
    for tokens, seconds in [(1, 1.0), (30, 5.0), (80, 11.0), (100, 15.0), (312, 40.0), (313, 41.0)]:
        display.on_progress(CallProgress("author", "author", tokens, seconds, first_token_s=0.0))
    lines = log.getvalue().splitlines()
    assert [line.split("] ", 1)[1] for line in lines] == ["author: 80 tokens in 11 s, 7.3 tok/s",
                                                          "author: 312 tokens in 40 s, 7.8 tok/s"]


def test_the_display_shows_the_call_under_way_then_the_last_call_s_rate(tmp_path):
    display, _ = _display()
    display.on_progress(CallProgress("author", "author", 12, 3.0, first_token_s=1.0))
    assert "author: 12 tokens in 3 s, 6.0 tok/s" in _rendered(display)
    with ChatCompletionsServer(["one two three"], chunk_delay_s=0.02) as server:
        client = _client(server, tmp_path)
        client.transcript.subscribe(display.on_event)
        client.ask("author", QUESTION, node="author", step=1)
    rate = _calls(client)[0]["output_tokens_per_s"]
    assert display.call is None and f"last: author, {rate:.1f} tok/s" in _rendered(display)


def _rendered(display: LiveDisplay) -> str:
    console = Console(file=io.StringIO(), width=200)
    console.print(display._table())
    return console.file.getvalue()


def test_a_resumed_run_bounds_its_next_call_by_the_speed_it_recorded(tmp_path):
    with ChatCompletionsServer(["a reply of several words"], chunk_delay_s=0.01) as server:
        client = _client(server, tmp_path, ProviderProfile(timeout=MeasuredTimeout()))
        client.ask("author", QUESTION, node="author", step=1)
    (call,) = _calls(client)
    resumed = ModelClient(ScriptedChatModel(responses=[]), client.transcript, 10**6)
    assert resumed.speed == ServerSpeed(prompt_tokens_per_s=call["input_tokens"] / call["first_token_s"],
                                        output_tokens_per_s=call["output_tokens_per_s"])
