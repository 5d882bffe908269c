"""What a run asks of its model provider besides the messages: how long each role's reply may be, how much
the server can hold, how long one call and all model calls together may take.

Why: a local 1.5B model on 2 cores generates a few tokens per second.  Without ``max_tokens`` one rambling
reply takes many minutes; a prompt longer than the server's context is cut by the server without a word;
and a per-call timeout that fits a remote API kills a local call that would have finished.  So a reply
length is sent per role, the prompt is checked against the server's context before it is sent, and a slow
server may run without a per-call timeout under a total wall budget instead, or with a timeout measured
from its own speed (``--timeout auto``, MeasuredTimeout).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from physvec.agents.model_client import CallProgress

SCRIPT_REPLY_TOKENS = 4096
"""a whole script (author, repairs): the README example's reference script is about 1,500 tokens"""

ROLE_REPLY_TOKENS: Mapping[str, int] = MappingProxyType({
    "author_plan": 1024,
    "rubric_judge": 512,
    "matpcr_extractor": 1024,
})
"""replies with a shape are short; roles not named here write scripts"""

MIN_REPLY_TOKENS = 256
"""fewer than this left for the reply after the prompt: the call would return a cut reply, so it is not made"""

PROMPT_MARGIN = 1.15
"""the prompt's token count is estimated from its characters (no tokenizer of the server's here); code
tokenizes denser than prose, so the estimate is inflated before it is compared with the context"""


class PromptTooLong(RuntimeError):
    """The prompt leaves no room for a reply in the server's context."""


@dataclass(frozen=True)
class CallTimeout:
    """How long one streamed call may take: ``silence_s`` waiting for the first token or between two chunks
    (sent as the request's HTTP timeout, which httpx applies to each read of the stream) and ``total_s`` for
    the whole reply (checked at each chunk).

    Why both: a hung server sends nothing, and only a read timeout notices it (it is noticed ``silence_s``
    after its last chunk); a server that still trickles tokens is alive, and only the total bound stops a
    reply that runs far past what its speed predicts.  A fixed ``--timeout S`` is both, so S stays "the
    seconds one request may take" as it was before replies were streamed."""

    silence_s: float
    total_s: float


@dataclass
class ServerSpeed:
    """The slowest speeds measured so far in this run (None: not yet measured): prompt tokens read per second
    (the prompt over the time to the first token, which includes the network) and reply tokens written per
    second (after the first token).

    The slowest, not the mean: a timeout is a fault detector, and one set too long only notices a hung
    server later, while one set too short kills a healthy call and pays for it again."""

    prompt_tokens_per_s: float | None = None
    output_tokens_per_s: float | None = None

    def measure(self, prompt_tokens: int, first_token_s: float | None, output_tokens_per_s: float | None) -> None:
        if first_token_s is not None and first_token_s > 0:
            self.prompt_tokens_per_s = _slowest(self.prompt_tokens_per_s, prompt_tokens / first_token_s)
        if output_tokens_per_s is not None:
            self.output_tokens_per_s = _slowest(self.output_tokens_per_s, output_tokens_per_s)


def _slowest(known: float | None, measured: float) -> float:
    return measured if known is None else min(known, measured)


@dataclass(frozen=True)
class MeasuredTimeout:
    """``--timeout auto``: each call's timeout from the server's measured speed,

        total   = safety * (prompt_tokens / prompt_speed + max_tokens / output_speed) + margin
        silence = safety * (prompt_tokens / prompt_speed + 1 / output_speed) + margin

    (silence: the longest quiet a healthy server has, reading the prompt before its first token).  Before
    the first call is measured the speeds are taken as the slowest server we support, a 1.5B model on 2 cores
    (``first_*``): a generous first bound, which the first reply then replaces."""

    safety: float = 3.0
    margin_s: float = 30.0
    first_prompt_tokens_per_s: float = 20.0
    first_output_tokens_per_s: float = 2.0

    def bound(self, prompt_tokens: int, max_tokens: int, speed: ServerSpeed) -> CallTimeout:
        prompt_s = prompt_tokens / (speed.prompt_tokens_per_s or self.first_prompt_tokens_per_s)
        token_s = 1 / (speed.output_tokens_per_s or self.first_output_tokens_per_s)
        return CallTimeout(silence_s=self.safety * (prompt_s + token_s) + self.margin_s,
                           total_s=self.safety * (prompt_s + max_tokens * token_s) + self.margin_s)


ProgressObserver = Callable[["CallProgress"], None]
"""told of a model call's progress at each streamed chunk (the live display)"""


@dataclass(frozen=True)
class ProviderProfile:
    """Per-role reply lengths, the server's context length (None: unknown, not checked), the per-call timeout
    (seconds, MeasuredTimeout, or None: the chat model's own, if any), a wall budget for all of a run's model
    calls together (None: no budget), and who watches calls as they stream (``progress``: nothing of it is
    sent; it rides here because the profile is what reaches the run's ModelClient)."""

    reply_tokens: Mapping[str, int] = field(default_factory=lambda: ROLE_REPLY_TOKENS)
    script_reply_tokens: int = SCRIPT_REPLY_TOKENS
    context_tokens: int | None = None
    wall_budget_s: float | None = None
    timeout: float | MeasuredTimeout | None = None
    progress: ProgressObserver | None = None

    def call_timeout(self, prompt_tokens: int, max_tokens: int, speed: ServerSpeed) -> CallTimeout | None:
        """The bound of one call (None: unbounded, or left to the chat model's own timeout)."""
        if isinstance(self.timeout, MeasuredTimeout):
            return self.timeout.bound(prompt_tokens, max_tokens, speed)
        return None if self.timeout is None else CallTimeout(silence_s=self.timeout, total_s=self.timeout)

    def max_tokens(self, role: str, prompt_tokens: int) -> int:
        """The ``max_tokens`` to send for ``role``: its reply length, shortened to what the context leaves.

        Raises:
            PromptTooLong: fewer than MIN_REPLY_TOKENS are left.
        """
        wanted = self.reply_tokens.get(role, self.script_reply_tokens)
        if self.context_tokens is None:
            return wanted
        estimate = math.ceil(prompt_tokens * PROMPT_MARGIN)
        left = self.context_tokens - estimate
        if left < min(wanted, MIN_REPLY_TOKENS):
            raise PromptTooLong(f"the {role} prompt (about {estimate} tokens) leaves {max(left, 0)} of the server's "
                                f"{self.context_tokens}-token context for the reply; a server with a longer "
                                f"context is needed (llama.cpp: --ctx-size; physvec local-model serve --context)")
        return min(wanted, left)
