"""Before a run asks a model, one request to its endpoint says in words what is wrong: no key, nothing
listening, a rejected key, a model the server does not serve (real HTTP servers on loopback)."""

from __future__ import annotations

import socket
import time

import pytest

from physvec.agents.model_client import RetryPolicy
from physvec.agents.preflight import ProviderUnreachable, preflight, served_context_tokens
from physvec.agents.provider_profile import ProviderProfile
from physvec.agents.providers import ProviderSettings
from physvec.cli.main import _check_provider, reproduce_main
from tests.support.chat_completions_server import ChatCompletionsServer


@pytest.fixture(autouse=True)
def no_provider_environment(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PHYSVEC_MODEL"):
        monkeypatch.delenv(name, raising=False)


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_no_key_for_the_default_endpoint_says_how_to_give_one():
    with pytest.raises(ProviderUnreachable, match="no API key: set OPENAI_API_KEY, or pass --base-url"):
        preflight("openai:gpt-4o", ProviderSettings())


def test_nothing_listening_names_the_url():
    url = closed_port_url()
    with pytest.raises(ProviderUnreachable, match=f"endpoint refused at {url}"):
        preflight("openai:m", ProviderSettings(base_url=url))


def test_a_rejected_key_is_a_401_with_the_server_s_words(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with ChatCompletionsServer([], models=["m"], api_key="sk-right") as server:
        with pytest.raises(ProviderUnreachable, match="401: the key was rejected .*Incorrect API key"):
            preflight("openai:m", ProviderSettings(base_url=server.base_url))


def test_a_model_the_server_does_not_serve_is_named_with_what_it_serves():
    with ChatCompletionsServer([], models=["qwen2.5-7b", "llama-3"]) as server:
        with pytest.raises(ProviderUnreachable, match="model gpt-4o not served at .*it serves: llama-3, qwen2.5-7b"):
            preflight("openai:gpt-4o", ProviderSettings(base_url=server.base_url))
        assert "serves qwen2.5-7b" in preflight("openai:qwen2.5-7b", ProviderSettings(base_url=server.base_url))


def test_specs_that_ask_no_server_pass_without_a_request():
    assert preflight("scripted:replies.json", ProviderSettings()) is None
    assert preflight("library", ProviderSettings()) is None


def test_reproduce_against_a_refused_endpoint_exits_2_at_once_with_the_cause_and_makes_no_run(tiny_task, tmp_path,
                                                                                                  capsys):
    url = closed_port_url()
    started = time.monotonic()
    code = reproduce_main([str(tiny_task), "--model", "openai:m", "--base-url", url, "--runs-dir", str(tmp_path / "runs")])
    assert code == 2 and time.monotonic() - started < 10
    assert f"endpoint refused at {url}" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def _exit_code(argv: list[str]) -> int:
    """reproduce's exit code, also where argparse refuses an argument (it exits 2 itself)."""
    try:
        return reproduce_main(argv)
    except SystemExit as exit_:
        return int(exit_.code)


def test_timeout_and_retries_are_settable_and_checked(tiny_task, tmp_path, capsys):
    runs = str(tmp_path / "runs")
    for bad in (["--timeout", "inf"], ["--timeout", "0"], ["--timeout", "soon"], ["--wall-budget", "none"],
                ["--wall-budget", "-1"]):
        assert _exit_code([str(tiny_task), "--model", "openai:m", *bad, "--runs-dir", runs]) == 2
        assert "positive number of seconds" in capsys.readouterr().err or bad[1] in ("soon", "none")
    assert _exit_code([str(tiny_task), "--model", "openai:m", "--retries", "0", "--runs-dir", runs]) == 2
    assert "--retries must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_timeout_none_waits_on_the_server_under_a_wall_budget(tiny_task, tmp_path, capsys):
    """A slow local model gets no per-request timeout; the wall budget bounds the run and the line before
    it says so."""
    url = closed_port_url()
    assert _exit_code([str(tiny_task), "--model", "openai:m", "--base-url", url, "--timeout", "none",
                       "--wall-budget", "600", "--runs-dir", str(tmp_path / "runs")]) == 2
    assert f"endpoint refused at {url}" in capsys.readouterr().err
    with ChatCompletionsServer([], models=["m"]) as server:
        settings = _check_provider("openai:m", ProviderSettings(base_url=server.base_url, timeout_s=None,
                                                               profile=ProviderProfile(wall_budget_s=600.0)),
                                   RetryPolicy())
    assert settings.timeout_s is None and settings.profile.wall_budget_s == 600.0
    assert "at most 600 s of model calls in all" in capsys.readouterr().err


def test_doctor_reports_isolation_backends_and_the_model_s_cause(capsys):
    from physvec.cli.main import physvec_main

    url = closed_port_url()
    assert physvec_main(["doctor", "--model", "openai:m", "--base-url", url]) == 2
    out = capsys.readouterr().out
    assert "isolation" in out and "tenpy" in out and f"endpoint refused at {url}" in out
    with ChatCompletionsServer([], models=["m"]) as server:
        assert physvec_main(["doctor", "--model", "openai:m", "--base-url", server.base_url]) in (0, 1)
        assert "serves m" in capsys.readouterr().out


def test_the_server_s_context_length_is_read_from_llama_cpp_s_props():
    with ChatCompletionsServer([], models=["m"], context_tokens=2048) as server:
        settings = ProviderSettings(base_url=server.base_url)
        assert served_context_tokens("openai:m", settings) == 2048
        assert _check_provider("openai:m", settings, RetryPolicy()).profile.context_tokens == 2048
    with ChatCompletionsServer([], models=["m"]) as server:  # a server that does not say: nothing is checked
        assert served_context_tokens("openai:m", ProviderSettings(base_url=server.base_url)) is None
    assert served_context_tokens("scripted:replies.json", ProviderSettings()) is None


def test_a_models_entry_whose_context_field_is_a_boolean_states_no_context():
    """JSON true is an int to Python; a flag named like a context length is not one."""
    from physvec.agents.preflight import _listed_context

    assert _listed_context({"data": [{"id": "m", "max_model_len": True, "context_length": 4096}]}, "m") == 4096
    assert _listed_context({"data": [{"id": "m", "max_model_len": True}]}, "m") is None
