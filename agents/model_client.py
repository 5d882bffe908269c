"""Every model call of a run goes through here: recorded, retried, budgeted, and never paid twice.

- Each call is a transcript event with its request hash, prompts, reply, tokens and latency.
- Provider faults (429, 5xx, timeouts, connection errors, unreadable bodies) are retried with
  exponential backoff and recorded as infrastructure faults, never as model failures.
- A per-run token budget stops the run cleanly (BudgetExhausted) before a call that would exceed it.
- A resumed run serves a call that had already completed from the record: the key is the graph
  step, the request hash and the call's ordinal among identical requests of that step.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import httpx
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from physvec.runstore.transcript import EventType, Transcript


class BudgetExhausted(RuntimeError):
    """The run's token budget is spent; the run stops with status budget_exhausted."""


class ModelUnavailable(RuntimeError):
    """The provider kept failing (or failed in a way retrying cannot fix)."""


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


def request_hash(role: str, messages: Sequence[BaseMessage], temperature: float | None = None) -> str:
    """A stable hash of what was asked: the role, each message's type and text, and any temperature."""
    payload = json.dumps([role, [(message.type, message.content) for message in messages], temperature],
                         sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


class ModelClient:
    """Asks the run's chat model on behalf of a role and records everything about the call."""

    def __init__(self, model: BaseChatModel, transcript: Transcript, token_budget: int,
                 retry: RetryPolicy = RetryPolicy(), sleep: Callable[[float], None] = time.sleep) -> None:
        self.model = model
        self.transcript = transcript
        self.token_budget = token_budget
        self.retry = retry
        self._sleep = sleep
        self._recorded: dict[tuple[int | None, str, int], str] = {}
        self._asked: Counter[tuple[int | None, str]] = Counter()
        self.tokens_used = 0
        self._load_record()

    def _load_record(self) -> None:
        seen: Counter[tuple[int | None, str]] = Counter()
        for event in self.transcript.events():
            if event.type is EventType.MODEL_CALL:
                key = (event.step, event.data["request_hash"])
                self._recorded[(*key, seen[key])] = event.data["reply"]
                seen[key] += 1
                self.tokens_used += event.data["input_tokens"] + event.data["output_tokens"]

    def ask(self, role: str, messages: Sequence[BaseMessage], node: str, step: int,
            temperature: float | None = None) -> str:
        """The model's reply text to ``messages`` (at ``temperature`` when given, e.g. for votes).

        Raises:
            BudgetExhausted: the token budget is spent.
            ModelUnavailable: the provider failed on every attempt or refused the request.
        """
        digest = request_hash(role, messages, temperature)
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
            raise BudgetExhausted(f"{self.tokens_used} of {self.token_budget} tokens used")
        started = time.monotonic()
        reply, attempts = self._invoke_with_retries(messages, node, step, temperature)
        latency = time.monotonic() - started
        text = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
        usage = reply.usage_metadata or {}
        input_tokens = usage.get("input_tokens") or count_tokens_approximately(list(messages))
        output_tokens = usage.get("output_tokens") or count_tokens_approximately([reply])
        self.tokens_used += input_tokens + output_tokens
        self.transcript.append(
            EventType.MODEL_CALL, node=node, step=step, role=role, request_hash=digest,
            prompt=[{"type": m.type, "content": m.content} for m in messages], reply=text,
            input_tokens=input_tokens, output_tokens=output_tokens, temperature=temperature,
            tokens_counted="server" if usage else "approximate", latency_s=round(latency, 3), attempts=attempts,
        )
        return text

    def _invoke_with_retries(self, messages: Sequence[BaseMessage], node: str, step: int,
                             temperature: float | None) -> tuple[BaseMessage, int]:
        model = self.model if temperature is None else self.model.bind(temperature=temperature)
        for attempt in range(self.retry.attempts):
            try:
                return model.invoke(list(messages)), attempt + 1
            except Exception as error:  # classified below; nothing is swallowed silently
                if not is_infrastructure_fault(error):
                    raise ModelUnavailable(f"{type(error).__name__}: {error}") from error
                delay = self.retry.delay(attempt)
                self.transcript.append(EventType.INFRASTRUCTURE_FAULT, node=node, step=step,
                                       error=type(error).__name__, message=str(error)[:500],
                                       attempt=attempt + 1, retry_in_s=delay)
                if attempt + 1 < self.retry.attempts:
                    self._sleep(delay)
        raise ModelUnavailable(f"the model provider failed {self.retry.attempts} times in a row")
