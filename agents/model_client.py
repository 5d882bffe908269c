"""Every model call of a run goes through here: recorded, retried, budgeted, and never paid twice.

- Each call is a transcript event with its request hash, prompts, reply, tokens and latency.
- Provider faults (429, 5xx, timeouts, connection errors, unreadable bodies) are retried with
  exponential backoff and recorded as infrastructure faults, never as model failures.
- A per-run token budget stops the run cleanly (BudgetExhausted) before a call that would exceed it.
- A resumed run serves a call that had already completed from the record: the key is the graph
  step, the request hash and the call's ordinal among identical requests of that step.
- A call may offer tools (OpenAI function schemas); the reply's tool calls are recorded with its text,
  so a resumed or replayed run sees the same calls.
- A reply identical to an earlier reply to the same request is asked once more with another seed and
  temperature (REPEAT_SEED, REPEAT_TEMPERATURE); a second repeat raises ModelRepeats, which ends the loop
  that asked: paying again for the same answer buys nothing.
- A call whose reply has a shape names its pydantic model: the provider is asked for structured output
  (``response_format`` json_schema).  A server that refuses it is asked once more without, and not asked
  for it again in the run; the caller's fenced-JSON parsing is the fallback.
- Each call sends its role's ``max_tokens`` (ProviderProfile), shortened to what the server's context leaves
  after the prompt; a prompt that leaves no room, or a spent wall budget for model calls, ends the run with
  that reason instead of a cut reply or another wait.
- Replies are streamed (``model.stream``, chunks added up as langchain's AIMessageChunk does, tool-call
  pieces included), so a slow server shows life: the profile's ``progress`` observer is told the tokens so
  far at each chunk, and the call's record adds its time to the first token and its tokens per second.  A
  chat model that cannot stream answers in one chunk.
- Each call is bounded by the profile's timeout (CallTimeout: silence and total), fixed or measured from the
  server's speed in this run (``--timeout auto``); a call past either bound is retried as a provider fault,
  and the bound is recorded with the call.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import httpx
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.utils import count_tokens_approximately, message_chunk_to_message
from pydantic import BaseModel

from physvec.agents.provider_profile import CallTimeout, PromptTooLong, ProviderProfile, ServerSpeed
from physvec.runstore.transcript import EventType, Transcript


class BudgetExhausted(RuntimeError):
    """The run's token budget or model wall budget is spent; the run stops with status budget_exhausted and
    the message names which."""


class ModelUnavailable(RuntimeError):
    """The provider kept failing (or failed in a way retrying cannot fix)."""


class ModelRepeats(RuntimeError):
    """The model gave the same answer again, even with another seed and temperature."""


REPEAT_SEED = 1
REPEAT_TEMPERATURE = 0.8
"""what a repeated request is asked again with: sampling that differs from the run's default (0, no seed)"""


_RETRYABLE = (
    openai.RateLimitError,
    openai.InternalServerError,
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.APIResponseValidationError,
    json.JSONDecodeError,
    httpx.TransportError,
    TimeoutError,
    ConnectionError,
)


def is_infrastructure_fault(error: BaseException) -> bool:
    """A fault of the provider or network that a retry may cure, not something the model said."""
    if isinstance(error, openai.APIStatusError):
        return error.status_code in (408, 409, 429) or error.status_code >= 500
    return isinstance(error, _RETRYABLE)


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: delay_k = min(base * 2**k, cap)."""

    attempts: int = 5
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0

    def delay(self, attempt: int) -> float:
        return min(self.base_delay_s * 2**attempt, self.max_delay_s)


ToolSchema = dict[str, Any]
"""An OpenAI function-tool schema: {"type": "function", "function": {"name", "description", "parameters"}}."""


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The OpenAI/llama.cpp ``response_format`` that constrains a reply to ``schema``.

    ``strict`` is off because a plan's free ``value`` and defaulted keys are outside OpenAI's strict subset;
    llama.cpp turns the schema into a grammar either way, and the reply is validated by the caller.
    """
    return {"type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": False}}


def _message_record(message: BaseMessage) -> dict[str, Any]:
    """A message as the transcript and the request hash see it (tool calls only where there are any)."""
    record: dict[str, Any] = {"type": message.type, "content": message.content}
    if getattr(message, "tool_calls", None):
        record["tool_calls"] = [{"name": c["name"], "args": c["args"], "id": c.get("id")} for c in message.tool_calls]
    if getattr(message, "tool_call_id", None):
        record["tool_call_id"] = message.tool_call_id
    return record


def request_hash(role: str, messages: Sequence[BaseMessage], temperature: float | None = None,
                 tools: Sequence[ToolSchema] = (), schema: type[BaseModel] | None = None,
                 seed: int | None = None) -> str:
    """A stable hash of what was asked: the role, each message (with its tool calls), any temperature,
    tools, reply schema and seed."""
    def hashed(message: BaseMessage) -> list[Any]:
        extras = {k: v for k, v in _message_record(message).items() if k not in ("type", "content")}
        return [message.type, message.content, extras] if extras else [message.type, message.content]
    asked: list[Any] = [role, [hashed(m) for m in messages], temperature]
    if tools:
        asked.append(list(tools))
    if schema is not None:
        asked.append(schema.__name__)
    if seed is not None:
        asked.append(["seed", seed])
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


def _text(reply: BaseMessage) -> str:
    return reply.content if isinstance(reply.content, str) else json.dumps(reply.content)


def tokens_per_s(tokens: int, first_token_s: float | None, seconds: float) -> float | None:
    """Reply tokens per second after the first token; None until two chunks have come (a reply in one
    chunk, as from a model that cannot stream, has no rate)."""
    if first_token_s is None or tokens < 2 or seconds <= first_token_s:
        return None
    return tokens / (seconds - first_token_s)


@dataclass(frozen=True)
class CallProgress:
    """A model call while it streams: its role and node, the chunks with reply text or tool-call pieces so
    far (``tokens``: one token each on llama.cpp and OpenAI), the seconds since the attempt started and when
    the first of them came."""

    role: str
    node: str
    tokens: int
    seconds: float
    first_token_s: float | None

    @property
    def tokens_per_s(self) -> float | None:
        return tokens_per_s(self.tokens, self.first_token_s, self.seconds)


@dataclass(frozen=True)
class _Streamed:
    """One attempt's whole reply and how it came: the chunks that carried output, the seconds to the first
    of them and to the end."""

    reply: AIMessage
    chunks: int
    first_token_s: float | None
    seconds: float


def _carries_output(chunk: BaseMessage) -> bool:
    return bool(chunk.content) or bool(getattr(chunk, "tool_call_chunks", None))


def _whole_message(reply: BaseMessage) -> AIMessage:
    """The added-up chunks as the one message ``invoke`` would have returned.

    Raises:
        pydantic.ValidationError: a tool call's arguments are JSON but no object (a string holding one,
            typically).  ``invoke`` refuses such a reply this way, and phact_proposer.unreadable_tool_call
            tells the model so; a stream sets the call aside among ``invalid_tool_calls`` instead, so the
            refusal is made here the same way.  Arguments that are no JSON at all are set aside by both.
    """
    message = message_chunk_to_message(reply) if isinstance(reply, AIMessageChunk) else reply
    if not isinstance(message, AIMessage):
        raise TypeError(f"the chat model streamed {type(message).__name__}, not an AI message")
    for call in message.invalid_tool_calls:
        try:
            args = json.loads(call["args"] or "")
        except json.JSONDecodeError:
            continue
        AIMessage(content=message.content,  # raises for arguments that are no object, as invoke does
                  tool_calls=[{"name": call["name"] or "", "args": args, "id": call["id"]}])
    return message


class ModelClient:
    """Asks the run's chat model on behalf of a role and records everything about the call."""

    def __init__(self, model: BaseChatModel, transcript: Transcript, token_budget: int,
                 retry: RetryPolicy = RetryPolicy(), sleep: Callable[[float], None] = time.sleep,
                 notice_repeats: bool = False, profile: ProviderProfile = ProviderProfile()) -> None:
        """``notice_repeats``: retry a repeated reply with another seed and raise ModelRepeats on a second
        repeat (the reproduce pipeline); off for campaigns whose measure is a policy at a fixed number of
        attempts (DualityCert, PHACT, MatPCR), where a repeat is part of what is measured."""
        self.model = model
        self.profile = profile
        self.notice_repeats = notice_repeats
        self.transcript = transcript
        self.token_budget = token_budget
        self.retry = retry
        self._sleep = sleep
        self._recorded: dict[tuple[int | None, str, int], AIMessage] = {}
        self._asked: Counter[tuple[int | None, str]] = Counter()
        self._replies: dict[str, list[str]] = {}
        """every reply text served to each request hash by this client (fresh or from the record), to notice
        a repeat; a resumed run fills it again as its calls are served"""
        self.tokens_used = 0
        self.model_seconds = 0.0
        """wall time of this run's model calls, recorded ones included (what ``wall_budget_s`` limits)"""
        self.structured_output_refused = False
        """set when the provider rejected ``response_format``; later calls do not send it"""
        self.speed = ServerSpeed()
        """the server's speed measured from this run's calls, recorded ones included (what ``--timeout auto``
        bounds calls with)"""
        self._load_record()

    def _load_record(self) -> None:
        seen: Counter[tuple[int | None, str]] = Counter()
        for event in self.transcript.events():
            if event.type is EventType.MODEL_CALL:
                key = (event.step, event.data["request_hash"])
                self._recorded[(*key, seen[key])] = AIMessage(content=event.data["reply"],
                                                              tool_calls=event.data.get("tool_calls", []))
                seen[key] += 1
                self.tokens_used += event.data["input_tokens"] + event.data["output_tokens"]
                self.model_seconds += event.data.get("latency_s", 0.0)
                self.speed.measure(event.data["input_tokens"], event.data.get("first_token_s"),
                                   event.data.get("output_tokens_per_s"))

    def ask(self, role: str, messages: Sequence[BaseMessage], node: str, step: int,
            temperature: float | None = None, schema: type[BaseModel] | None = None,
            seed: int | None = None) -> str:
        """The model's reply text to ``messages`` (at ``temperature`` when given, e.g. for votes), constrained
        to ``schema`` by the provider's structured output where it has one, sampled with ``seed`` when given.

        Raises:
            BudgetExhausted: the token budget is spent.
            ModelUnavailable: the provider failed on every attempt or refused the request.
        """
        return _text(self.ask_message(role, messages, node, step, temperature, schema=schema, seed=seed))

    def ask_message(self, role: str, messages: Sequence[BaseMessage], node: str, step: int,
                    temperature: float | None = None, tools: Sequence[ToolSchema] = (),
                    schema: type[BaseModel] | None = None, seed: int | None = None) -> AIMessage:
        """The model's whole reply, with any tool calls it made to the offered ``tools``.

        Raises:
            BudgetExhausted: the token budget is spent.
            ModelUnavailable: the provider failed on every attempt or refused the request.
            ModelRepeats: the reply repeats an earlier one to this request, also when asked again with
                another seed and temperature.
        """
        reply = self._ask_once(role, messages, node, step, temperature, tools, schema, seed)
        earlier = self._replies.setdefault(request_hash(role, messages, temperature, tools, schema, seed), [])
        repeated = _text(reply) in earlier
        earlier.append(_text(reply))
        if not repeated or seed is not None or not self.notice_repeats:
            return reply
        self.transcript.append(EventType.REPEATED_REPLY, node=node, step=step, role=role,
                               retry={"seed": REPEAT_SEED, "temperature": REPEAT_TEMPERATURE})
        again = self._ask_once(role, messages, node, step, REPEAT_TEMPERATURE, tools, schema, REPEAT_SEED)
        if _text(again) in earlier:
            raise ModelRepeats(f"the model repeats itself: {role} gave the same reply to the same request, "
                               f"also with seed {REPEAT_SEED} and temperature {REPEAT_TEMPERATURE}")
        return again

    def _ask_once(self, role: str, messages: Sequence[BaseMessage], node: str, step: int, temperature: float | None,
                  tools: Sequence[ToolSchema], schema: type[BaseModel] | None, seed: int | None) -> AIMessage:
        """One recorded (or served-from-record) call."""
        digest = request_hash(role, messages, temperature, tools, schema, seed)
        ordinal = self._asked[(step, digest)]
        self._asked[(step, digest)] += 1
        recorded = self._recorded.get((step, digest, ordinal))
        if recorded is not None:
            self.transcript.append(EventType.MODEL_REPLY_REUSED, node=node, step=step, role=role,
                                   request_hash=digest, ordinal=ordinal)
            return recorded
        if self.tokens_used >= self.token_budget:
            self.transcript.append(EventType.BUDGET_EXHAUSTED, node=node, step=step,
                                   tokens_used=self.tokens_used, token_budget=self.token_budget)
            raise BudgetExhausted(f"token budget spent ({self.tokens_used} of {self.token_budget} tokens used)")
        wall_budget = self.profile.wall_budget_s
        if wall_budget is not None and self.model_seconds >= wall_budget:
            self.transcript.append(EventType.BUDGET_EXHAUSTED, node=node, step=step,
                                   model_seconds=round(self.model_seconds, 1), wall_budget_s=wall_budget)
            raise BudgetExhausted(f"model wall budget spent ({self.model_seconds:.0f} s of {wall_budget:g} s "
                                  f"in model calls)")
        prompt_tokens = count_tokens_approximately(list(messages))
        try:
            max_tokens = self.profile.max_tokens(role, prompt_tokens)
        except PromptTooLong as error:
            self.transcript.append(EventType.PROMPT_TOO_LONG, node=node, step=step, role=role,
                                   problem=str(error), context_tokens=self.profile.context_tokens)
            raise ModelUnavailable(str(error)) from error
        bound = self.profile.call_timeout(prompt_tokens, max_tokens, self.speed)
        started = time.monotonic()
        streamed, attempts, structured = self._invoke_structured(role, messages, node, step, temperature, tools,
                                                                 schema, seed, max_tokens, bound)
        latency = time.monotonic() - started
        self.model_seconds += latency
        reply = streamed.reply
        usage = reply.usage_metadata or {}
        input_tokens = usage.get("input_tokens") or prompt_tokens
        output_tokens = usage.get("output_tokens") or count_tokens_approximately([reply])
        self.tokens_used += input_tokens + output_tokens
        rate = tokens_per_s(output_tokens, streamed.first_token_s, streamed.seconds) if streamed.chunks >= 2 else None
        self.speed.measure(input_tokens, streamed.first_token_s, rate)
        calls = _message_record(reply).get("tool_calls", [])
        self.transcript.append(
            EventType.MODEL_CALL, node=node, step=step, role=role, request_hash=digest,
            prompt=[_message_record(m) for m in messages], reply=_text(reply),
            **({"tools": [t["function"]["name"] for t in tools], "tool_calls": calls} if tools else {}),
            **({"schema": schema.__name__, "structured_output": structured} if schema else {}),
            **({"seed": seed} if seed is not None else {}),
            input_tokens=input_tokens, output_tokens=output_tokens, temperature=temperature, max_tokens=max_tokens,
            tokens_counted="server" if usage else "approximate", latency_s=round(latency, 3), attempts=attempts,
            first_token_s=None if streamed.first_token_s is None else round(streamed.first_token_s, 3),
            output_tokens_per_s=None if rate is None else round(rate, 2),
            timeout_s=None if bound is None else round(bound.total_s, 3),
            silence_timeout_s=None if bound is None else round(bound.silence_s, 3),
        )
        return AIMessage(content=_text(reply), tool_calls=calls)

    def _invoke_structured(self, role: str, messages: Sequence[BaseMessage], node: str, step: int,
                           temperature: float | None, tools: Sequence[ToolSchema], schema: type[BaseModel] | None,
                           seed: int | None, max_tokens: int,
                           bound: CallTimeout | None) -> tuple[_Streamed, int, bool]:
        """The reply, its attempts, and whether structured output was sent: with ``schema``, first with
        ``response_format``; a provider that rejects it (400/422) is asked once more without, and from then
        on never with it in this run."""
        sampling: dict[str, Any] = {"max_tokens": max_tokens, **({} if seed is None else {"seed": seed})}
        if bound is not None:
            sampling["timeout"] = bound.silence_s  # openai's per-request timeout; httpx applies it to each read
        if schema is None or self.structured_output_refused:
            return (*self._invoke_with_retries(role, messages, node, step, temperature, tools, sampling, bound), False)
        try:
            return (*self._invoke_with_retries(role, messages, node, step, temperature, tools,
                                               {**sampling, "response_format": response_format(schema)}, bound), True)
        except ModelUnavailable as error:
            cause = error.__cause__
            if not (isinstance(cause, openai.APIStatusError) and cause.status_code in (400, 422)):
                raise
            self.structured_output_refused = True
            self.transcript.append(EventType.INFRASTRUCTURE_FAULT, node=node, step=step, error=type(cause).__name__,
                                   message=str(cause)[:500], attempt=1,
                                   retry_in_s=0.0, fallback="asking again without response_format")
            return (*self._invoke_with_retries(role, messages, node, step, temperature, tools, sampling, bound), False)

    def _invoke_with_retries(self, role: str, messages: Sequence[BaseMessage], node: str, step: int,
                             temperature: float | None, tools: Sequence[ToolSchema], extra: dict[str, Any],
                             bound: CallTimeout | None) -> tuple[_Streamed, int]:
        model: Any = self.model.bind_tools(list(tools)) if tools else self.model
        model = model if temperature is None else model.bind(temperature=temperature)
        model = model.bind(**extra)
        for attempt in range(self.retry.attempts):
            try:
                return self._stream(model, messages, role, node, bound), attempt + 1
            except Exception as error:  # classified below; nothing is swallowed silently
                if not is_infrastructure_fault(error):
                    raise ModelUnavailable(f"{type(error).__name__}: {error}") from error
                last = attempt + 1 == self.retry.attempts
                delay = None if last else self.retry.delay(attempt)
                self.transcript.append(EventType.INFRASTRUCTURE_FAULT, node=node, step=step,
                                       error=type(error).__name__, message=str(error)[:500],
                                       attempt=attempt + 1, retry_in_s=delay)
                if last:
                    raise ModelUnavailable(f"the model provider failed {self.retry.attempts} times in a row; "
                                           f"the last: {type(error).__name__}: {str(error)[:300]}") from error
                self._sleep(delay)
        raise ModelUnavailable("no attempt was allowed (retry policy with 0 attempts)")

    def _stream(self, model: Any, messages: Sequence[BaseMessage], role: str, node: str,
                bound: CallTimeout | None) -> _Streamed:
        """One attempt: its chunks added up, the observer told at each one that carries output.

        Raises:
            TimeoutError: the reply ran past ``bound.total_s`` (a provider fault: retried).
            ConnectionError: the stream ended before any chunk (a provider fault: retried).
        """
        started = time.monotonic()
        reply: BaseMessage | None = None
        tokens, first_token_s = 0, None
        with closing(model.stream(list(messages))) as chunks:  # a stopped reply closes its connection at once
            for chunk in chunks:
                seconds = time.monotonic() - started
                reply = chunk if reply is None else reply + chunk
                if _carries_output(chunk):
                    tokens += 1
                    first_token_s = seconds if first_token_s is None else first_token_s
                    if self.profile.progress is not None:
                        self.profile.progress(CallProgress(role, node, tokens, seconds, first_token_s))
                if bound is not None and seconds > bound.total_s:
                    raise TimeoutError(f"the reply took longer than {bound.total_s:.1f} s ({tokens} tokens so far)")
        if reply is None:
            raise ConnectionError("the server's stream ended before the reply began")
        return _Streamed(_whole_message(reply), tokens, first_token_s, time.monotonic() - started)
