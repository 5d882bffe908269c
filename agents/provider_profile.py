"""What a run asks of its model provider besides the messages: how long each role's reply may be, how much
the server can hold, and how long all model calls together may take.

Why: a local 1.5B model on 2 cores generates a few tokens per second.  Without ``max_tokens`` one rambling
reply takes many minutes; a prompt longer than the server's context is cut by the server without a word;
and a per-call timeout that fits a remote API kills a local call that would have finished.  So a reply
length is sent per role, the prompt is checked against the server's context before it is sent, and a slow
server may run without a per-call timeout under a total wall budget instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

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
class ProviderProfile:
    """Per-role reply lengths, the server's context length (None: unknown, not checked) and a wall budget for
    all of a run's model calls together (None: no budget)."""

    reply_tokens: Mapping[str, int] = field(default_factory=lambda: ROLE_REPLY_TOKENS)
    script_reply_tokens: int = SCRIPT_REPLY_TOKENS
    context_tokens: int | None = None
    wall_budget_s: float | None = None

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
