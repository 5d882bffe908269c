"""The transcript as a conversation a person can read: who said what to whom, in order.

Model calls become the messages of their prompt and the model's reply; certificates, sandbox runs, script
versions, retrievals and faults become short entries with their details.  Nothing is summarised away: every
field of every event is kept, so the conversation is as complete as transcript.jsonl.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from physvec.runstore.evidence import cell
from physvec.runstore.transcript import Event, EventType

HIDDEN = (EventType.NODE_STARTED, EventType.NODE_FINISHED)
"""Node start and finish events are the timeline's rows, not conversation."""
NOTABLE = (EventType.INFRASTRUCTURE_FAULT, EventType.INVALID_MODEL_REPLY, EventType.BUDGET_EXHAUSTED,
           EventType.RUN_INTERRUPTED, EventType.TRANSCRIPT_QUARANTINE)
"""Events a reader should not miss: shown as warnings."""


@dataclass(frozen=True)
class Message:
    role: str
    text: str


@dataclass(frozen=True)
class Entry:
    """One event as the conversation shows it."""

    seq: int
    seconds: float
    kind: str
    node: str
    title: str
    messages: list[Message] = field(default_factory=list)
    fields: list[tuple[str, str, bool]] = field(default_factory=list)
    """(name, text, long) of each remaining data field; long ones are shown preformatted."""
    link: str = ""


def _field(name: str, value: Any) -> tuple[str, str, bool]:
    text = value if isinstance(value, str) else (cell(value) if not isinstance(value, (dict, list))
                                                else json.dumps(value, indent=1, default=str))
    return name, text, "\n" in text or len(text) > 160


def _prompt_messages(prompt: Any) -> list[Message]:
    if isinstance(prompt, list):
        return [Message(str(item.get("type", "message")), str(item.get("content", ""))) if isinstance(item, dict)
                else Message("message", str(item)) for item in prompt]
    return [Message("prompt", str(prompt))]


def _title(event: Event) -> str:
    data = event.data
    if event.type is EventType.MODEL_CALL:
        tokens = (data.get("input_tokens") or 0) + (data.get("output_tokens") or 0)
        return f"model call ({data.get('role', event.node)}): {tokens} tokens"
    if event.type is EventType.CERTIFICATE:
        return f"certificate {data.get('verifier')} v{data.get('version')}: {data.get('verdict')}"
    if event.type is EventType.SANDBOX_RUN:
        return f"sandbox run: {data.get('summary', '')}"
    if event.type is EventType.SCRIPT_WRITTEN:
        return f"script version {data.get('version')} written ({data.get('lines')} lines)"
    if event.type is EventType.RUN_FINISHED:
        return f"run finished: {data.get('status')}, verdict {data.get('verdict')}"
    return event.type.value.replace("_", " ")


def _link(event: Event) -> str:
    """The page anchor an entry points at (a certificate or a script version), or ''."""
    if event.type is EventType.CERTIFICATE and "path" in event.data:
        return "certificate-" + str(event.data["path"]).rsplit("/", 1)[-1].removesuffix(".json")
    if event.type is EventType.SCRIPT_WRITTEN:
        return f"script-v{int(event.data.get('version', 0)):02d}"
    return ""


def conversation(events: list[Event]) -> list[Entry]:
    """Every event but node starts and finishes, in order, as a conversation entry."""
    start = events[0].time if events else 0.0
    entries = []
    for event in events:
        if event.type in HIDDEN:
            continue
        data = dict(event.data)
        messages: list[Message] = []
        if event.type is EventType.MODEL_CALL:
            messages = _prompt_messages(data.pop("prompt", ""))
            messages.append(Message("reply", str(data.pop("reply", ""))))
        kind = "warning" if event.type in NOTABLE else event.type.value
        entries.append(Entry(seq=event.seq, seconds=round(event.time - start, 2), kind=kind, node=event.node or "",
                             title=_title(event), messages=messages,
                             fields=[_field(name, value) for name, value in data.items()], link=_link(event)))
    return entries
