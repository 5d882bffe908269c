"""The append-only transcript of a run: one typed JSON event per line, flushed and fsynced.

Each event is written with a single ``write`` of a whole line to a file opened for appending, then
fsynced.  If a crash still leaves an unterminated last line, readers skip it and the next writer cuts
it off before appending, so a transcript always reads back as whole events.  A whole line that is not an
event (a disk error, a person's edit) never stops a run: readers skip it, and the next writer moves it to
``transcript.quarantine.jsonl`` with its byte offset and records that it did.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from physvec.runstore.paths import portable


class EventType(StrEnum):
    RUN_STARTED = "run_started"
    RUN_RESUMED = "run_resumed"
    NODE_STARTED = "node_started"
    NODE_FINISHED = "node_finished"
    PLAN = "plan"
    PLAN_FAILED = "plan_failed"
    RETRIEVAL = "retrieval"
    MODEL_CALL = "model_call"
    MODEL_REPLY_REUSED = "model_reply_reused"
    INFRASTRUCTURE_FAULT = "infrastructure_fault"
    INVALID_MODEL_REPLY = "invalid_model_reply"
    REPEATED_REPLY = "repeated_reply"
    PROMPT_TOO_LONG = "prompt_too_long"
    PROMPT_TRIMMED = "prompt_trimmed"
    """retrieved snippets dropped, or the paper excerpt shortened, so that the server's context holds the reply"""
    LIBRARY_PROPOSAL = "library_proposal"
    AUTHOR_REFINEMENT = "author_refinement"
    SCRIPT_WRITTEN = "script_written"
    REPAIR_PLAN = "repair_plan"
    """what a programming repair asks for: a whole-script rewrite (and the structural problems why) or edits of
    the blamed functions"""
    REPAIR_EDITS = "repair_edits"
    SANDBOX_RUN = "sandbox_run"
    CERTIFICATE = "certificate"
    TOOL_CALL = "tool_call"
    SUPERVISOR_REPROMPT = "supervisor_reprompt"
    BUDGET_EXHAUSTED = "budget_exhausted"
    RUN_INTERRUPTED = "run_interrupted"
    RUN_FINISHED = "run_finished"
    TRANSCRIPT_QUARANTINE = "transcript_quarantine"


class Event(BaseModel):
    """One line of the transcript."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seq: int
    time: float
    type: EventType
    node: str | None = None
    step: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


Listener = Callable[[Event], None]


def read_events(path: Path) -> list[Event]:
    """Every whole event in a transcript file, in order (an unterminated last line is skipped)."""
    return list(_iter_events(path))


def _iter_events(path: Path) -> Iterator[Event]:
    for _, line, event in _whole_lines(path):
        if event is not None:
            yield event


def _whole_lines(path: Path) -> Iterator[tuple[int, bytes, Event | None]]:
    """(byte offset, line, the event or None when the line is not one) of every terminated line."""
    if not path.exists():
        return
    offset = 0
    with path.open("rb") as stream:
        for line in stream:
            if line.endswith(b"\n"):
                yield offset, line, _parsed(line)
            offset += len(line)


def _parsed(line: bytes) -> Event | None:
    try:
        return Event.model_validate_json(line)
    except (ValidationError, ValueError):
        return None


def quarantine_path(path: Path) -> Path:
    return path.with_name(path.stem + ".quarantine.jsonl")


def _quarantine_unreadable(path: Path) -> list[int]:
    """Move every whole line that is not an event to the quarantine file (offset and text), rewrite the
    transcript without them (temporary file, fsync, rename) and return their offsets."""
    lines = list(_whole_lines(path))
    bad = [(offset, line) for offset, line, event in lines if event is None]
    if not bad:
        return []
    with quarantine_path(path).open("a", encoding="utf-8") as quarantine:
        for offset, line in bad:
            quarantine.write(json.dumps({"offset": offset, "text": line.decode("utf-8", "replace")}) + "\n")
        quarantine.flush()
        os.fsync(quarantine.fileno())
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("wb") as clean:
        clean.writelines(line for _, line, event in lines if event is not None)
        clean.flush()
        os.fsync(clean.fileno())
    os.replace(temporary, path)
    return [offset for offset, _ in bad]


def _cut_partial_line(path: Path) -> None:
    """Truncate an unterminated last line left by a crash, so appends start on a fresh line."""
    if not path.exists() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    with path.open("r+b") as stream:
        stream.truncate(data.rfind(b"\n") + 1)
        os.fsync(stream.fileno())


class Transcript:
    """Appends events to a run's transcript.jsonl and tells listeners (the live display) about them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        _cut_partial_line(path)
        quarantined = _quarantine_unreadable(path)
        self._next_seq = max((event.seq for event in read_events(path)), default=-1) + 1
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        if quarantined:
            self.append(EventType.TRANSCRIPT_QUARANTINE, offsets=quarantined, file=quarantine_path(path).name)

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def append(self, type: EventType, node: str | None = None, step: int | None = None, **data: Any) -> Event:
        """Write one event durably and return it, with machine paths in its data made portable (paths.py)."""
        if type is not EventType.MODEL_CALL:  # a prompt and its reply are kept exactly as sent and received
            data = portable(data, self.path.parent)
        with self._lock:
            event = Event(seq=self._next_seq, time=time.time(), type=type, node=node, step=step, data=data)
            line = (event.model_dump_json() + "\n").encode()
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(descriptor, line)
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
            self._next_seq += 1
        for listener in self._listeners:
            listener(event)
        return event

    def events(self) -> list[Event]:
        return read_events(self.path)

