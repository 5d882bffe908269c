"""Each role's reply length is sent, shortened to what the server's context leaves; a prompt that leaves no
room ends the run with that reason; a spent wall budget stops the next call (real HTTP server on loopback)."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from physvec.agents.model_client import BudgetExhausted, ModelClient, ModelUnavailable
from physvec.agents.provider_profile import ROLE_REPLY_TOKENS, SCRIPT_REPLY_TOKENS, ProviderProfile, PromptTooLong
from physvec.agents.providers import ProviderSettings, make_chat_model
from physvec.runstore.transcript import EventType, Transcript
from tests.support.chat_completions_server import ChatCompletionsServer


def _client(server: ChatCompletionsServer, tmp_path, profile: ProviderProfile) -> ModelClient:
    model = make_chat_model("openai:m", ProviderSettings(base_url=server.base_url))
    return ModelClient(model, Transcript(tmp_path / "transcript.jsonl"), token_budget=10**6, profile=profile)


def test_each_role_sends_its_reply_length(tmp_path):
    with ChatCompletionsServer(["a plan", "a script"], models=["m"]) as server:
        client = _client(server, tmp_path, ProviderProfile())
        client.ask("author_plan", [HumanMessage("plan it")], node="plan", step=1)
        client.ask("author", [HumanMessage("write it")], node="author", step=2)
    assert [entry["max_tokens"] for entry in server.request_log] == [ROLE_REPLY_TOKENS["author_plan"],
                                                                     SCRIPT_REPLY_TOKENS]


def test_a_reply_is_shortened_to_what_the_context_leaves():
    profile = ProviderProfile(context_tokens=4096)
    assert profile.max_tokens("author", prompt_tokens=1000) == 4096 - 1150
    with pytest.raises(PromptTooLong, match="4096-token context"):
        profile.max_tokens("author", prompt_tokens=3500)


def test_a_prompt_too_long_for_the_server_is_never_sent(tmp_path):
    with ChatCompletionsServer(["never served"], models=["m"]) as server:
        client = _client(server, tmp_path, ProviderProfile(context_tokens=512))
        with pytest.raises(ModelUnavailable, match="leaves .* of the server's 512-token context"):
            client.ask("author", [HumanMessage("x " * 2000)], node="author", step=1)
    assert server.request_log == []
    assert [e.type for e in client.transcript.events()] == [EventType.PROMPT_TOO_LONG]


def test_a_spent_wall_budget_stops_the_next_call(tmp_path):
    with ChatCompletionsServer(["first", "never served"], models=["m"]) as server:
        client = _client(server, tmp_path, ProviderProfile(wall_budget_s=1e-9))
        client.ask("author", [HumanMessage("one")], node="author", step=1)
        with pytest.raises(BudgetExhausted, match="model wall budget spent"):
            client.ask("author", [HumanMessage("two")], node="author", step=2)
    assert len(server.request_log) == 1
