"""Parsing model replies; a reply we cannot use is an InvalidModelReply, never a crash."""

from __future__ import annotations

import re

_FENCED = re.compile(r"```(?:python|py|julia|jl)?[ \t]*\n(.*?)```", re.DOTALL)


class InvalidModelReply(ValueError):
    """The reply does not have the form its role requires."""


def extract_script(reply: str) -> str:
    """The script (Python, or Julia for ITensors) in a reply's first fenced code block."""
    match = _FENCED.search(reply)
    if match is None or not match.group(1).strip():
        raise InvalidModelReply("the reply holds no fenced code block with a script")
    return match.group(1).strip() + "\n"
