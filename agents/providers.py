"""Model providers behind one factory, chosen by a spec string.

    openai:<name>       any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server,
                        DeepSeek, Qwen) through langchain-openai; base URL from --base-url or
                        OPENAI_BASE_URL
    replay:<run dir>    the replies recorded in a run's transcript, served in order
    scripted:<file>     replies written as test fixtures, served in order
    scripted:<folder>   the same, one file per task: <folder>/<task id>.json (a campaign over several tasks)
    library             no language model at all: the library proposer composes the script from
                        verified library functions (verifiers/library/composer.py); nothing asks it anything

Scripted and replayed models are not language models: they stand in for one in tests and when
re-verifying an archived run, and they say so in their type name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from physvec.agents.provider_profile import ProviderProfile
from physvec.runstore.transcript import EventType, read_events
from physvec.taskfiles.input_files import UnreadableInput, read_json_input


LIBRARY_SPEC = "library"


class ModelSpecError(ValueError):
    """The model spec names no provider we have, or its target is missing."""


class ScriptExhausted(RuntimeError):
    """A scripted or replayed model was asked for more replies than it holds."""


@dataclass(frozen=True)
class ProviderSettings:
    """Settings of the OpenAI-compatible provider; retries are ours, so the client's are off.  ``timeout_s``
    None: a request may take as long as the server needs (a slow local model), with ``profile.wall_budget_s``
    bounding the run instead, or ``profile.timeout`` bounding each call from the server's measured speed.
    Replies are streamed, so the HTTP timeout applies to each read of the stream, not to the whole reply."""

    base_url: str | None = None
    timeout_s: float | None = 120.0
    temperature: float = 0.0
    profile: ProviderProfile = field(default_factory=ProviderProfile)


class ScriptedChatModel(FakeMessagesListChatModel):
    """Serves fixed replies in order and raises when they run out (it never cycles)."""

    source: str = "scripted"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        if self.i >= len(self.responses):
            raise ScriptExhausted(f"{self.source}: all {len(self.responses)} replies were already served")
        reply = self.responses[self.i]
        self.i += 1
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        """Tool schemas change nothing: the reply is already written."""
        return self

    @property
    def _llm_type(self) -> str:
        return f"{self.source}-replies"


def _as_message(entry: Any) -> AIMessage:
    if isinstance(entry, str):
        return AIMessage(content=entry)
    if isinstance(entry, dict) and isinstance(entry.get("content"), str):
        return AIMessage(content=entry["content"], tool_calls=entry.get("tool_calls", []))
    raise ModelSpecError(f"a scripted reply must be a string or {{'content': ...}}, got {entry!r}")


def scripted_replies(path: Path) -> list[AIMessage]:
    """Replies from a fixture file: ``{"replies": [...]}`` or a bare list of strings/objects."""
    try:
        data = read_json_input(path)
    except UnreadableInput as error:
        raise ModelSpecError(f"scripted replies file {error}") from None
    entries = data.get("replies") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ModelSpecError(f"scripted replies file {path} must hold a list of replies")
    return [_as_message(entry) for entry in entries]


def recorded_replies(run_dir: Path) -> list[AIMessage]:
    """The replies a model actually gave in a run (not those served from its own record), in order."""
    transcript = run_dir / "transcript.jsonl"
    if not transcript.is_file():
        raise ModelSpecError(f"{run_dir} holds no transcript.jsonl to replay")
    return [
        AIMessage(content=event.data["reply"], tool_calls=event.data.get("tool_calls", []))
        for event in read_events(transcript)
        if event.type is EventType.MODEL_CALL
    ]


def scripted_replies_for(target: Path, task_id: str | None) -> list[AIMessage]:
    """The fixture replies a ``scripted:`` target holds for a task: the file itself, or a folder's
    ``<task id>.json``.  Without a task (a campaign checking its spec before any task runs) a folder is
    only checked to exist, and serves nothing."""
    if not target.is_dir():
        return scripted_replies(target)
    if task_id is None:
        return []
    path = target / f"{task_id}.json"
    if not path.is_file():
        raise ModelSpecError(f"scripted replies folder {target} holds no {path.name} for task {task_id}")
    return scripted_replies(path)


def normalise_spec(spec: str) -> str:
    """The spec with a file target made absolute, so a run can be resumed from any directory."""
    provider, _, target = spec.partition(":")
    if provider in ("scripted", "replay") and target:
        return f"{provider}:{Path(target).resolve()}"
    return spec


def make_chat_model(spec: str, settings: ProviderSettings = ProviderSettings(), already_served: int = 0,
                    task_id: str | None = None) -> BaseChatModel:
    """The chat model a spec names.

    Args:
        spec: ``openai:<name>``, ``replay:<run dir>``, ``scripted:<file>``, or ``library`` (no language
            model: the library proposer writes the script, and nothing may ask this model anything).
        settings: endpoint settings for ``openai``.
        already_served: replies a sequence provider already gave in this run (a resumed run
            continues where the killed process stopped).
        task_id: the task the model answers for, which picks a ``scripted:<folder>``'s file.

    Raises:
        ModelSpecError: unknown provider or missing target.
    """
    if spec == LIBRARY_SPEC:
        return ScriptedChatModel(responses=[], source=LIBRARY_SPEC)  # no language model: never asked
    provider, _, target = spec.partition(":")
    if not target:
        raise ModelSpecError(f"model spec {spec!r} must look like openai:<name>, replay:<run dir>, scripted:<file> "
                             f"or {LIBRARY_SPEC}")
    if provider == "openai":
        return _openai_model(target, settings)
    if provider == "scripted":
        replies = scripted_replies_for(Path(target), task_id)
    elif provider == "replay":
        replies = recorded_replies(Path(target))
    else:
        raise ModelSpecError(f"unknown model provider {provider!r} in {spec!r}: use openai, replay or scripted")
    return ScriptedChatModel(responses=replies, i=already_served, source=provider)


def _openai_model(name: str, settings: ProviderSettings) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=name,
        base_url=settings.base_url or os.environ.get("OPENAI_BASE_URL"),
        api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",  # local servers accept any key
        timeout=settings.timeout_s,
        max_retries=0,
        temperature=settings.temperature,
        stream_usage=True,  # the server's token counts arrive in a last chunk, as without streaming
    )
