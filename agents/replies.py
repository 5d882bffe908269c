"""Parsing model replies; a reply we cannot use is an InvalidModelReply, never a crash."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_OPENER = re.compile(r"^\s*```[ \t]*([A-Za-z]*)[ \t]*$")
_CLOSER = re.compile(r"^\s*```[ \t]*$")
_SCRIPT_TAGS = ("", "python", "py", "julia", "jl")
_JULIA_TAGS = ("julia", "jl")


class InvalidModelReply(ValueError):
    """The reply does not have the form its role requires."""


@dataclass(frozen=True)
class _Block:
    tag: str
    text: str

    def parses(self) -> bool:
        """Whether the block is a whole program: Python that parses (Julia is left to the contract analysis)."""
        if self.tag in _JULIA_TAGS:
            return True
        try:
            ast.parse(self.text)
        except SyntaxError:
            return False
        return True


def _fenced_blocks(reply: str) -> list[_Block]:
    """Every script block: from each fence line to the next bare closing fence after it.

    An opener inside another block starts a candidate of its own, since small models nest fences (a
    docstring that quotes the prompt's example, then the script in a fence of its own before one closing
    fence); the candidates overlap, and the caller picks the one that is a program.
    """
    lines = reply.splitlines()
    blocks = []
    for start, line in enumerate(lines):
        opener = _OPENER.match(line)
        if opener is None or opener.group(1).lower() not in _SCRIPT_TAGS:
            continue
        end = next((j for j in range(start + 1, len(lines)) if _CLOSER.match(lines[j])), None)
        if end is not None and "\n".join(lines[start + 1:end]).strip():
            blocks.append(_Block(opener.group(1).lower(), "\n".join(lines[start + 1:end]).strip() + "\n"))
    return blocks


def extract_script(reply: str) -> str:
    """The script (Python, or Julia for ITensors) in a reply: the first fenced block that is a whole program,
    else the first fenced block (whose syntax error the contract analysis then names)."""
    blocks = _fenced_blocks(reply)
    if not blocks:
        raise InvalidModelReply("the reply holds no fenced code block with a script")
    return next((block.text for block in blocks if block.parses()), blocks[0].text)
